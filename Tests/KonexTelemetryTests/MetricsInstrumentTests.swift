#if Metrics
    import Foundation
    @testable import KonexMetrics
    import KonexTesting
    import MetricsTestKit
    import TestSupport
    import Testing

    @testable import Konex

    /// `MetricsInstrument` with swift-metrics' TestMetrics: durations, in-flight requests, retries, cache, coalescing
    /// and queue time, with labels that never hold a path.
    @Suite struct MetricsInstrumentTests {
        let metrics = TestMetrics()
        let api = URL(string: "https://api.test/v1")!

        func client(
            _ mock: MockTransport, clock: any Clock<Duration> = ImmediateClock(),
            interceptors: [any TransportInterceptor] = []
        ) -> KonexClient {
            KonexClient(
                baseURL: api, transport: mock, clock: clock, interceptors: interceptors,
                instruments: [MetricsInstrument(factory: metrics)])
        }

        struct GetUser: KonexRequest {
            let id: Int
            var path: String { "/users/\(id)" }
            var urlTemplate: String? { "/users/{id}" }
        }

        /// Every label value of every metric recorded.
        var labelValues: Set<String> {
            let keys =
                metrics.timers.map(\.dimensions) + metrics.counters.map(\.dimensions) + metrics.meters.map(\.dimensions)
            return Set(keys.flatMap { $0.map(\.1) })
        }

        @Test func aThousandUsersMakeOneLabelSetNotAThousand() async throws {
            let mock = MockTransport(clock: ImmediateClock())
            mock.stub(.anything, .string("{}"))
            let client = client(mock)
            for id in 0..<1000 { _ = try await client.request(GetUser(id: id)).responseData() }
            for id in 0..<50 { _ = try await client.request("orders/\(id)").responseData() }
            let durations = metrics.timers(label: "http.client.request.duration")
            #expect(durations.count == 2)  // one for the route, one for the requests that name none
            #expect(durations.map(\.values.count).sorted() == [50, 1000])
            #expect(!labelValues.contains { $0.contains("/users/1") || $0.contains("orders") })
            let routed = try metrics.expectTimer(
                "http.client.request.duration",
                [
                    ("http.request.method", "GET"), ("server.address", "api.test"),
                    ("http.response.status_code", "200"),
                    ("url.template", "/users/{id}"),
                ])
            #expect(routed.values.count == 1000)
        }

        /// Trust pass 3, item 7: a service that calls thousands of hosts keeps a bounded number of handles, and a
        /// request whose handle was forgotten while it ran still lowers the meter it raised.
        @Test func handlesPerHostAreBounded() async throws {
            let mock = MockTransport(clock: ImmediateClock())
            mock.stub(.anything, .string("{}"))
            let instrument = MetricsInstrument(factory: metrics, handleLimit: 16)
            let client = KonexClient(transport: mock, instruments: [instrument])
            for host in 0..<500 {
                _ = try await client.request(URL(string: "https://host\(host).test/x")!).responseData()
                #expect(instrument.cachedHandleCount <= 32)
            }
            // Each host's meter went up and down once: none is left raised.
            let meters = metrics.meters.filter { $0.label == "http.client.active_requests" }
            #expect(meters.count >= 500)
            #expect(meters.allSatisfy { $0.lastValue == 0 }, "a meter left raised")
            // A host in use all along keeps its handle across the turnovers.
            let hot = URL(string: "https://hot.test/x")!
            for round in 0..<100 {
                _ = try await client.request(hot).responseData()
                _ = try await client.request(URL(string: "https://cold\(round).test/x")!).responseData()
            }
            let hotDurations = metrics.timers.filter {
                $0.label == "http.client.request.duration"
                    && $0.dimensions.contains { $0 == ("server.address", "hot.test") }
            }
            #expect(hotDurations.map(\.values.count).reduce(0, +) == 100)
        }

        @Test func inFlightRequestsRiseAndFall() async throws {
            let clock = ManualClock()
            let mock = MockTransport(clock: clock)
            mock.stub(.get("/v1/slow"), .string("ok").delayed(by: .seconds(1)))
            let client = client(mock, clock: clock)
            let tasks = (0..<5).map { _ in Task { try await client.request("slow").responseData() } }
            try await clock.waitForSleepers(5)
            let meter = try metrics.expectMeter(
                "http.client.active_requests", [("http.request.method", "GET"), ("server.address", "api.test")])
            #expect(meter.lastValue == 5)
            clock.advance(by: .seconds(1))
            for task in tasks { _ = try await task.value }
            #expect(meter.lastValue == 0)
        }

        @Test func retriesAreCountedByReasonAndATokenRefreshByItsOwn() async throws {
            let mock = MockTransport(clock: ImmediateClock())
            mock.stub(.get("/v1/feed"), .status(503), times: .times(2))
            mock.stub(.get("/v1/feed"), .string("ok"))
            mock.stub(.get("/v1/me").header("Authorization", "Bearer fresh"), .string("me"))
            mock.stub(.get("/v1/me"), .status(401))
            let auth = TokenAuthenticator(credential: .init(accessToken: "stale")) { _ in .init(accessToken: "fresh") }
            let client = client(mock)
            _ = try await client.request("feed").validate().retry(RetryPolicy(baseDelay: .zero, jitter: 0))
                .responseData()
            _ = try await client.request("me").withAdapter(auth).retry(auth).validate().responseData()
            #expect(try metrics.expectCounter("konex.retries", [("reason", "503")]).totalValue == 2)
            #expect(try metrics.expectCounter("konex.retries", [("reason", "token_refresh")]).totalValue == 1)
        }

        @Test func failuresAreLabelledByErrorType() async throws {
            let mock = MockTransport(clock: ImmediateClock())
            mock.stub(.get("/v1/gone"), .status(410))
            mock.stub(.get("/v1/down"), .fault(.connectionRefused))
            let client = client(mock)
            _ = try? await client.request("gone").validate().responseData()
            _ = try? await client.request("down").responseData()
            let types = metrics.timers(label: "http.client.request.duration")
                .compactMap { $0.dimensions.first { $0.0 == "error.type" }?.1 }
            #expect(Set(types) == ["410", "cannotConnectToHost"])
        }

        @Test func cacheHitsCoalescedCallersAndQueueTimeAreCounted() async throws {
            let clock = ManualClock()
            let mock = MockTransport(clock: clock)
            mock.stub(
                .get("/v1/feed"), .string("feed", headers: ["Cache-Control": "max-age=60"]).delayed(by: .seconds(1)))
            let coalescer = RequestCoalescer()
            let client = client(
                mock, clock: clock,
                interceptors: [HTTPCache(storage: .memory(capacity: 1 << 20)), coalescer, ConcurrencyLimit(perHost: 1)])
            let tasks = (0..<3).map { _ in Task { try await client.request("feed").responseData() } }
            try await WaitTimeout.wait(for: "3 callers") { coalescer.waiterCount == 3 }
            try await clock.waitForSleepers()
            clock.advance(by: .seconds(1))
            for task in tasks { _ = try await task.value }
            _ = try await client.request("feed").responseData()  // fresh in the cache now
            #expect(
                try metrics.expectCounter("konex.cache.responses", [("konex.cache.source", "cache")]).totalValue == 1)
            #expect(
                try metrics.expectCounter(
                    "konex.coalesced", [("http.request.method", "GET"), ("server.address", "api.test")]
                )
                .totalValue == 3)
        }

        @Test func aWebSocketsLifetimeFromHandshakeToCloseIsItsOwnMetric() async throws {
            let mock = MockTransport(clock: ImmediateClock())
            mock.stubWebSocket(.get("/v1/chat"), script: [.send("hi"), .close(.normalClosure)])
            let socket = try await client(mock).request("chat").webSocket()
            #expect(metrics.timers(label: "konex.websocket.duration").isEmpty)  // open: not over yet
            for try await _ in socket.messages {}
            let timer = try #require(metrics.timers(label: "konex.websocket.duration").first)
            #expect(timer.values.count == 1)
            #expect(timer.dimensions.contains { $0 == ("http.response.status_code", "101") })
            #expect(metrics.timers(label: "http.client.request.duration").isEmpty)
        }

        @Test func aStreamsLifetimeIsItsOwnMetric() async throws {
            let clock = ManualClock()
            let mock = MockTransport(clock: clock)
            mock.stub(.get("/v1/chat"), .events([ServerSentEvent(data: "a")], firstAfter: .seconds(1), every: .zero))
            let client = client(mock, clock: clock)
            let stream = try await client.request("chat").stream()
            let reader = Task { try await stream.events().reduce(0) { count, _ in count + 1 } }
            try await clock.waitForSleepers()
            clock.advance(by: .seconds(1))
            _ = try await reader.value
            try await WaitTimeout.wait(for: "the stream's end") {
                !metrics.timers(label: "konex.stream.duration").isEmpty
            }
            #expect(metrics.timers(label: "http.client.request.duration").isEmpty)
        }
    }
#endif
