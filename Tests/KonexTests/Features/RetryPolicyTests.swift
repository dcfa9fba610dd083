import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

@Suite struct RetryPolicyTests {
    /// A policy without jitter, so waits are exact.
    func policy(_ attempts: Int = 4, deadline: Duration? = .seconds(60), nonIdempotent: Bool = false) -> RetryPolicy {
        RetryPolicy(
            maximumAttempts: attempts, deadline: deadline, baseDelay: .seconds(1), jitter: 0,
            retryingNonIdempotent: nonIdempotent, random: { 0.5 },
            now: { Date(timeIntervalSince1970: 1_000_000) })
    }

    @Test func retriesStatusesWithExponentialBackoffOnTheClock() async throws {
        let clock = ImmediateClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/v1/x"), .status(503), .status(502), .string("ok"))
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        let response = try await client.request("x").validate().retry(policy()).response()
        #expect(response.timing.attempt == 3)
        #expect(mock.requestCount == 3)
        #expect(clock.now.offset == .seconds(3))  // 1 s, then 2 s
    }

    @Test func backoffIsCappedAndJittered() {
        let capped = RetryPolicy(baseDelay: .seconds(1), maximumDelay: .seconds(5), jitter: 0, random: { 0 })
        #expect(capped.backoff(afterAttempt: 1) == .seconds(1))
        #expect(capped.backoff(afterAttempt: 3) == .seconds(4))
        #expect(capped.backoff(afterAttempt: 10) == .seconds(5))
        let low = RetryPolicy(baseDelay: .seconds(10), jitter: 0.2, random: { 0 })
        let high = RetryPolicy(baseDelay: .seconds(10), jitter: 0.2, random: { 0.999999 })
        #expect(low.backoff(afterAttempt: 1) == .seconds(8))
        #expect(high.backoff(afterAttempt: 1) >= .milliseconds(11_999))
    }

    @Test func stopsAtMaximumAttemptsWithTheLastError() async throws {
        let (client, mock) = makeClient { $0.stub(.get("/v1/x"), .status(500)) }
        let error = try await requireThrows(KonexError.self) {
            try await client.request("x").validate().retry(policy(3)).response()
        }
        #expect(mock.requestCount == 3)
        #expect(error.attempt == 3)
        #expect(error.description.contains("(attempt 3)"))
    }

    @Test func retriesTransportFailuresButNotOthers() async throws {
        let (client, mock) = makeClient {
            $0.stub(.get("/v1/lost"), .fault(.connectionLost), .string("ok"))
            $0.stub(.get("/v1/bad"), .status(400))
        }
        #expect(try await client.request("lost").retry(policy()).responseString() == "ok")
        _ = try? await client.request("bad").validate().retry(policy()).response()
        #expect(mock.requests(matching: .get("/v1/bad")).count == 1)
    }

    @Test func nonIdempotentMethodsNeedOptIn() async throws {
        struct Create: KonexRequest {
            let path = "/x"
            let method: HTTPMethod = .post
        }
        let (client, mock) = makeClient { $0.stub(.post("/v1/x"), .status(503), .status(201)) }
        _ = try? await client.request(Create()).validate().retry(policy()).response()
        #expect(mock.requestCount == 1)
        #expect(
            try await client.request(Create()).validate().retry(policy(nonIdempotent: true)).response().statusCode
                == 201)
    }

    @Test(arguments: [
        ("5", Duration.seconds(5)),
        ("Mon, 12 Jan 1970 13:46:50 GMT", .seconds(10)),  // now is 1,000,000 s after the epoch
        ("Monday, 12-Jan-70 13:46:50 GMT", .seconds(10)),
        ("Mon Jan 12 13:46:50 1970", .seconds(10)),
        ("Thu, 01 Jan 1970 00:00:00 GMT", .zero),
    ])
    func retryAfterIsParsedInBothForms(header: String, expected: Duration) {
        #expect(RetryAfter.parse(header, now: Date(timeIntervalSince1970: 1_000_000)) == expected)
    }

    @Test(arguments: ["", "soon", "-5", "1.5", "Mon, 99 Foo 1970"])
    func malformedRetryAfterIsIgnored(header: String) {
        #expect(RetryAfter.parse(header, now: Date()) == nil)
    }

    @Test func retryAfterOverridesBackoffAndIsCapped() async throws {
        let clock = ImmediateClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/v1/x"), .status(429, headers: ["Retry-After": "7"]), .string("ok"))
        mock.stub(.get("/v1/far"), .status(503, headers: ["Retry-After": "3600"]))
        mock.stub(.get("/v1/junk"), .status(503, headers: ["Retry-After": "later"]), .string("ok"))
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        _ = try await client.request("x").validate().retry(policy()).response()
        #expect(clock.now.offset == .seconds(7))
        _ = try? await client.request("far").validate().retry(policy()).response()
        #expect(mock.requests(matching: .get("/v1/far")).count == 1)
        _ = try await client.request("junk").validate().retry(policy()).response()
        #expect(clock.now.offset == .seconds(8))  // malformed header: plain backoff of 1 s
    }

    @Test func deadlineStopsRetriesThatWouldOverrun() async throws {
        let clock = ImmediateClock()
        let mock = MockTransport(clock: clock).stubbing(.get("/v1/x"), .status(503))
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        _ = try? await client.request("x").validate().retry(policy(10, deadline: .milliseconds(2_500))).response()
        #expect(mock.requestCount == 2)  // waits 1 s; the next wait of 2 s would pass the deadline
    }

    @Test func neverRetriesAfterCancellation() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock).stubbing(.get("/v1/x"), .status(503))
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        let task = Task { try await client.request("x").validate().retry(policy()).response() }
        try await clock.waitForSleepers()
        task.cancel()
        let error = try await requireThrows(KonexError.self) { try await task.value }
        #expect(error.stage == .cancelled)
        #expect(mock.requestCount == 1)
    }

    @Test func everyAttemptIsVisibleToPlugins() async throws {
        let trace = Trace()
        let (client, _) = makeClient { $0.stub(.get("/v1/x"), .status(503), .string("ok")) }
        _ = try await client.request("x").withPlugin(Tracer(name: "p", trace: trace)).validate().retry(policy())
            .response()
        #expect(trace.all == ["send:p", "receive:p", "send:p", "receive:p"])
    }

    @Test func clientLevelRetriersApplyToEveryRequest() async throws {
        let (client, _) = makeClient { $0.stub(.get("/v1/x"), .status(503), .string("ok")) }
        client.retriers = [policy()]
        #expect(try await client.request("x").validate().responseString() == "ok")
    }
}
