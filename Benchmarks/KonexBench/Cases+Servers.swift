import Foundation
import Konex

#if AsyncHTTPClient
    import AsyncHTTPClient
    import KonexAsyncHTTPClient
    import NIOCore
#endif

/// The four ways to make one request (#23), run interleaved against the same loopback server: raw AsyncHTTPClient,
/// Konex over it, raw `URLSession`, Konex over `URLSession`.
enum Way: Int, CaseIterable {
    case rawAHC, konexAHC, rawURLSession, konexURLSession

    var name: String { ["raw AHC", "Konex/AHC", "raw URLSession", "Konex/URLSession"][rawValue] }
}

/// Runs the variants in a rotating order (A B C D, B C D A, …), so each sees the machine's moments in turn.
func interleaved(rounds: Int, _ variants: [() async throws -> Sample]) async throws -> [[Sample]] {
    var samples = Array(repeating: [Sample](), count: variants.count)
    for round in 0..<rounds {
        for step in 0..<variants.count {
            let index = (round + step) % variants.count
            samples[index].append(try await variants[index]())
        }
    }
    return samples
}

extension Result {
    /// A four-way row: Konex/AHC against raw AHC (the ratio, as the per-round median), and the other two ways and
    /// Konex/AHC's ratio to raw URLSession in the detail line. `higherIsBetter` for throughputs.
    static func fourWay(
        id: String, _ samples: [[Sample]], value: (Sample) -> Double, unit: String, higherIsBetter: Bool = false,
        detail: String
    ) -> Result {
        let medians = samples.map { $0.map(value).median }
        func ratio(_ a: Way, _ b: Way) -> Double {
            zip(samples[a.rawValue], samples[b.rawValue]).map { value($0) / value($1) }.median
        }
        // A ratio ≤ 1 always means "Konex/AHC costs less": for throughputs it is the inverse of the values' ratio.
        let overRawAHC = higherIsBetter ? 1 / ratio(.konexAHC, .rawAHC) : ratio(.konexAHC, .rawAHC)
        let overURLSession =
            higherIsBetter ? 1 / ratio(.konexAHC, .rawURLSession) : ratio(.konexAHC, .rawURLSession)
        let rounds = zip(samples[Way.konexAHC.rawValue], samples[Way.rawAHC.rawValue]).map {
            higherIsBetter ? value($1) / value($0) : value($0) / value($1)
        }
        let ways = Way.allCases.map { String(format: "%@ %.2f", $0.name, medians[$0.rawValue]) }
        return Result(
            id: id, konex: medians[Way.konexAHC.rawValue], baseline: medians[Way.rawAHC.rawValue], ratio: overRawAHC,
            unit: unit,
            detail: String(
                format:
                    "%@; %@; cost ratios: Konex/AHC ÷ raw AHC %.3f× (per round %.3f–%.3f), ÷ raw URLSession %.3f×, Konex/URLSession ÷ raw URLSession %.3f×",
                detail, ways.joined(separator: ", "), overRawAHC, rounds.min() ?? .nan, rounds.max() ?? .nan,
                overURLSession,
                higherIsBetter
                    ? 1 / ratio(.konexURLSession, .rawURLSession) : ratio(.konexURLSession, .rawURLSession)),
            fourWay: medians, overRawURLSession: overURLSession)
    }
}

#if AsyncHTTPClient
    extension Benchmarks {
        /// The four-way cases: small GETs sequentially, 32 and 256 in flight, a 1 MB decode, SSE's first event and
        /// a streamed body's throughput. Each case is its own row; one that fails says why in its row.
        func servers(report: (String, () async throws -> [Result]) async -> Void) async {
            let http = AsyncHTTPClientTransport.makeClient()
            let overAHC = KonexClient(baseURL: base, transport: AsyncHTTPClientTransport(client: http))
            let four = FourWays(http: http, overAHC: overAHC, overURLSession: client, session: session, base: base)
            await report("ahc_seq_small") {
                [
                    try await four.smallGETs(
                        id: "ahc_seq_small", count: config.sequential, inFlight: 1, rounds: config.rounds)
                ]
            }
            await report("ahc_concurrent_32") {
                [
                    try await four.smallGETs(
                        id: "ahc_concurrent_32", count: config.concurrent, inFlight: config.inFlight,
                        rounds: config.rounds)
                ]
            }
            await report("ahc_concurrent_256") {
                [
                    try await four.smallGETs(
                        id: "ahc_concurrent_256", count: config.wide, inFlight: config.wideInFlight,
                        rounds: Swift.max(2, config.rounds / 2))
                ]
            }
            await report("ahc_decode_1mb") { [try await four.decode(count: config.largeGets, rounds: config.rounds)] }
            await report("ahc_sse_first_event") { [try await four.firstEvent(rounds: config.rounds * 3)] }
            await report("ahc_stream_throughput") {
                [try await four.throughput(megabytes: config.streamMB, rounds: config.rounds)]
            }
            // Konex writes the file as chunks come; the transport buffers at most 1 MiB ahead of it.
            await report("ahc_download_rss") { [try await download(over: overAHC, id: "ahc_download_rss")] }
            try? await http.shutdown()
        }
    }

    /// The four ways of each case, side by side.
    struct FourWays: Sendable {
        let http: HTTPClient
        let overAHC: KonexClient
        let overURLSession: KonexClient
        let session: URLSession
        let base: URL

        private func rawAHC(_ path: String) async throws -> HTTPClientResponse {
            let response = try await http.execute(
                HTTPClientRequest(url: base.absoluteString + path), timeout: .seconds(60))
            guard response.status == .ok else { throw ServerError("raw AHC: status \(response.status)") }
            return response
        }

        private func rawAHCData(_ path: String, limit: Int) async throws -> Data {
            Data(try await rawAHC(path).body.collect(upTo: limit).readableBytesView)
        }

        private func rawURLSessionData(_ path: String) async throws -> Data {
            let (data, response) = try await session.data(
                for: URLRequest(url: URL(string: base.absoluteString + path)!))
            guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw ServerError("raw URLSession: status") }
            return data
        }

        /// `count` small GETs decoded into a struct, `inFlight` at once.
        func smallGETs(id: String, count: Int, inFlight: Int, rounds: Int) async throws -> Result {
            func run(_ call: @escaping @Sendable () async throws -> Void) async throws -> Sample {
                try await measure { try await runInFlight(count, width: inFlight, call) }
            }
            let calls: [@Sendable () async throws -> Void] = [
                { _ = try JSONDecoder().decode(Small.self, from: try await rawAHCData("/small", limit: 1 << 20)) },
                { _ = try await overAHC.request("/small").validate().responseObject(of: Small.self) },
                { _ = try JSONDecoder().decode(Small.self, from: try await rawURLSessionData("/small")) },
                { _ = try await overURLSession.request("/small").validate().responseObject(of: Small.self) },
            ]
            // KONEX_AHC_ONLY=0…5: one way alone, for `perf stat` or `perf record` of it (nothing else runs after the
            // warm-up): the four above, then two points between raw AHC and Konex: AsyncHTTPClientTransport called
            // directly, and Konex returning the bytes (no validator, no decoding of Konex's).
            if let only = ProcessInfo.processInfo.environment["KONEX_AHC_ONLY"].flatMap(Int.init) {
                let transport = AsyncHTTPClientTransport(client: http)
                let url = URL(string: base.absoluteString + "/small")!
                let ways: [@Sendable () async throws -> Void] =
                    calls + [
                        {
                            _ = try JSONDecoder().decode(
                                Small.self, from: try await transport.data(for: URLRequest(url: url)).0)
                        },
                        {
                            _ = try JSONDecoder().decode(
                                Small.self, from: try await overAHC.request("/small").responseData())
                        },
                    ]
                guard ways.indices.contains(only) else { throw ServerError("KONEX_AHC_ONLY takes 0…5") }
                for way in ways { _ = try await run(way) }  // warm: connections, caches
                var samples: [Sample] = []
                let before = cpuByThreadName()
                for _ in 0..<rounds * 2 { samples.append(try await run(ways[only])) }
                // Which threads spent the time: the caller's tasks, NIO's loops, the server's connections.
                let requests = Double(rounds * 2 * count)
                for (name, seconds) in cpuByThreadName().sorted(by: { $0.key < $1.key }) {
                    let spent = (seconds - (before[name] ?? 0)) / requests * 1e6
                    if spent >= 0.05 { print(String(format: "  CPU %@: %.2f µs a request", name, spent)) }
                }
                return Result.compared(
                    id: "\(id)_\(only)", samples, samples, per: count, unit: "µs/request",
                    detail: "one way alone (KONEX_AHC_ONLY), for profiles")
            }
            for call in calls { _ = try await run(call) }  // warm: connections, caches
            // KONEX_AHC_PAIRS=N: raw AHC and Konex/AHC alone, N short rounds alternating (A B, B A, …), each round a
            // tenth of the usual count: the machine's slow and fast spells land on both ways alike, and the many
            // ratios give a median whose spread can be read (the four-way rounds are few and long).
            if let pairs = ProcessInfo.processInfo.environment["KONEX_AHC_PAIRS"].flatMap(Int.init), pairs > 0 {
                let short = Swift.max(inFlight, count / 10)
                func shortRun(_ call: @escaping @Sendable () async throws -> Void) async throws -> Sample {
                    try await measure { try await runInFlight(short, width: inFlight, call) }
                }
                let (konex, raw) = try await interleaved(
                    rounds: pairs, { try await shortRun(calls[Way.konexAHC.rawValue]) },
                    { try await shortRun(calls[Way.rawAHC.rawValue]) })
                return Result.compared(
                    id: "\(id)_pairs", konex, raw, per: short, unit: "µs/request",
                    detail: "\(pairs) rounds of \(short) small GETs, \(inFlight) in flight, Konex/AHC against raw AHC")
            }
            let samples = try await interleaved(rounds: rounds, calls.map { call in { try await run(call) } })
            return Result.fourWay(
                id: id, samples, value: { $0.wall / Double(count) * 1e6 }, unit: "µs/request",
                detail: "\(count) small GETs decoded into a struct, \(inFlight) in flight")
        }

        /// `count` GETs of the 1 MB array of 5,000 posts, decoded.
        func decode(count: Int, rounds: Int) async throws -> Result {
            let calls: [@Sendable () async throws -> Void] = [
                { _ = try JSONDecoder().decode([Post].self, from: try await rawAHCData("/posts", limit: 16 << 20)) },
                { _ = try await overAHC.request("/posts").validate().responseArray(of: Post.self) },
                { _ = try JSONDecoder().decode([Post].self, from: try await rawURLSessionData("/posts")) },
                { _ = try await overURLSession.request("/posts").validate().responseArray(of: Post.self) },
            ]
            let variants = calls.map { call in { try await measure { for _ in 0..<count { try await call() } } } }
            for variant in variants { _ = try await variant() }
            let samples = try await interleaved(rounds: rounds, variants)
            return Result.fourWay(
                id: "ahc_decode_1mb", samples, value: { $0.wall / Double(count) * 1e3 }, unit: "ms/request",
                detail: "\(count) GETs of a 1 MB array of 5,000 posts, decoded")
        }

        /// Time from the request to the first Server-Sent Event (the server sends one, then waits a second).
        func firstEvent(rounds: Int) async throws -> Result {
            let raw = RawStreamer()
            let url = base.appendingPathComponent("sse-first")
            let calls: [@Sendable () async throws -> Void] = [
                {
                    // The first chunk holds the first event; dropping the body cancels the request.
                    var body = try await rawAHC("/sse-first").body.makeAsyncIterator()
                    _ = try await body.next()
                },
                {
                    let stream = try await overAHC.request("/sse-first").stream()
                    var events = stream.events().makeAsyncIterator()
                    _ = try await events.next()
                    stream.cancel()
                },
                { await raw.timeToFirstByte(url) },
                {
                    let stream = try await overURLSession.request("/sse-first").stream()
                    var events = stream.events().makeAsyncIterator()
                    _ = try await events.next()
                    stream.cancel()
                },
            ]
            let variants = calls.map { call in { try await measure { try await call() } } }
            for variant in variants { _ = try await variant() }
            let samples = try await interleaved(rounds: rounds, variants)
            return Result.fourWay(
                id: "ahc_sse_first_event", samples, value: { $0.wall * 1e3 }, unit: "ms to first event",
                detail: "one event, then 1 s of silence; raw sides read the first body bytes")
        }

        /// A large streamed body read chunk by chunk.
        func throughput(megabytes: Int, rounds: Int) async throws -> Result {
            let size = megabytes << 20
            let raw = RawStreamer()
            let url = base.appendingPathComponent("generated/\(size)")
            let path = "/generated/\(size)"
            @Sendable func check(_ bytes: Int, _ way: Way) throws {
                guard bytes == size else { throw ServerError("\(way.name): \(bytes) of \(size) bytes") }
            }
            let calls: [@Sendable () async throws -> Void] = [
                {
                    var bytes = 0
                    for try await buffer in try await rawAHC(path).body { bytes += buffer.readableBytes }
                    try check(bytes, .rawAHC)
                },
                {
                    var bytes = 0
                    for try await chunk in try await overAHC.request(path).stream().chunks { bytes += chunk.count }
                    try check(bytes, .konexAHC)
                },
                { try check(try await raw.count(url), .rawURLSession) },
                {
                    var bytes = 0
                    for try await chunk in try await overURLSession.request(path).stream().chunks {
                        bytes += chunk.count
                    }
                    try check(bytes, .konexURLSession)
                },
            ]
            let variants = calls.map { call in { try await measure { try await call() } } }
            let samples = try await interleaved(rounds: rounds, variants)
            return Result.fourWay(
                id: "ahc_stream_throughput", samples, value: { Double(megabytes) / $0.wall }, unit: "MB/s",
                higherIsBetter: true, detail: "\(megabytes) MB in 64 KB writes, read chunk by chunk (higher is better)")
        }
    }
#endif
