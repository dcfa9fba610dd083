import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// `totalTimeout(_:)`: the pipeline's own bound on an attempt's whole exchange, the same over every transport,
/// measured on the client's clock (a ManualClock here, so nothing waits for real).
@Suite struct TotalTimeoutTests {
    let api = URL(string: "https://api.test")!

    @Test func anAnswerSlowerThanTheTotalTimeoutFailsAsATimeoutNamingTheLimit() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/slow"), MockResponse.json(["ok": true]).delayed(by: .seconds(30)))
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        let task = Task { try await client.request("slow").totalTimeout(.seconds(5)).responseData() }
        try await clock.waitForSleepers(2)  // the mock's answer and the limit
        clock.advance(by: .seconds(5))
        let error = try await requireThrows(KonexError.self) { try await task.value }
        #expect(error.stage == .transport)
        #expect(error.isTimeout)
        #expect(error.transportFailure == .timedOut)
        #expect(error.message.contains("total timeout of 5"), "\(error.message)")
        let failure = try #require(error.underlyingError as? TransportFailure)
        #expect((failure.underlying as? TotalTimeoutExceeded)?.limit == .seconds(5))
        #expect(error.url?.path == "/slow")
        #expect(clock.sleeperCount == 0, "the cancelled answer left no sleeper behind")
    }

    @Test func aFastAnswerIsUntouchedAndTheLimitStopsWaiting() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/fast"), .json(["ok": true]))
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        let data = try await client.request("fast").totalTimeout(.seconds(5)).validate().responseData()
        #expect(String(decoding: data, as: UTF8.self).contains("ok"))
        #expect(clock.sleeperCount == 0)
    }

    @Test func theClientsTotalTimeoutAppliesAndARetryPolicyTriesAgain() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/flaky"), MockResponse.json(["try": 1]).delayed(by: .seconds(60)), .json(["try": 2]))
        let client = KonexClient(baseURL: api, transport: mock, totalTimeout: .seconds(2), clock: clock)
        // No delay before the retry: a sleeper registered after an advance would wait for one that never comes.
        let task = Task {
            try await client.request("flaky").retry(RetryPolicy(baseDelay: .zero, jitter: 0)).responseJSON()
        }
        try await clock.waitForSleepers(2)
        clock.advance(by: .seconds(2))  // the first attempt ends at the client's limit; the second answers at once
        let json = try await task.value
        #expect(json["try"] == 2)
        #expect(mock.requestCount == 2)
    }

    /// Answers only when released, whatever cancellation says: a transport slow to honour it.
    final class Stubborn: Transport {
        private let gate = Lock<CheckedContinuation<Void, Never>?>(nil)
        var isWaiting: Bool { gate.value != nil }

        func send(_ request: TransportRequest, context: TransportContext) async throws -> (ResponseHead, ResponseBody) {
            await withCheckedContinuation { continuation in gate.value = continuation }
            return (ResponseHead(statusCode: 200, url: request.url), ResponseBody(Data("late".utf8)))
        }

        func release() {
            gate.withLock { gate in
                defer { gate = nil }
                return gate
            }?.resume()
        }
    }

    @Test func theLimitHoldsWhenTheTransportIgnoresCancellation() async throws {
        let clock = ManualClock()
        let stubborn = Stubborn()
        let client = KonexClient(baseURL: api, transport: stubborn, clock: clock)
        let task = Task { try await client.request("stuck").totalTimeout(.seconds(5)).responseData() }
        try await clock.waitForSleepers(1)
        while !stubborn.isWaiting { try await Task.sleep(for: .milliseconds(1)) }
        clock.advance(by: .seconds(5))
        // The caller hears of the timeout while the transport still holds the request.
        let error = try await requireThrows(KonexError.self) { try await task.value }
        #expect(error.isTimeout)
        #expect(stubborn.isWaiting)
        stubborn.release()  // its late answer is dropped, not delivered anywhere
    }

    @Test func cancellingTheCallerIsACancellationNotATimeout() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/slow"), MockResponse.json(["ok": true]).delayed(by: .seconds(30)))
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        let task = Task { try await client.request("slow").totalTimeout(.seconds(5)).responseData() }
        try await clock.waitForSleepers(2)
        task.cancel()
        let error = try await requireThrows(KonexError.self) { try await task.value }
        #expect(error.stage == .cancelled)
        #expect(!error.isTimeout)
    }

    @Test func explainSaysWhereTheLimitComesFrom() {
        let client = KonexClient(baseURL: api, transport: MockTransport(), totalTimeout: .seconds(9))
        #expect(
            client.request("x").explain().description.contains(
                "each attempt ends after 9.0 seconds (total timeout, client)"))
        #expect(
            client.request("x").totalTimeout(.seconds(1)).explain().description.contains(
                "1.0 seconds (total timeout, call site)"))
    }
}
