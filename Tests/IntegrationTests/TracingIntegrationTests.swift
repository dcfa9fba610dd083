#if Tracing
    import AsyncHTTPClient
    import Foundation
    import InMemoryTracing
    import Konex
    import KonexTracing
    import TestSupport
    import Testing
    import Tracing

    #if AsyncHTTPClient
        import KonexAsyncHTTPClient
    #endif

    /// End to end: the `traceparent` a real httpbin receives is the span the test recorded, over URLSession and over
    /// AsyncHTTPClient, and when AsyncHTTPClient traces too, it is still one header, not two.
    @Suite(.enabled(if: Server.isAvailable, Server.skipReason))
    struct TracingIntegrationTests {
        let tracer = W3CInMemoryTracer()

        /// Sends GET /headers through `transport` and returns what httpbin saw and the span Konex recorded.
        func echo(through transport: any Transport) async throws -> (traceparent: String, konex: FinishedInMemorySpan) {
            let client = KonexClient(
                baseURL: Server.url!, transport: transport, instruments: [TracingInstrument(tracer: tracer)])
            let headers =
                try await client.request("headers").validate()
                .responseObject(of: [String: [String: String]].self)["headers"] ?? [:]
            let konex = try #require(tracer.recorded.finishedSpans.first { $0.attributes.get("konex.attempts") != nil })
            return (try #require(headers["Traceparent"]), konex)
        }

        @Test func overURLSessionTheServerSeesKonexsSpan() async throws {
            let (traceparent, span) = try await echo(through: URLSessionTransport(configuration: .ephemeral))
            #expect(traceparent == "00-\(span.traceID)-\(span.spanID)-01")
            #expect(span.attributes.get("http.response.status_code") == .int64(200))
            #expect(span.attributes.get("server.address") == .string(Server.url!.host!))
        }

        #if AsyncHTTPClient
            @Test func overAsyncHTTPClientWithoutItsTracingTheServerSeesKonexsSpan() async throws {
                // makeClient's configuration takes the global tracer, a no-op here: Konex is the only layer.
                let (traceparent, span) = try await echo(through: AsyncHTTPClientTransport.shared)
                #expect(traceparent == "00-\(span.traceID)-\(span.spanID)-01")
            }

            @Test func whenAsyncHTTPClientTracesTooItsSpanIsKonexsChildAndOneHeaderIsSent() async throws {
                var configuration = HTTPClient.Configuration()
                configuration.tracing.tracer = tracer
                let http = AsyncHTTPClientTransport.makeClient(configuration: configuration)
                let outcome: Result<(String, FinishedInMemorySpan), any Error>
                do { outcome = .success(try await echo(through: AsyncHTTPClientTransport(client: http))) } catch {
                    outcome = .failure(error)
                }
                try await http.shutdown()
                let (traceparent, konex) = try outcome.get()
                #expect(!traceparent.contains(","), "two traceparent values reached the server: \(traceparent)")
                let ahc = try #require(tracer.recorded.finishedSpans.first { $0.spanID != konex.spanID })
                #expect(traceparent == "00-\(ahc.traceID)-\(ahc.spanID)-01")
                #expect(ahc.traceID == konex.traceID && ahc.parentSpanID == konex.spanID)
            }
        #endif
    }
#endif
