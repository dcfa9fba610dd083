import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// What instruments hear from the pipeline: every attempt, retry and end, in order, once, whatever goes wrong.
@Suite struct RequestInstrumentTests {
    let log = RequestEventLog()

    func client(_ mock: MockTransport, clock: any Clock<Duration> = ImmediateClock()) -> KonexClient {
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        client.instruments = [log]
        return client
    }

    @Test func aRetriedRequestReportsEachAttemptTheRetryAndOneEnd() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/feed"), .status(503), times: .times(1))
        mock.stub(.get("/v1/feed"), .string("ok"))
        let client = client(mock)
        _ = try await client.request("feed").validate().retry(RetryPolicy(baseDelay: .milliseconds(10), jitter: 0))
            .responseString()
        #expect(
            log.events.map(\.description) == [
                "start GET /v1/feed (data)", "send #1", "receive #1: 503", "retry #1: 503 after 0.01 seconds",
                "send #2", "receive #2: 200", "end after 2 attempts: 200",
            ])
    }

    @Test func aTokenRefreshIsNamedOnItsRetry() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/me").header("Authorization", "Bearer fresh"), .string("me"))
        mock.stub(.get("/v1/me"), .status(401))
        let auth = TokenAuthenticator(credential: .init(accessToken: "stale")) { _ in .init(accessToken: "fresh") }
        let client = client(mock)
        client.adapters = [auth]
        client.retriers = [auth]
        #expect(try await client.request("me").validate().responseString() == "me")
        #expect(log.events.contains(.retry(attempt: 1, errorType: "401", delay: .zero, refreshesToken: true)))
        #expect(log.events.last == .end(attempts: 2, outcome: "200"))
    }

    @Test func aRequestThatCannotBeBuiltStillStartsAndEndsOnce() async throws {
        struct Injected: KonexRequest {
            let path = "/x"
            let headers: [String: String]? = ["X-Note": "a\r\nSet-Cookie: b"]
        }
        let client = client(MockTransport(clock: ImmediateClock()))
        await #expect(throws: KonexError.self) { _ = try await client.request(Injected()).responseData() }
        #expect(log.events.count == 2)
        #expect(log.events.last == .end(attempts: 0, outcome: "invalidRequest"))
    }

    @Test func aFailingAdapterEndsTheRequestWithoutASend() async throws {
        struct NoToken: Error {}
        let client = client(MockTransport(clock: ImmediateClock()).stubbing(.get("/v1/me"), .string("me")))
        await #expect(throws: KonexError.self) {
            _ = try await client.request("me").withAdapter { _ in throw NoToken() }.responseData()
        }
        #expect(log.events.map(\.description) == ["start GET /v1/me (data)", "end after 1 attempt: adaptation"])
    }

    @Test func cancellationMidTransferEndsOnceAsCancelled() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/v1/slow"), .string("late").delayed(by: .seconds(5)))
        let client = client(mock, clock: clock)
        let task = Task { try await client.request("slow").responseData() }
        try await clock.waitForSleepers()
        task.cancel()
        _ = await task.result
        let ends = log.events.filter { if case .end = $0 { true } else { false } }
        #expect(ends == [.end(attempts: 1, outcome: "cancelled")])
    }

    @Test func aStreamEndsWhenItsBodyEndsNotWhenItsHeadArrives() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(
            .get("/v1/chat"),
            .events(
                [ServerSentEvent(data: "a"), ServerSentEvent(data: "b")], firstAfter: .seconds(1), every: .seconds(1)))
        let client = client(mock, clock: clock)
        let stream = try await client.request("chat").validate().stream()
        #expect(!log.events.contains { if case .end = $0 { true } else { false } })
        let reader = Task { try await stream.events().reduce(into: 0) { count, _ in count += 1 } }
        for _ in 0..<2 {
            try await clock.waitForSleepers()
            clock.advance(by: .seconds(1))
        }
        #expect(try await reader.value == 2)
        try await WaitTimeout.wait(for: "the stream's end") { log.events.last == .end(attempts: 1, outcome: "200") }
        #expect(log.events.first == .start(method: .get, path: "/v1/chat", kind: .stream))
    }

    @Test func aStreamThatTimesOutEndsWithItsError() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/v1/chat"), .events([ServerSentEvent(data: "a")], firstAfter: .seconds(60), every: .zero))
        let client = client(mock, clock: clock)
        let stream = try await client.request("chat").stream(idleTimeout: .seconds(1))
        try await clock.waitForSleepers(2)
        clock.advance(by: .seconds(1))
        await #expect(throws: KonexError.self) { for try await _ in stream.chunks {} }
        try await WaitTimeout.wait(for: "the stream's end") {
            log.events.last == .end(attempts: 1, outcome: "transport")
        }
    }

    @Test func anInstrumentInjectsAfterAdaptersReplacingTheirValueAndPluginsSeeIt() async throws {
        struct Injector: RequestInstrument, RequestRecorder {
            func requestWillStart(_ request: InstrumentedRequest) -> (any RequestRecorder)? { self }
            func attemptWillSend(_ request: inout TransportRequest, attempt: Int) {
                request.setValue("00-\(attempt)", forHTTPHeaderField: "traceparent")
            }
        }
        let seen = Lock<[String]>([])
        struct Spy: KonexPlugin {
            let seen: Lock<[String]>
            func didSendRequest(_ request: TransportRequest) async {
                seen.withLock { $0.append(request.value(forHTTPHeaderField: "TraceParent") ?? "-") }
            }
        }
        let mock = MockTransport(clock: ImmediateClock()).stubbing(.get("/v1/a"), .string("a"))
        let client = KonexClient.mocked(mock, baseURL: api)
        client.instruments = [Injector()]
        _ = try await client.request("a").withPlugin(Spy(seen: seen))
            .withAdapter {
                var r = $0
                r.setValue("bogus", forHTTPHeaderField: "TRACEPARENT")
                return r
            }
            .responseData()
        #expect(seen.value == ["00-1"])
        let sent = try #require(mock.requests.first?.request)
        #expect(sent.allHTTPHeaderFields?.filter { $0.key.lowercased() == "traceparent" }.count == 1)
        #expect(sent.value(forHTTPHeaderField: "traceparent") == "00-1")
    }

    @Test func coalescingStillSharesOneCallWhenEachCallerCarriesItsOwnTraceContext() async throws {
        struct Injector: RequestInstrument, RequestRecorder {
            let counter = Lock(0)
            func requestWillStart(_ request: InstrumentedRequest) -> (any RequestRecorder)? { self }
            func attemptWillSend(_ request: inout TransportRequest, attempt: Int) {
                let id = counter.withLock {
                    $0 += 1
                    return $0
                }
                request.setValue("00-\(id)", forHTTPHeaderField: "traceparent")
                request.setValue("k=\(id)", forHTTPHeaderField: "tracestate")
            }
        }
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/v1/feed"), .string("feed").delayed(by: .seconds(1)))
        let coalescer = RequestCoalescer()
        let client = KonexClient(
            baseURL: api, transport: mock, interceptors: [coalescer], instruments: [Injector(), log])
        let tasks = (0..<10).map { _ in Task { try await client.request("feed").responseString() } }
        try await WaitTimeout.wait(for: "10 callers") { coalescer.waiterCount == 10 }
        try await clock.waitForSleepers()
        clock.advance(by: .seconds(1))
        for task in tasks { #expect(try await task.value == "feed") }
        #expect(mock.requestCount == 1)
        #expect(log.events.filter { $0 == .end(attempts: 1, outcome: "200") }.count == 10)
    }

    @Test func anInstrumentThatDeclinesARequestIsNotCalledAgainForIt() async throws {
        struct Declining: RequestInstrument {
            let asked = Lock(0)
            func requestWillStart(_ request: InstrumentedRequest) -> (any RequestRecorder)? {
                asked.withLock { $0 += 1 }
                return nil
            }
        }
        let declining = Declining()
        let mock = MockTransport(clock: ImmediateClock()).stubbing(.get("/v1/a"), .string("a"))
        let client = KonexClient.mocked(mock, baseURL: api)
        client.instruments = [declining]
        for _ in 0..<3 { _ = try await client.request("a").responseData() }
        #expect(declining.asked.value == 3)
    }

    @Test(arguments: [
        (KonexError(stage: .cancelled, message: ""), "cancelled"),
        (KonexError(stage: .decoding, message: ""), "decoding"),
        (KonexError(stage: .queueFull, message: ""), "queueFull"),
        (KonexError(stage: .transport, message: "", underlyingError: URLError(.timedOut)), "timeout"),
        (
            KonexError(stage: .transport, message: "", underlyingError: URLError(.cannotConnectToHost)),
            "cannotConnectToHost"
        ),
    ])
    func errorTypesAreShortAndBounded(error: KonexError, expected: String) {
        #expect(error.errorType == expected)
    }

    @Test func aRejectedStatusIsItsOwnErrorType() {
        let response = ResponseHead(statusCode: 429, url: api)
        #expect(KonexError(stage: .validation, message: "", response: response).errorType == "429")
    }
}
