import Foundation
import Konex
import KonexTesting

extension Benchmarks {
    /// `cache_hit` and `coalesced_burst`: what an HTTPCache hit and a RequestCoalescer burst cost.
    func production() async throws -> [Result] {
        [
            try await cacheHit(), try await coalescedBurst(serverDelay: 5), try await coalescedBurst(serverDelay: 0),
            try await coalescedBurst(serverDelay: 5, overMock: true),
        ]
    }

    /// A client with an `HTTPCache` over a mock whose answer stays fresh for an hour, and the mock.
    static func cachingClient() -> (KonexClient, MockTransport) {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(
            .anything, .json(Small(id: 1, title: "cached", done: true), headers: ["Cache-Control": "max-age=3600"]))
        return (
            KonexClient(baseURL: URL(string: "https://bench.test")!, transport: mock, interceptors: [HTTPCache()]), mock
        )
    }

    /// A fresh hit served through the whole chain (validator, decode) without the transport, against the same
    /// chain over MockTransport without a cache.
    private func cacheHit() async throws -> Result {
        let (cached, mock) = Self.cachingClient()
        let uncached = KonexClient(baseURL: URL(string: "https://bench.test")!, transport: mock)
        let count = config.mockRequests
        func run(_ client: KonexClient) async throws -> Sample {
            try await measure {
                for _ in 0..<count { _ = try await client.request("/small").validate().responseObject(of: Small.self) }
            }
        }
        _ = try await run(cached)
        _ = try await run(uncached)
        let before = mock.requestCount
        let (hits, misses) = try await interleaved(
            rounds: config.rounds, { try await run(cached) }, { try await run(uncached) })
        let transportCalls = mock.requestCount - before - config.rounds * count
        guard transportCalls == 0 else { throw ServerError("\(transportCalls) cache hits reached the transport") }
        let body = try JSONEncoder().encode(Small(id: 1, title: "cached", done: true))
        let decoder = JSONDecoder()
        let decodes = try await (0..<config.rounds).asyncMap { _ in
            try await measure { for _ in 0..<count { _ = try decoder.decode(Small.self, from: body) } }
        }
        let decodeUs = decodes.map(\.wall).median / Double(count) * 1e6
        var result = Result.compared(
            id: "cache_hit", hits, misses, per: count, unit: "µs/request",
            detail: "fresh hit through validate + decode, never the transport; baseline: the same chain over "
                + "MockTransport without a cache")
        result.detail += String(
            format: "; excluding the decode (%.2f µs): %.2f µs (target < 5 µs)", decodeUs, result.konex - decodeUs)
        return result
    }

    /// 100 identical GETs at once through a RequestCoalescer, against one GET, over the real transport.
    private func coalescedBurst(serverDelay milliseconds: Int, overMock: Bool = false) async throws -> Result {
        let transport: any Transport
        if overMock {
            // The same burst over MockTransport sleeping 5 ms: Konex's share alone, without FoundationNetworking's
            // threads competing for the two cores.
            let mock = MockTransport(journalLimit: 0)
            mock.stub(
                .anything,
                MockResponse.json(Small(id: 1, title: "burst", done: true)).delayed(by: .milliseconds(milliseconds)))
            transport = mock
        } else {
            transport = URLSessionTransport(session: session)
        }
        let client = KonexClient(baseURL: base, transport: transport, interceptors: [RequestCoalescer()])
        let path = milliseconds > 0 ? "/slow/\(milliseconds)" : "/small"
        let burst = 100
        let one = { try await measure { _ = try await client.request(path).validate().responseObject(of: Small.self) } }
        let many = {
            try await measure {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<burst {
                        group.addTask { _ = try await client.request(path).validate().responseObject(of: Small.self) }
                    }
                    try await group.waitForAll()
                }
            }
        }
        _ = try await one()
        _ = try await many()
        let rounds = max(config.rounds * 3, 6)
        guard !overMock else {
            let (bursts, singles) = try await interleaved(rounds: rounds, many, one)
            return .compared(
                id: "coalesced_burst_mock", bursts, singles, per: 1, scale: 1e3, unit: "ms per burst vs one request",
                detail: "\(burst) identical GETs at once (each caller validates and decodes) vs one GET; the mock "
                    + "answers after \(milliseconds) ms")
        }
        // The pattern's own floor: the same burst made by hand over raw URLSession (one task makes the call, 100
        // await its value and decode), against one raw call decoded. What a burst costs beyond one call without Konex.
        let url = URL(string: base.absoluteString + path)!
        let session = self.session
        let rawOne = {
            try await measure {
                let (data, _) = try await session.data(for: URLRequest(url: url))
                _ = try JSONDecoder().decode(Small.self, from: data)
            }
        }
        let rawMany = {
            try await measure {
                let shared = Task { try await session.data(for: URLRequest(url: url)).0 }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<burst {
                        group.addTask { _ = try JSONDecoder().decode(Small.self, from: try await shared.value) }
                    }
                    try await group.waitForAll()
                }
            }
        }
        _ = try await rawOne()
        _ = try await rawMany()
        let samples = try await interleaved(rounds: rounds, [many, one, rawMany, rawOne])
        let (bursts, singles) = (samples[0], samples[1])
        let floor = zip(samples[2], samples[3]).map { $0.wall / $1.wall }
        var result = Result.compared(
            id: milliseconds > 0 ? "coalesced_burst" : "coalesced_burst_0ms",
            bursts,
            singles, per: 1, scale: 1e3,
            unit: "ms per burst vs one request",
            detail: "\(burst) identical GETs at once (each caller validates and decodes) vs one GET; server answers "
                + (milliseconds > 0 ? "after \(milliseconds) ms" : "at once (loopback: the callers' own work shows)")
                + "; target ≤ 1.1× with a server delay")
        result.detail += String(
            format:
                "; the same burst by hand over raw URLSession (one task, 100 awaiting its value): %.3f× one raw call "
                + "(rounds %.3f–%.3f)", floor.median, floor.min()!, floor.max()!)
        return result
    }
}
