import Foundation
import Konex
import KonexTesting

struct Small: Codable, Sendable {
    var id: Int
    var title: String
    var done: Bool
}

struct Post: Codable, Sendable {
    var userId: Int
    var id: Int
    var title: String
    var body: String
}

/// One row of the report.
struct Result: Encodable {
    var id: String
    var konex: Double
    var baseline: Double?
    var ratio: Double?
    var unit: String
    var detail: String
    /// A four-way case's medians, in ``Way`` order.
    var fourWay: [Double]? = nil
    /// A four-way case's Konex/AHC cost against raw URLSession.
    var overRawURLSession: Double? = nil
    /// Why the case could not finish; its numbers are then meaningless.
    var error: String? = nil

    enum CodingKeys: String, CodingKey {
        case id, konex, baseline, ratio, unit, detail, fourWay, overRawURLSession, error
    }

    /// The row of a case that failed: the run goes on.
    static func failed(_ id: String, _ error: any Error) -> Result {
        Result(id: id, konex: 0, unit: "", detail: "FAILED: \(error)", error: "\(error)")
    }

    /// Writes `null` for a missing baseline or ratio (JSONEncoder would leave the key out).
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(konex, forKey: .konex)
        if let baseline {
            try container.encode(baseline, forKey: .baseline)
        } else {
            try container.encodeNil(forKey: .baseline)
        }
        if let ratio { try container.encode(ratio, forKey: .ratio) } else { try container.encodeNil(forKey: .ratio) }
        try container.encode(unit, forKey: .unit)
        try container.encode(detail, forKey: .detail)
        try container.encodeIfPresent(fourWay, forKey: .fourWay)
        try container.encodeIfPresent(overRawURLSession, forKey: .overRawURLSession)
        try container.encodeIfPresent(error, forKey: .error)
    }
}

extension Result {
    /// A Konex-vs-baseline result from interleaved samples: the median per operation on each side, the median of the
    /// per-round ratios (each round's two sides run back to back, so the pair shares the machine's state of the
    /// moment and a slow stretch of the machine cancels out), their spread, and the CPU-time ratio.
    static func compared(
        id: String, _ konex: [Sample], _ baseline: [Sample], per count: Int, scale: Double = 1e6, unit: String,
        detail: String
    ) -> Result {
        let konexValue = konex.map(\.wall).median / Double(count) * scale
        let baselineValue = baseline.map(\.wall).median / Double(count) * scale
        let rounds = zip(konex, baseline).map { $0.wall / $1.wall }
        let cpuRounds = zip(konex, baseline).map { $0.cpu / max($1.cpu, 1e-9) }
        var counted = ""
        let konexInstructions = konex.compactMap(\.instructions).map { Double($0) / Double(count) }
        let baselineInstructions = baseline.compactMap(\.instructions).map { Double($0) / Double(count) }
        if !konexInstructions.isEmpty, !baselineInstructions.isEmpty {
            counted = String(
                format: "; instructions per operation %.0f vs %.0f (%.3f×)", konexInstructions.median,
                baselineInstructions.median, konexInstructions.median / baselineInstructions.median)
        }
        return Result(
            id: id, konex: konexValue, baseline: baselineValue, ratio: rounds.median, unit: unit,
            detail: String(
                format:
                    "%@; per-round ratio %.3f–%.3f, middle half %.3f–%.3f (ratio of medians %.3f); CPU ratio %.3f%@",
                detail, rounds.min()!, rounds.max()!, rounds.quartiles.lower, rounds.quartiles.upper,
                konexValue / baselineValue, cpuRounds.median, counted))
    }
}

struct Config {
    var sequential = 2_000
    var concurrent = 2_000
    var inFlight = 32
    var largeGets = 50
    var rounds = 9
    var mockRequests = 20_000
    var soak = 100_000
    var burst = 1_000
    var downloadMB = 256
    var streamMB = 50
    var slowEvents = 100_000
    var parseMB = 10
    var wide = 10_000
    var wideInFlight = 256
    var datasetDecodes = 20

    static let smoke = Config(
        sequential: 100, concurrent: 100, inFlight: 8, largeGets: 3, rounds: 2, mockRequests: 500, soak: 2_000,
        burst: 100, downloadMB: 16, streamMB: 4, slowEvents: 10_000, parseMB: 1, wide: 200, wideInFlight: 16,
        datasetDecodes: 2)
}

struct Benchmarks {
    let config: Config
    let base: URL
    let session = URLSession(configuration: .ephemeral)
    let client: KonexClient

    init(config: Config, port: UInt16) {
        self.config = config
        base = URL(string: "http://127.0.0.1:\(port)")!
        if ProcessInfo.processInfo.environment["BENCH_DATAFOR"] != nil {
            client = KonexClient(baseURL: base, transport: DataForTransport(session: session))
        } else {
            client = KonexClient(baseURL: base, transport: URLSessionTransport(session: session))
        }
    }

    func rawSmall() async throws -> Small {
        let (data, response) = try await session.data(for: URLRequest(url: base.appendingPathComponent("small")))
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw ServerError("bad status") }
        return try JSONDecoder().decode(Small.self, from: data)
    }

    func konexSmall() async throws -> Small {
        try await client.request("/small").validate().responseObject(of: Small.self)
    }

    /// Case 1 and 2: small GETs, sequential or with `inFlight` at once.
    func small(concurrently: Bool) async throws -> Result {
        let count = concurrently ? config.concurrent : config.sequential
        let width = concurrently ? config.inFlight : 1
        func run(_ call: @escaping @Sendable () async throws -> Small) async throws -> Sample {
            try await measure { try await runInFlight(count, width: width) { _ = try await call() } }
        }
        let raw = { @Sendable in try await rawSmall() }
        let konex = { @Sendable in try await konexSmall() }
        _ = try await run(raw)  // warm both paths: connections, caches
        _ = try await run(konex)
        let (a, b) = try await interleaved(rounds: config.rounds, { try await run(konex) }, { try await run(raw) })
        return Result.compared(
            id: concurrently ? "concurrent_small" : "seq_small", a, b, per: count, unit: "µs/request",
            detail: String(
                format: "wall min–max %.1f–%.1f vs %.1f–%.1f µs", a.map(\.wall).min()! / Double(count) * 1e6,
                a.map(\.wall).max()! / Double(count) * 1e6, b.map(\.wall).min()! / Double(count) * 1e6,
                b.map(\.wall).max()! / Double(count) * 1e6))
    }

    /// `urlprotocol_small`: the same small GET answered in-process by a URLProtocol (no socket, so steady): raw
    /// `data(for:)` + decode vs Konex, both on sessions with the same configuration.
    func urlProtocolSmall() async throws -> Result {
        // Four times the rounds, a quarter of the requests each: the same total, with the two sides of a pair closer
        // in time, so the per-round ratios see less of the machine's drift.
        let count = config.sequential / 4
        let rounds = config.rounds * 4
        let rawSession = URLSession(configuration: StubProtocol.configuration())
        // Diagnostics, KONEX_URLP_VARIANT=…: `plain` Konex over a bare `data(for:)` transport on a session without a
        // delegate; `urlrequest` Konex sending a ready URLRequest; `data` that, `responseData()` only, decoded as raw
        // decodes; `transport` URLSessionTransport.send alone. Each tells one layer's share from the next.
        let variant = ProcessInfo.processInfo.environment["KONEX_URLP_VARIANT"] ?? ""
        let konex = KonexClient(
            baseURL: URL(string: "http://stub.test")!,
            transport: variant == "plain"
                ? DataForTransport(session: URLSession(configuration: StubProtocol.configuration()))
                : URLSessionTransport(configuration: StubProtocol.configuration()))
        let url = URL(string: "http://stub.test/small")!
        let raw = {
            try await measure {
                for _ in 0..<count {
                    let (data, response) = try await rawSession.data(for: URLRequest(url: url))
                    guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw ServerError("bad status") }
                    _ = try JSONDecoder().decode(Small.self, from: data)
                }
            }
        }
        let viaKonex = {
            try await measure {
                for _ in 0..<count {
                    switch variant {
                    case "transport":
                        let (data, response) = try await konex.transport.data(for: URLRequest(url: url))
                        guard response.statusCode == 200 else { throw ServerError("bad status") }
                        _ = try JSONDecoder().decode(Small.self, from: data)
                    case "data":
                        let data = try await konex.request(URLRequest(url: url)).responseData()
                        _ = try JSONDecoder().decode(Small.self, from: data)
                    case "urlrequest":
                        _ = try await konex.request(URLRequest(url: url)).validate().responseObject(of: Small.self)
                    default:
                        _ = try await konex.request("/small").validate().responseObject(of: Small.self)
                    }
                }
            }
        }
        _ = try await raw()
        _ = try await viaKonex()
        // KONEX_URLP_ONLY=raw|konex: one side alone, for `perf stat` or `perf record` of each: nothing else runs.
        if let only = ProcessInfo.processInfo.environment["KONEX_URLP_ONLY"] {
            var samples: [Sample] = []
            for _ in 0..<rounds * 2 { samples.append(try await only == "raw" ? raw() : viaKonex()) }
            return Result.compared(
                id: "urlprotocol_small_\(only)", samples, samples, per: count, unit: "µs/request",
                detail: "one side alone (KONEX_URLP_ONLY), for profiles")
        }
        let (a, b) = try await interleaved(rounds: rounds, viaKonex, raw)
        return Result.compared(
            id: "urlprotocol_small", a, b, per: count, unit: "µs/request",
            detail: "in-process URLProtocol, no socket: Konex vs data(for:) + JSONDecoder")
    }

    /// Case 3: 1 MB JSON arrays, plain and wrapped in an envelope.
    func large() async throws -> [Result] {
        let count = config.largeGets
        let raw = {
            try await measure {
                for _ in 0..<count {
                    let (data, _) = try await session.data(for: URLRequest(url: base.appendingPathComponent("posts")))
                    _ = try JSONDecoder().decode([Post].self, from: data)
                }
            }
        }
        let konex = {
            try await measure {
                for _ in 0..<count { _ = try await client.request("/posts").validate().responseArray(of: Post.self) }
            }
        }
        let keyPath = {
            try await measure {
                for _ in 0..<count {
                    _ = try await client.request("/envelope").validate().responseArray(
                        of: Post.self, atKeyPath: "data.items")
                }
            }
        }
        _ = try await raw()
        _ = try await konex()
        _ = try await keyPath()
        let (a, b) = try await interleaved(rounds: config.rounds, konex, raw)
        let (c, d) = try await interleaved(rounds: config.rounds, keyPath, konex)
        return [
            Result.compared(
                id: "decode_1mb", a, b, per: count, scale: 1e3, unit: "ms/request",
                detail: "1 MB array of 5,000 posts; baseline: data(for:) + JSONDecoder"),
            Result.compared(
                id: "keypath_decode", c, d, per: count, scale: 1e3, unit: "ms/request",
                detail: "atKeyPath \"data.items\" vs the plain Konex decode"),
        ]
    }

    /// Case 4 and 6: the full chain through the mock transport, and with retry/auth attached but idle.
    /// The small body the mock cases answer with.
    static let mockBody = try! JSONEncoder().encode(Small(id: 1, title: "benchmark", done: false))

    /// Case 4's client over MockTransport (a plugin and a validator at client level); with `idleMachinery` a
    /// `RetryPolicy` and a `TokenAuthenticator` too (case 6), with `retryOnly` the policy alone.
    static func pipelineClient(idleMachinery: Bool, retryOnly: Bool = false) -> KonexClient {
        let mock = MockTransport(clock: ImmediateClock(), journalLimit: 0)
        mock.stub(.get("/small"), .data(mockBody, contentType: "application/json"))
        let client = KonexClient(baseURL: URL(string: "https://bench.test")!, transport: mock, clock: ImmediateClock())
        client.plugins = [Noop()]
        client.responseValidators = [.statusCode(200..<300)]
        if retryOnly { client.retriers = [RetryPolicy()] }
        if idleMachinery {
            let auth = TokenAuthenticator(credential: .init(accessToken: "token")) { _ in .init(accessToken: "new") }
            client.adapters = [auth]
            client.retriers = [RetryPolicy(), auth]
        }
        return client
    }

    /// Case 4's chain: components at the three levels (client, request, call site).
    static func chain(_ client: KonexClient) -> DataRequest {
        client.request(BenchRequest()).withPlugin(Noop()).validate(.contentType(["application/json"]))
            .process(.custom { @Sendable data, _ in data })
    }

    func pipeline() async throws -> [Result] {
        let body = Self.mockBody
        let plain = Self.pipelineClient(idleMachinery: false)
        let idle = Self.pipelineClient(idleMachinery: true)
        let retryOnly = Self.pipelineClient(idleMachinery: false, retryOnly: true)
        let count = config.mockRequests
        let chain = Self.chain
        let full = { (client: KonexClient) in
            try await measure { for _ in 0..<count { _ = try await chain(client).responseObject(of: Small.self) } }
        }
        let bare = {
            try await measure { for _ in 0..<count { _ = try await plain.request("/small").responseData() } }
        }
        let components = {
            try await measure { for _ in 0..<count { _ = try await chain(plain).responseData() } }
        }
        let decoder = JSONDecoder()
        let decodeOnly = {
            try await measure { for _ in 0..<count { _ = try decoder.decode(Small.self, from: body) } }
        }
        for _ in 0..<2 {
            _ = try await full(plain)
            _ = try await full(idle)
        }
        let (withIdle, withoutIdle) = try await interleaved(
            rounds: config.rounds, { try await full(idle) }, { try await full(plain) })
        let retryRuns = try await (0..<config.rounds).asyncMap { _ in try await full(retryOnly) }
        let bareRuns = try await (0..<config.rounds).asyncMap { _ in try await bare() }
        let componentRuns = try await (0..<config.rounds).asyncMap { _ in try await components() }
        let decodeRuns = try await (0..<config.rounds).asyncMap { _ in try await decodeOnly() }
        // The floor under the authenticator: FoundationNetworking's own `setValue` of one header on a request nobody
        // else holds (a fresh request with the header, minus a fresh request without it).
        let smallURL = URL(string: "https://bench.test/small")!
        let freshRuns = await (0..<config.rounds).asyncMap { _ in
            await measure { for _ in 0..<count { _ = URLRequest(url: smallURL) } }
        }
        let headerRuns = await (0..<config.rounds).asyncMap { _ in
            await measure {
                for _ in 0..<count {
                    var request = URLRequest(url: smallURL)
                    request.setValue("Bearer benchmark-token", forHTTPHeaderField: "Authorization")
                    _ = request
                }
            }
        }
        let perRequest = { (samples: [Sample]) in samples.map(\.wall).median / Double(count) * 1e6 }
        let fullUs = perRequest(withoutIdle)
        let decodeUs = perRequest(decodeRuns)
        let bareUs = perRequest(bareRuns)
        let componentUs = perRequest(componentRuns)
        let idleUs = perRequest(withIdle)
        let retryUs = perRequest(retryRuns)
        let setValueUs = perRequest(headerRuns) - perRequest(freshRuns)
        return [
            Result(
                id: "pipeline_mock", konex: fullUs - decodeUs, baseline: nil, ratio: nil,
                unit: "µs/request excl. decode",
                detail: String(
                    format:
                        "full %.2f µs = mock transport + build %.2f + 3 plugins/2 validators/1 processor %.2f + decode %.2f",
                    fullUs, bareUs, componentUs - bareUs, decodeUs)),
            Result(
                id: "idle_components", konex: idleUs - decodeUs, baseline: fullUs - decodeUs,
                ratio: (idleUs - decodeUs) / (fullUs - decodeUs), unit: "µs/request excl. decode",
                detail: String(
                    format:
                        "case 4 + RetryPolicy + TokenAuthenticator, never triggered; RetryPolicy alone: %.2f µs (%.3f×)",
                    retryUs - decodeUs, (retryUs - decodeUs) / (fullUs - decodeUs))),
            Result(
                id: "idle_vs_setvalue", konex: idleUs - fullUs, baseline: setValueUs,
                ratio: (idleUs - fullUs) / setValueUs, unit: "µs/request",
                detail: "what idle retry + auth add over case 4, vs FoundationNetworking's own setValue of the one "
                    + "header the authenticator must set (fresh request with it minus without it); target ≤ 1.3×"),
        ]
    }

    /// Case 5: a long soak through the mock, and a burst of requests in flight at once.
    func memoryGrowth() async throws -> Result {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.anything, .json(Small(id: 1, title: "soak", done: true)))
        let client = KonexClient(baseURL: URL(string: "https://bench.test")!, transport: mock)
        for _ in 0..<2_000 { _ = try await client.request("/soak").validate().responseObject(of: Small.self) }
        let before = memory().resident
        for _ in 0..<config.soak { _ = try await client.request("/soak").validate().responseObject(of: Small.self) }
        let growth = memory().resident - before

        let slow = MockTransport(delay: .fixed(.milliseconds(50)))
        slow.stub(.anything, .json(Small(id: 2, title: "burst", done: false)))
        let burstClient = KonexClient(baseURL: URL(string: "https://bench.test")!, transport: slow)
        let burst = config.burst
        let completed = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<burst {
                group.addTask {
                    _ = try await burstClient.request("/burst").responseObject(of: Small.self)
                    return 1
                }
            }
            return try await group.reduce(0, +)
        }
        let peak = memory().peak
        return Result(
            id: "memory_growth", konex: Double(growth) / 1_048_576, baseline: nil, ratio: nil, unit: "MB RSS growth",
            detail: String(
                format: "%d mock requests; %d/%d in flight at once completed; peak RSS %.1f MB",
                config.soak, completed, burst, Double(peak) / 1_048_576))
    }
}

extension Benchmarks {
    /// `inflight_memory`: the memory a request holds while it waits on its transport (its async frames, its records):
    /// the resident growth of a fresh process that parks 10,000 requests in a MockTransport on a manual clock, against
    /// the same 10,000 calls made to the transport alone (`--park konex|alone`, three processes each way).
    func inflightMemory() async throws -> Result {
        func parked(_ way: String) throws -> Double {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["--park", way]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard process.terminationStatus == 0,
                let bytes = Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
            else { throw ServerError("--park \(way) failed: \(text)") }
            return bytes
        }
        var alones: [Double] = []
        var konexes: [Double] = []
        for _ in 0..<3 {
            alones.append(try parked("alone"))
            konexes.append(try parked("konex"))
        }
        let (held, bare) = (konexes.median, alones.median)
        return Result(
            id: "inflight_memory", konex: held, baseline: bare, ratio: nil, unit: "bytes resident a request",
            detail: "10,000 requests waiting on MockTransport at once (validate, decode) vs the same calls to the "
                + "transport alone, median of 3 processes (Konex: \(konexes.map { Int($0) }), alone: "
                + "\(alones.map { Int($0) })); Konex's own share: \(Int(held - bare)) bytes")
    }

    /// `--park konex|alone`: parks 10,000 requests (through Konex, or straight to the transport) and prints the
    /// resident growth a request, in a process of its own so no earlier case's freed memory is reused.
    static func park(_ way: String) async throws -> Int {
        let count = 10_000
        let clock = ManualClock()
        let mock = MockTransport(clock: clock, journalLimit: 0)
        mock.stub(.anything, MockResponse.json(Small(id: 1, title: "parked", done: true)).delayed(by: .seconds(1)))
        let base = URL(string: "https://bench.test")!
        let client = KonexClient(baseURL: base, transport: mock)
        let request = TransportRequest(head: RequestHead(method: .get, url: base.appendingPathComponent("small")))
        let context = TransportContext(delivery: .whole)
        let alone = way == "alone"
        let call: @Sendable () async throws -> Void = {
            if alone {
                _ = try await mock.send(request, context: context)
            } else {
                _ = try await client.request("/small").validate().responseObject(of: Small.self)
            }
        }
        func run(_ count: Int) async throws -> Int {
            try await withThrowingTaskGroup(of: Void.self) { group in
                let before = memory().resident
                for _ in 0..<count { group.addTask { try await call() } }
                try await clock.waitForSleepers(count, timeout: .seconds(60))
                let held = memory().resident - before
                clock.advance(by: .seconds(1))
                try await group.waitForAll()
                return held / count
            }
        }
        _ = try await run(10)  // first-use metadata and the worker threads, outside the count
        return try await run(count)
    }

    /// Case 7: a large download through `download(to:)` (streamed to disk) and the same body in memory, with peak
    /// RSS growth sampled every millisecond while each runs.
    /// - Parameters:
    ///   - over: The client to download through; the URLSession one by default.
    ///   - id: The row's name.
    func download(over: KonexClient? = nil, id: String = "download_rss") async throws -> Result {
        let client = over ?? self.client
        let size = config.downloadMB << 20
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("konex-bench-\(UUID()).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        let streamed = try await peakGrowth {
            _ = try await client.request("/generated/\(size)").validate().download(to: file)
        }
        let onDisk = (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.intValue
        let inMemory = try await peakGrowth {
            _ = try await client.request("/generated/\(size)").validate().responseData()
        }
        return Result(
            id: id, konex: Double(streamed) / 1_048_576, baseline: Double(inMemory) / 1_048_576,
            ratio: nil, unit: "MB peak RSS growth",
            detail: String(
                format: "%d MB via download(to:) (%d bytes on disk) vs responseData() of the same body",
                config.downloadMB, onDisk ?? -1))
    }

    /// A 10 MB JSON upload with `compressingBody(.gzip)` to a mock that keeps nothing: the bytes sent as a share of
    /// the body, and the peak RSS growth while the body is compressed and sent (the body itself is made before).
    func compressedUpload() async throws -> Result {
        struct Entry: Encodable, Sendable {
            let id: Int
            let level: String
            let message: String
        }
        let entries = (0..<155_000).map {
            Entry(
                id: $0, level: ["info", "debug", "warning"][$0 % 3], message: "request \($0 % 977) took \($0 % 113) ms")
        }
        let body = try JSONEncoder().encode(entries)
        let sent = Lock(0)
        struct Counting: Transport {
            let sent: Lock<Int>
            func send(_ request: TransportRequest, context: TransportContext) async throws -> (
                ResponseHead, ResponseBody
            ) {
                var count = 0
                if let body = request.body { count = try body.collect(upTo: .max).count }
                sent.value = count
                return (ResponseHead(statusCode: 201, url: request.url), .empty)
            }
        }
        let client = KonexClient(baseURL: URL(string: "https://bench.test")!, transport: Counting(sent: sent))
        var request = TransportRequest(head: RequestHead(method: .post, url: URL(string: "https://bench.test/logs")!))
        request.body = .data(body)
        let growth = try await peakGrowth {
            _ = try await client.request(request).compressingBody(.gzip).validate().response()
        }
        return Result(
            id: "compressed_upload", konex: Double(growth) / 1_048_576, baseline: nil,
            ratio: Double(sent.value) / Double(body.count), unit: "MB peak RSS growth",
            detail: String(
                format: "%.1f MB of JSON sent as %d gzip bytes (%.1f %%), compressed in 64 KiB chunks to a file",
                Double(body.count) / 1_000_000, sent.value, 100 * Double(sent.value) / Double(body.count)))
    }

    /// The highest resident size seen while `body` runs, minus the size before it.
    func peakGrowth(_ body: () async throws -> Void) async throws -> Int {
        let before = memory().resident
        let peak = Lock(before)
        let sampling = Lock(true)
        let sampler = Thread {
            while sampling.value {
                let now = memory().resident
                peak.withLock { $0 = max($0, now) }
                usleep(1_000)
            }
        }
        sampler.start()
        try await body()
        sampling.value = false
        return peak.value - before
    }
}

struct BenchRequest: KonexRequest {
    let path = "/small"
    var requestPlugins: [any KonexPlugin] { [Noop()] }
}

struct Noop: KonexPlugin {}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}

struct DataForTransport: Transport {
    let session: URLSession
    func send(_ request: TransportRequest, context: TransportContext) async throws -> (ResponseHead, ResponseBody) {
        let (data, response) = try await session.data(for: request.urlRequest)
        return (ResponseHead(response as! HTTPURLResponse), ResponseBody(data))
    }
}
