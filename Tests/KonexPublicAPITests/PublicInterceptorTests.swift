import Foundation
import Konex
import KonexTesting
import Testing

/// A concurrency limit and a cache written against Konex's public API alone (no `@testable`) do what the shipped
/// ones do: the interceptor's reply hides nothing they need.
@Suite struct PublicInterceptorTests {
    let api = URL(string: "https://api.test/v1")!

    @Test func aGateWrittenOutsideKonexBoundsRequestsAndHoldsAStreamUntilItEnds() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(
            .get("/v1/feed"),
            .chunks(
                [.text("data: 1\n\n"), MockChunk(Data("data: 2\n\n".utf8), after: .seconds(3_600))],
                contentType: "text/event-stream"))
        mock.stub(.get("/v1/posts"), .json([["id": 1]]))
        let gate = Gate(maximum: 1)
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        client.interceptors = [gate]

        let stream = try await client.request("feed").stream()
        #expect(gate.inFlight == 1)  // the head is here, the body is not over: the slot is held
        let waiting = Task { try await client.request("posts").responseData() }
        try await eventually("the second request to wait for the slot") { gate.waiting == 1 }
        #expect(mock.requestCount == 1)
        stream.cancel()  // the body ends: whenEnded gives the slot to the waiting request
        _ = try await waiting.value
        #expect(mock.requestCount == 2)
        try await eventually("every slot back") { gate.inFlight == 0 }
    }

    @Test func aGateWrittenOutsideKonexNeverLetsMoreThanItsMaximumThrough() async throws {
        let mock = MockTransport(clock: ContinuousClock())
        mock.stub(.get("/v1/posts"), .json([["id": 1]]).delayed(by: .milliseconds(5)))
        let gate = Gate(maximum: 3)
        let client = KonexClient.mocked(mock, baseURL: api)
        client.interceptors = [gate]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<40 { group.addTask { _ = try await client.request("posts").responseData() } }
            try await group.waitForAll()
        }
        #expect(mock.requestCount == 40)
        #expect(gate.mostInFlight == 3)
        #expect(gate.inFlight == 0)
    }

    @Test func aCacheWrittenOutsideKonexAnswersTheSecondRequestAndLetsStreamsPass() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/posts"), .json([["id": 1], ["id": 2]]))
        let cache = TinyCache()
        let client = KonexClient.mocked(mock, baseURL: api)
        client.interceptors = [cache]

        let first = try await client.request("posts").response()
        let second = try await client.request("posts").response()
        #expect(first.source == .network)
        #expect(second.source == .cache)
        #expect(second.value == first.value)
        #expect(mock.requestCount == 1)

        // A stream asks for its body as it arrives: the cache neither answers it nor stores it.
        let stream = try await client.request("posts").stream()
        var streamed = Data()
        for try await chunk in stream.chunks { streamed.append(chunk) }
        #expect(streamed == first.value)
        #expect(mock.requestCount == 2)
        #expect(cache.count == 1)
    }

    @Test func aCannedReplyReachesEveryTerminalWhole() async throws {
        struct Canned: TransportInterceptor {
            func intercept(_ request: TransportRequest, next: TransportNext) async throws -> TransportReply {
                let head = ResponseHead(statusCode: 200, headerFields: ["Content-Type": "text/plain"], url: request.url)
                return TransportReply(response: head, body: ResponseBody(Data("canned".utf8)))
            }
        }
        let client = KonexClient.mocked(MockTransport(clock: ImmediateClock()), baseURL: api)
        client.interceptors = [Canned()]
        #expect(try await client.request("anything").responseString() == "canned")
        var streamed = Data()
        for try await chunk in try await client.request("anything").stream().chunks { streamed.append(chunk) }
        #expect(streamed == Data("canned".utf8))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("konex-canned-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        _ = try await client.request("anything").download(to: file)
        #expect(try Data(contentsOf: file) == Data("canned".utf8))
    }

    /// Polls `condition` until it holds, failing after 30 s (far above any stall of a loaded machine).
    func eventually(_ what: String, _ condition: @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while !condition() {
            if ContinuousClock.now > deadline {
                Issue.record("timed out waiting for \(what)")
                return
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}
