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
}
