#if Tracing
    import Foundation
    import InMemoryTracing
    import KonexTesting
    import KonexTracing
    import TestSupport
    import Testing
    import Tracing

    @testable import Konex

    /// `TracingInstrument` with swift-distributed-tracing's in-memory tracer: one span per request, attempts as events,
    /// the W3C trace context on the wire.
    @Suite struct TracingInstrumentTests {
        let tracer = W3CInMemoryTracer()
        let api = URL(string: "https://api.test/v1")!

        func client(_ mock: MockTransport, interceptors: [any TransportInterceptor] = []) -> KonexClient {
            KonexClient(
                baseURL: api, transport: mock, clock: ImmediateClock(), interceptors: interceptors,
                instruments: [TracingInstrument(tracer: tracer)])
        }

        struct GetPost: KonexRequest {
            let id: Int
            var path: String { "/posts/\(id)" }
            var urlTemplate: String? { "/posts/{id}" }
        }

        var onlySpan: FinishedInMemorySpan {
            get throws {
                let spans = tracer.recorded.finishedSpans
                try #require(spans.count == 1, "spans: \(spans.map(\.operationName))")
                return spans[0]
            }
        }

        @Test func oneClientSpanWithTheHTTPConventionsAndTheTraceContextOnTheWire() async throws {
            let mock = MockTransport(clock: ImmediateClock()).stubbing(.get("/v1/posts"), .string("[]"))
            _ = try await client(mock).request("posts?access_token=s3cr3t&page=2").validate().responseData()
            let span = try onlySpan
            #expect(span.operationName == "GET" && span.kind == .client)
            #expect(span.attributes.get("http.request.method") == .string("GET"))
            #expect(span.attributes.get("http.response.status_code") == .int64(200))
            #expect(span.attributes.get("server.address") == .string("api.test"))
            #expect(span.attributes.get("server.port") == .int64(443))
            #expect(
                span.attributes.get("url.full") == .string("https://api.test/v1/posts?access_token=REDACTED&page=2"))
            #expect(span.attributes.get("konex.cache.source") == .string("network"))
            #expect(span.attributes.get("konex.attempts") == .int64(1))
            #expect(span.attributes.get("error.type") == nil && span.status == nil)
            let sent = try #require(mock.requests.first)
            #expect(sent.header("traceparent") == "00-\(span.traceID)-\(span.spanID)-01")
            #expect(sent.header("tracestate") == "konex=test")
        }

        @Test func aRouteNamesTheSpanAndAnUnknownMethodIsOther() async throws {
            let mock = MockTransport(clock: ImmediateClock())
            mock.stub(.get("/v1/posts/7"), .string("{}"))
            mock.stub(RequestMatcher(method: HTTPMethod("PURGE"), path: "/v1/cache"), .status(204))
            let client = client(mock)
            _ = try await client.request(GetPost(id: 7)).responseData()
            _ = try await client.request(KonexBasicRequestPurge()).responseData()
            let spans = tracer.recorded.finishedSpans
            #expect(spans.map(\.operationName) == ["GET /posts/{id}", "HTTP"])
            #expect(spans[0].attributes.get("url.template") == .string("/posts/{id}"))
            #expect(spans[1].attributes.get("http.request.method") == .string("_OTHER"))
            #expect(spans[1].attributes.get("http.request.method_original") == .string("PURGE"))
        }

        @Test func eachAttemptIsAnEventAndTheResendIsCounted() async throws {
            let mock = MockTransport(clock: ImmediateClock())
            mock.stub(.get("/v1/feed"), .status(503), times: .times(1))
            mock.stub(.get("/v1/feed"), .string("ok"))
            _ = try await client(mock).request("feed").validate().retry(RetryPolicy(baseDelay: .zero, jitter: 0))
                .responseData()
            let span = try onlySpan
            #expect(span.events.map(\.name) == ["http.attempt", "http.retry", "http.attempt"])
            #expect(span.events[0].attributes.get("http.response.status_code") == .int64(503))
            #expect(span.events[1].attributes.get("error.type") == .string("503"))
            #expect(span.events[2].attributes.get("http.request.resend_count") == .int64(1))
            #expect(span.attributes.get("http.request.resend_count") == .int64(1))
            #expect(span.attributes.get("konex.attempts") == .int64(2))
            // Each attempt carries the same span's context: the server sees one logical call.
            let parents = Set(mock.requests.compactMap { $0.header("traceparent") })
            #expect(parents == ["00-\(span.traceID)-\(span.spanID)-01"])
        }

        @Test func aRejectedResponseMarksTheSpanAsAnErrorWithItsStatus() async throws {
            let mock = MockTransport(clock: ImmediateClock()).stubbing(.get("/v1/missing"), .status(404))
            await #expect(throws: KonexError.self) {
                _ = try await client(mock).request("missing").validate().responseData()
            }
            let span = try onlySpan
            #expect(span.attributes.get("error.type") == .string("404"))
            #expect(span.status?.code == .error)
            #expect(span.errors.count == 1)
        }

        /// A tracing backend keeps what it is given for months: the recorded error carries no body, no request
        /// headers, and the client's redaction governs `url.full` and the error's description.
        @Test func theRecordedErrorCarriesNoBodyAndTheClientsRedactionGoverns() async throws {
            var redaction = Redaction.default
            redaction.queryItems.insert("tenant")
            let mock = MockTransport(clock: ImmediateClock())
                .stubbing(.get("/v1/missing"), .json(["access_token": "BODY-CANARY"], status: 404))
            let client = KonexClient(
                baseURL: api, transport: mock, clock: ImmediateClock(), adapters: [.bearer("HEADER-CANARY")],
                instruments: [TracingInstrument(tracer: tracer)], redaction: redaction)
            let thrown = try await requireThrows(KonexError.self) {
                try await client.request("missing?tenant=TENANT-CANARY").validate().responseData()
            }
            #expect(thrown.data != nil && thrown.request != nil)  // the caller still gets the whole error
            let span = try onlySpan
            #expect(span.attributes.get("url.full") == .string("https://api.test/v1/missing?tenant=REDACTED"))
            let recorded = try #require(span.errors.first?.error as? KonexError)
            #expect(recorded.data == nil && recorded.errorBody == nil && recorded.request == nil)
            #expect(recorded.statusCode == 404 && recorded.stage == .validation)
            let exported = "\(recorded) \(String(reflecting: recorded))"
            for canary in ["BODY-CANARY", "HEADER-CANARY", "TENANT-CANARY"] {
                #expect(!exported.contains(canary), "\(canary) reached the span")
            }
        }

        @Test func aNamedOperationNamesTheSpan() async throws {
            let mock = MockTransport(clock: ImmediateClock()).stubbing(.operation("getPost"), .string("{}"))
            _ = try await client(mock).request(GetPost(id: 1)).operation("getPost").responseData()
            let span = try onlySpan
            #expect(span.operationName == "getPost")
            #expect(span.attributes.get("konex.operation") == .string("getPost"))
            #expect(span.attributes.get("url.template") == .string("/posts/{id}"))
        }

        @Test func anUnvalidated5xxIsStillAFailedCallForTheSpan() async throws {
            let mock = MockTransport(clock: ImmediateClock()).stubbing(.get("/v1/x"), .status(500))
            _ = try await client(mock).request("x").responseData()
            #expect(try onlySpan.attributes.get("error.type") == .string("500"))
            #expect(try onlySpan.status?.code == .error)
        }

        @Test func theSpanIsAChildOfTheCallersContext() async throws {
            let mock = MockTransport(clock: ImmediateClock()).stubbing(.get("/v1/a"), .string("a"))
            let parent = tracer.startSpan("handler")
            try await ServiceContext.$current.withValue(parent.context) {
                _ = try await client(mock).request("a").responseData()
            }
            parent.end()
            let request = try #require(tracer.recorded.finishedSpans.first { $0.operationName == "GET" })
            #expect(request.traceID == parent.context.inMemorySpanContext?.traceID)
            #expect(request.parentSpanID == parent.context.inMemorySpanContext?.spanID)
        }

        @Test func anAdaptersTraceparentIsReplacedNeverDoubled() async throws {
            let mock = MockTransport(clock: ImmediateClock()).stubbing(.get("/v1/a"), .string("a"))
            _ = try await client(mock).request("a")
                .withAdapter {
                    var r = $0
                    r.setValue("00-bogus-bogus-01", forHTTPHeaderField: "Traceparent")
                    return r
                }
                .responseData()
            let headers = try #require(mock.requests.first?.request.allHTTPHeaderFields)
            #expect(headers.keys.filter { $0.lowercased() == "traceparent" }.count == 1)
            #expect(headers.first { $0.key.lowercased() == "traceparent" }?.value.contains("bogus") == false)
        }

        @Test func aCacheHitAndATokenRefreshAreOnTheSpan() async throws {
            let mock = MockTransport(clock: ImmediateClock())
            mock.stub(
                .get("/v1/me").header("Authorization", "Bearer fresh"),
                .string("me", headers: ["Cache-Control": "max-age=60"]))
            mock.stub(.get("/v1/me"), .status(401))
            let auth = TokenAuthenticator(credential: .init(accessToken: "stale")) { _ in .init(accessToken: "fresh") }
            let client = client(mock, interceptors: [HTTPCache(storage: .memory(capacity: 1 << 20))])
            client.adapters = [auth]
            client.retriers = [auth]
            _ = try await client.request("me").validate().responseData()
            _ = try await client.request("me").validate().responseData()
            let spans = tracer.recorded.finishedSpans
            #expect(spans.count == 2)
            #expect(spans[0].attributes.get("konex.token.refreshed") == .bool(true))
            #expect(spans[1].attributes.get("konex.cache.source") == .string("cache"))
        }

        @Test func aStreamsSpanEndsWithItsBody() async throws {
            let clock = ManualClock()
            let mock = MockTransport(clock: clock)
            mock.stub(.get("/v1/chat"), .events([ServerSentEvent(data: "a")], firstAfter: .seconds(1), every: .zero))
            let client = KonexClient(
                baseURL: api, transport: mock, clock: clock, instruments: [TracingInstrument(tracer: tracer)])
            let stream = try await client.request("chat").stream()
            #expect(tracer.recorded.activeSpans.count == 1 && tracer.recorded.finishedSpans.isEmpty)
            let reader = Task { try await stream.events().reduce(0) { count, _ in count + 1 } }
            try await clock.waitForSleepers()
            clock.advance(by: .seconds(1))
            #expect(try await reader.value == 1)
            try await WaitTimeout.wait(for: "the stream's span to end") { tracer.recorded.finishedSpans.count == 1 }
            #expect(try onlySpan.attributes.get("konex.request.kind") == .string("stream"))
        }

        @Test func aWebSocketsSpanCarriesTheHandshakeAndEndsWhenTheConnectionCloses() async throws {
            let mock = MockTransport(clock: ImmediateClock())
            mock.stubWebSocket(.get("/v1/chat"), script: [.send("hi")])
            let socket = try await client(mock).request("chat").webSocket()
            #expect(tracer.recorded.finishedSpans.isEmpty)  // open: the span is too
            #expect(mock.webSocketSessions[0].request.value(forHTTPHeaderField: "traceparent") != nil)
            await socket.close()
            #expect(try onlySpan.attributes.get("konex.request.kind") == .string("webSocket"))
            #expect(try onlySpan.attributes.get("http.response.status_code") == .int64(101))
        }

        @Test func underANoOpTracerNothingIsRecordedOrInjected() async throws {
            let mock = MockTransport(clock: ImmediateClock()).stubbing(.get("/v1/a"), .string("a"))
            let client = KonexClient(
                baseURL: api, transport: mock, instruments: [TracingInstrument(tracer: NoOpTracer())])
            _ = try await client.request("a").responseData()
            #expect(mock.requests.first?.header("traceparent") == nil)
            #expect(TracingInstrument(tracer: NoOpTracer()).requestWillStart(.init(method: .get, url: api)) == nil)
        }
    }

    /// A request with a method outside the standard ones.
    struct KonexBasicRequestPurge: KonexRequest {
        let path = "/cache"
        var method: HTTPMethod { HTTPMethod("PURGE") }
    }
#endif
