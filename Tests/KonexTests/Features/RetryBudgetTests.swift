import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// A retry budget keeps a failing dependency from being hit again by every caller: retries stay within a share of
/// requests per host over a sliding window, and requests succeed again as soon as the server does.
@Suite struct RetryBudgetTests {
    /// Counts what reaches the transport.
    func failingServer() -> MockTransport {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(
            MockEndpoint(.get("/v1/posts"), responses: [.json(["error": "down"], status: 503)])
                .inScenario("server", whenState: "started"))
        mock.stub(
            MockEndpoint(.get("/v1/posts"), responses: [.json(["ok": true])]).inScenario("server", whenState: "up"))
        return mock
    }

    @Test func aThousandRequestsWithThreeRetriesEachMakeAtMost1200Attempts() async throws {
        let mock = failingServer()
        let window = ManualClock()  // time stands still: every request is in the window
        let client = KonexClient.mocked(mock, baseURL: api)
        client.retriers = [RetryPolicy(maximumAttempts: 4, budget: RetryBudget(clock: window))]
        var spent = 0
        for _ in 0..<1_000 {
            let error = try await requireThrows(KonexError.self) {
                try await client.request("posts").validate().responseData()
            }
            #expect(error.statusCode == 503)
            if error.message.contains("retry budget for https://api.test is spent") { spent += 1 }
        }
        #expect(mock.requestCount <= 1_200, "\(mock.requestCount) attempts")
        #expect(mock.requestCount >= 1_150, "\(mock.requestCount) attempts: the budget lets its 20 % through")
        #expect(spent > 900)

        // The server recovers: the next request succeeds at once, budget or not.
        mock.setState("up", ofScenario: "server")
        let before = mock.requestCount
        _ = try await client.request("posts").validate().responseData()
        #expect(mock.requestCount == before + 1)
    }

    @Test func withoutABudgetEveryRequestRetriesFully() async throws {
        let mock = failingServer()
        let client = KonexClient.mocked(mock, baseURL: api)
        client.retriers = [RetryPolicy(maximumAttempts: 4, budget: nil)]
        for _ in 0..<100 { _ = try? await client.request("posts").validate().responseData() }
        #expect(mock.requestCount == 400)
    }

    @Test func aQuietClientStillRetriesItsFewFailures() async throws {
        let mock = failingServer()
        let client = KonexClient.mocked(mock, baseURL: api)
        client.retriers = [RetryPolicy(maximumAttempts: 3, budget: RetryBudget(clock: ManualClock()))]
        for _ in 0..<5 { _ = try? await client.request("posts").validate().responseData() }
        #expect(mock.requestCount == 15)  // 10 retries: the minimum, although 20 % of 5 is 1
    }

    @Test func theWindowSlidesAndTheBudgetComesBack() async throws {
        let window = ManualClock()
        let budget = RetryBudget(ratio: 0.2, minimumRetries: 0, window: .seconds(10), clock: window)
        for _ in 0..<10 { budget.recordRequest(to: "https://a") }
        #expect(budget.withdraw(for: "https://a") == nil)
        #expect(budget.withdraw(for: "https://a") == nil)
        #expect(budget.withdraw(for: "https://a")! == (2, 10))  // 20 % of 10 spent
        #expect(budget.withdraw(for: "https://b")! == (0, 0))  // another host has its own (empty) budget
        window.advance(by: .seconds(5))
        #expect(budget.withdraw(for: "https://a") != nil)  // still within the window
        window.advance(by: .seconds(6))
        for _ in 0..<5 { budget.recordRequest(to: "https://a") }
        #expect(budget.withdraw(for: "https://a") == nil)  // the old requests and retries fell out
        #expect(budget.withdraw(for: "https://a")! == (1, 5))
    }

    @Test func concurrentRequestsStayWithinTheBudget() async throws {
        let mock = failingServer()
        let client = KonexClient.mocked(mock, baseURL: api)
        client.retriers = [RetryPolicy(maximumAttempts: 4, budget: RetryBudget(clock: ManualClock()))]
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<500 {
                group.addTask { _ = try? await client.request("posts").validate().responseData() }
            }
        }
        // Retries are taken against the requests counted so far: in a burst a few may run ahead of the 20 %.
        #expect(mock.requestCount <= 500 + 100 + 10, "\(mock.requestCount) attempts")
    }

    /// The docs' own per-call form: each call makes its own policy, and the client's budget still bounds them all.
    @Test func policiesMadePerCallShareTheClientsBudget() async throws {
        let mock = failingServer()
        let client = KonexClient.mocked(mock, baseURL: api)
        for _ in 0..<100 {
            _ = try? await client.request("posts").validate().retry(RetryPolicy(maximumAttempts: 3, baseDelay: .zero))
                .responseData()
        }
        // 100 requests, and retries within 20 % of them: about 120 attempts, not 300.
        #expect(mock.requestCount <= 125, "\(mock.requestCount) attempts")
        // Another client has a budget of its own: it still retries its first failures.
        let other = KonexClient.mocked(mock, baseURL: api)
        let before = mock.requestCount
        _ = try? await other.request("posts").validate().retry(RetryPolicy(maximumAttempts: 3, baseDelay: .zero))
            .responseData()
        #expect(mock.requestCount == before + 3)
    }

    /// The client's budget keeps its window on the client's clock, as the policies' waits do: on a test clock a test
    /// of the budget reads the same however long a loaded machine takes to run it (under the thread sanitizer two of
    /// these tests once took 14 s, their early retries left the real 10 s window, and the counts came out one off).
    @Test func theClientsBudgetKeepsTimeOnTheClientsClock() async throws {
        let mock = failingServer()
        let clock = ImmediateClock()
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        client.retriers = [RetryPolicy(maximumAttempts: 3, baseDelay: .zero)]
        for _ in 0..<10 { _ = try? await client.request("posts").validate().responseData() }
        // 10 requests: the minimum of 10 retries is spent.
        #expect(mock.requestCount == 20)
        _ = try? await client.request("posts").validate().responseData()
        #expect(mock.requestCount == 21, "spent: no retry")
        // The client's clock moves past the window (no real time passes): the old retries are out of it.
        try await clock.sleep(for: .seconds(11))
        _ = try? await client.request("posts").validate().responseData()
        #expect(mock.requestCount == 24, "a new window: the request and its two retries")
    }

    /// A retrier of the caller's that asks a `RetryPolicy` inside and forwards nothing else.
    struct Wrapping: RequestRetrier {
        let inner: RetryPolicy
        func shouldRetry(_ request: TransportRequest, dueTo error: KonexError, attempt: Int, elapsed: Duration) async
            -> RetryDecision
        {
            await inner.shouldRetry(request, dueTo: error, attempt: attempt, elapsed: elapsed)
        }
    }

    @Test func aWrappedPolicyIsBoundedByTheRequestsSentNotCappedAtTheMinimum() async throws {
        let mock = failingServer()
        let client = KonexClient.mocked(mock, baseURL: api)
        client.retriers = [Wrapping(inner: RetryPolicy(maximumAttempts: 3, baseDelay: .zero))]
        for _ in 0..<100 { _ = try? await client.request("posts").validate().responseData() }
        // Had the budget heard of no request, it would have allowed its minimum: 10 retries, 110 attempts.
        #expect(mock.requestCount > 115 && mock.requestCount <= 125, "\(mock.requestCount) attempts")
    }

    @Test func aWrappedBudgetOfYourOwnSaysWhyItAllowsOnlyItsMinimum() async throws {
        let mock = failingServer()
        let client = KonexClient.mocked(mock, baseURL: api)
        client.retriers = [Wrapping(inner: RetryPolicy(maximumAttempts: 3, budget: RetryBudget(clock: ManualClock())))]
        var last: KonexError?
        for _ in 0..<20 {
            do { _ = try await client.request("posts").validate().responseData() } catch { last = error as? KonexError }
        }
        #expect(last?.message.contains("a retrier that wraps RetryPolicy must forward requestWillStart") == true)
    }

    @Test func answersFromTheCacheAreNotRequestsSent() async throws {
        let mock = failingServer()
        mock.stub(.get("/v1/cached"), .json(["ok": true], headers: ["Cache-Control": "max-age=600"]))
        let client = KonexClient.mocked(mock, baseURL: api)
        client.interceptors = [HTTPCache(storage: .memory(capacity: 1 << 20), cookieStorage: nil)]
        client.retriers = [RetryPolicy(maximumAttempts: 3, baseDelay: .zero)]
        for _ in 0..<200 { _ = try await client.request("cached").responseData() }
        #expect(mock.requestCount == 1)
        for _ in 0..<20 { _ = try? await client.request("posts").validate().responseData() }
        // 21 requests sent: 20 % is 4, so the minimum of 10 retries applies. Counting the 199 cache hits would have
        // allowed 44, and every one of the 20 failures would have retried twice.
        #expect(mock.requestCount == 1 + 20 + 10, "\(mock.requestCount) attempts")
    }

    @Test(arguments: [
        ("https://API.test:443/a", "https://api.test"), ("HTTP://Api.Test:80/b", "http://api.test"),
        ("https://api.test:8443/c", "https://api.test:8443"), ("wss://api.test:443/d", "wss://api.test"),
    ])
    func oneHostIsOneOriginWhateverItsSpelling(url: String, origin: String) throws {
        #expect(TransportRequest(URLRequest(url: URL(string: url)!)).origin == origin)
    }

    @Test func extremeSettingsAreClampedNotTrappedOn() async throws {
        for budget in [
            RetryBudget(ratio: .infinity, window: .zero, clock: ManualClock()),
            RetryBudget(ratio: -1, minimumRetries: -5, window: .nanoseconds(1)),
            RetryBudget(ratio: .nan, window: .seconds(Int64.max)),
        ] {
            budget.recordRequest(to: "https://a")
            _ = budget.withdraw(for: "https://a")
            _ = budget.withdraw(for: "https://b")
            #expect(budget.ratio >= 0 && budget.minimumRetries >= 0 && budget.window > .zero)
        }
        let mock = failingServer()
        let client = KonexClient.mocked(mock, baseURL: api)
        client.retriers = [RetryPolicy(budget: RetryBudget(ratio: .infinity, minimumRetries: 0, clock: ManualClock()))]
        _ = try? await client.request("posts").validate().responseData()
        #expect(mock.requestCount == 3)  // an infinite share of one request
    }
}
