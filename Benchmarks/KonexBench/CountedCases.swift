import Foundation
import Konex
import KonexTesting

#if Tracing && Metrics
    import KonexMetrics
    import KonexTracing
#endif
#if AsyncHTTPClient
    import AsyncHTTPClient
    import KonexAsyncHTTPClient
#endif

/// The in-process cases whose cost is counted in instructions (`konex-bench --count CASE N`, run under
/// `valgrind --tool=callgrind` by scripts/instruction-counts): a count that repeats whatever the other core does,
/// where wall-clock ratios here swing by ±10 %.
enum CountedCase: String, CaseIterable, Sendable {
    case pipelineMock = "pipeline_mock"
    case pipelineFloor = "pipeline_floor"
    case idleComponents = "idle_components"
    case cacheHit = "cache_hit"
    case urlProtocolSmall = "urlprotocol_small"
    case sseParse = "sse_parse"
    case coalescedBurst = "coalesced_burst"
    #if Tracing && Metrics
        case telemetryNoop = "telemetry_noop"
    #endif
    #if AsyncHTTPClient
        case asyncHTTPClientSmall = "ahc_small"
        case asyncHTTPClientSmallRaw = "ahc_small_raw"
    #endif

    /// What one operation is.
    var summary: String {
        switch self {
        case .pipelineMock: "the full chain over MockTransport, decode included"
        case .pipelineFloor:
            "pipeline_mock's floor: the same mocked answer from MockTransport called directly, decoded by JSONDecoder"
        case .idleComponents: "pipeline_mock with RetryPolicy and TokenAuthenticator attached, never triggered"
        case .cacheHit: "a fresh HTTPCache hit through validate() and the decode"
        case .urlProtocolSmall: "a small GET through URLSessionTransport, answered in-process by a URLProtocol"
        case .sseParse: "parsing 64 KiB of an LLM-style event stream"
        case .coalescedBurst:
            "100 identical GETs through a RequestCoalescer over MockTransport, answered once all joined"
        #if Tracing && Metrics
            case .telemetryNoop: "pipeline_mock with TracingInstrument and MetricsInstrument, nothing bootstrapped"
        #endif
        #if AsyncHTTPClient
            case .asyncHTTPClientSmall:
                "a small GET through Konex over AsyncHTTPClient, validated and decoded, from a server in another process"
            case .asyncHTTPClientSmallRaw: "the same GET through AsyncHTTPClient alone, collected and decoded"
        #endif
        }
    }

    /// One operation, ready to repeat; what it needs is made once, here.
    func makeOperation() -> @Sendable () async throws -> Void {
        switch self {
        case .pipelineMock, .idleComponents:
            let client = Benchmarks.pipelineClient(idleMachinery: self == .idleComponents)
            return { _ = try await Benchmarks.chain(client).responseObject(of: Small.self) }
        case .pipelineFloor:
            // What any client pays for the same answer: the transport's call and a plain decode. pipeline_mock less
            // this is Konex's own share of a request.
            let mock = MockTransport(clock: ImmediateClock(), journalLimit: 0)
            mock.stub(.get("/small"), .data(Benchmarks.mockBody, contentType: "application/json"))
            let request = TransportRequest(
                head: RequestHead(method: .get, url: URL(string: "https://bench.test/small")!))
            let decoder = JSONDecoder()
            return {
                let (data, response) = try await mock.data(for: request)
                guard response.statusCode == 200 else { throw ServerError("bad status") }
                _ = try decoder.decode(Small.self, from: data)
            }
        #if Tracing && Metrics
            case .telemetryNoop:
                let client = Benchmarks.pipelineClient(idleMachinery: false)
                client.instruments = [TracingInstrument(), MetricsInstrument()]
                return { _ = try await Benchmarks.chain(client).responseObject(of: Small.self) }
        #endif
        case .cacheHit:
            let (client, _) = Benchmarks.cachingClient()
            return { _ = try await client.request("/small").validate().responseObject(of: Small.self) }
        case .urlProtocolSmall:
            let client = KonexClient(
                baseURL: URL(string: "http://stub.test")!,
                transport: URLSessionTransport(configuration: StubProtocol.configuration()))
            return { _ = try await client.request("/small").validate().responseObject(of: Small.self) }
        #if AsyncHTTPClient
            case .asyncHTTPClientSmall, .asyncHTTPClientSmallRaw:
                return Self.overAsyncHTTPClient(raw: self == .asyncHTTPClientSmallRaw)
        #endif
        case .coalescedBurst:
            return Self.coalescedBurst()
        case .sseParse:
            let chunk = sampleEventStream(megabytes: 1).0.prefix(65_536)
            return {
                var parser = ServerSentEventParser()
                var events = 0
                try parser.parse(chunk) { _ in events += 1 }
                guard events > 0 else { throw ServerError("no event parsed") }
            }
        }
    }

    /// Runs a warm-up of 20 operations, then `count` more, in one task.
    func run(count: Int) async throws {
        let operation = makeOperation()
        for _ in 0..<20 { try await operation() }
        // KONEX_COUNT_CHILD: each operation in a fresh child task, as the wall-time cases run them (a task's slabs and
        // frames are new each time), to see whether a cost appears only there.
        if ProcessInfo.processInfo.environment["KONEX_COUNT_CHILD"] != nil {
            for _ in 0..<count { try await runInFlight(1, width: 1, operation) }
            return
        }
        for _ in 0..<count { try await operation() }
    }
}

extension CountedCase {
    /// A burst of 100 callers of one GET through a RequestCoalescer: the mock answers on a manual clock, advanced
    /// once every caller waits on the shared call, so every burst is one transport call and 99 joins.
    static func coalescedBurst() -> @Sendable () async throws -> Void {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock, journalLimit: 0)
        mock.stub(
            .get("/small"),
            MockResponse.data(Benchmarks.mockBody, contentType: "application/json").delayed(by: .seconds(1)))
        let coalescer = RequestCoalescer()
        let client = KonexClient(
            baseURL: URL(string: "https://bench.test")!, transport: mock, clock: clock, interceptors: [coalescer])
        return {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<100 {
                    group.addTask { _ = try await client.request("/small").validate().responseObject(of: Small.self) }
                }
                try await clock.waitForSleepers(1)
                while coalescer.waiterCount < 100 { try await Task.sleep(for: .milliseconds(5)) }
                clock.advance(by: .seconds(1))
                try await group.waitForAll()
            }
        }
    }
}

#if AsyncHTTPClient
    extension CountedCase {
        /// A small GET from the bench's static server, started in a process of its own (callgrind follows only this
        /// one, so the server's work is not counted): through Konex over AsyncHTTPClient, or AsyncHTTPClient alone.
        static func overAsyncHTTPClient(raw: Bool) -> @Sendable () async throws -> Void {
            // Under valgrind a child process cannot be spawned (its descriptors are valgrind's), so
            // scripts/instruction-counts starts `konex-bench --serve` itself and names it in KONEX_BENCH_SERVER.
            let server: (base: String, process: Process?)
            if let given = ProcessInfo.processInfo.environment["KONEX_BENCH_SERVER"] {
                server = (given, nil)
            } else {
                do {
                    let started = try ServerProcess.start()
                    server = ("http://127.0.0.1:\(started.port)", started.process)
                } catch {
                    return { throw error }
                }
            }
            let base = server.base
            let http = AsyncHTTPClientTransport.makeClient()
            if raw {
                return {
                    withExtendedLifetime(server.process) {}
                    let response = try await http.execute(
                        HTTPClientRequest(url: base + "/small"), timeout: .seconds(30))
                    guard response.status == .ok else { throw ServerError("raw AHC: status \(response.status)") }
                    let body = try await response.body.collect(upTo: 1 << 20)
                    _ = try JSONDecoder().decode(Small.self, from: Data(body.readableBytesView))
                }
            }
            let client = KonexClient(baseURL: URL(string: base)!, transport: AsyncHTTPClientTransport(client: http))
            return {
                withExtendedLifetime(server.process) {}
                _ = try await client.request("/small").validate().responseObject(of: Small.self)
            }
        }
    }
#endif
