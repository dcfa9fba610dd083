#if Tracing && Metrics
    import Foundation
    import InMemoryTracing
    import Konex
    import KonexMetrics
    import KonexTracing
    import MetricsTestKit

    extension Benchmarks {
        /// What tracing and metrics add to case 4's request: with nothing bootstrapped (the no-op tracer and metrics
        /// factory, through the instruments' default path) and with the in-memory backends the packages ship. Target:
        /// ≤ 0.5 µs a request with no-op.
        func telemetry() async throws -> [Result] {
            let count = config.mockRequests
            let plain = Self.pipelineClient(idleMachinery: false)
            let noop = Self.pipelineClient(idleMachinery: false)
            noop.instruments = [TracingInstrument(), MetricsInstrument()]
            let tracer = InMemoryTracer(recordInjections: false)
            let metrics = TestMetrics()
            let inMemory = Self.pipelineClient(idleMachinery: false)
            inMemory.instruments = [TracingInstrument(tracer: tracer), MetricsInstrument(factory: metrics)]
            func run(_ client: KonexClient) async throws -> Sample {
                defer {
                    tracer.clearAll()  // the in-memory backends keep everything: start each sample empty
                    metrics.reset()
                }
                return try await measure {
                    for _ in 0..<count { _ = try await Self.chain(client).responseObject(of: Small.self) }
                }
            }
            for client in [plain, noop, inMemory] { _ = try await run(client) }
            let samples = try await interleaved(
                rounds: config.rounds, [{ try await run(plain) }, { try await run(noop) }, { try await run(inMemory) }])
            let perRequest = { (sample: Sample) in sample.wall / Double(count) * 1e6 }
            let base = samples[0].map(perRequest)
            func row(_ id: String, _ index: Int, _ what: String) -> Result {
                // Per round, the difference from the plain request run next to it: the spread is the machine's.
                let added = zip(samples[index].map(perRequest), base).map { $0 - $1 }
                return Result(
                    id: id, konex: added.median, baseline: base.median, ratio: nil, unit: "µs/request added",
                    detail: String(
                        format: "%@ over case 4's %.2f µs; rounds %.2f…%.2f µs", what, base.median, added.min()!,
                        added.max()!))
            }
            return [
                row("telemetry_noop", 1, "TracingInstrument + MetricsInstrument, nothing bootstrapped (target ≤ 0.5)"),
                row("telemetry_inmemory", 2, "InMemoryTracer + TestMetrics"),
            ]
        }
    }
#endif
