import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

@Suite struct CancellationTests {
    @Test func cancellingTheTaskCancelsTheTransport() async throws {
        let (client, mock) = makeClient { $0.stub(.get("/v1/hang"), .fault(.hang)) }
        let task = Task { try await client.request("hang").responseData() }
        try await mock.waitForRequests(1)
        task.cancel()
        let error = await expectThrows(KonexError.self) { try await task.value }
        #expect(error?.stage == .cancelled)
        #expect(error?.url?.absoluteString == "https://api.test/v1/hang")
    }

    @Test func cancellingTheHandleDeliversCancelledOnceAndNoLateSuccess() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/v1/slow"), .string("late").delayed(by: .seconds(5)))
        let client = KonexClient.mocked(mock, baseURL: api)
        let outcomes = Lock<[String]>([])
        let handle = client.request("slow").responseString(
            onSuccess: { value in outcomes.withLock { $0.append("success:\(value)") } },
            onError: { error in outcomes.withLock { $0.append("error:\(error.stage)") } })
        try await clock.waitForSleepers()
        handle.cancel()
        clock.advance(by: .seconds(10))
        await handle.wait()
        handle.cancel()
        #expect(outcomes.value == ["error:cancelled"])
    }

    @Test func cancelAfterCompletionChangesNothing() async throws {
        let (client, _) = makeClient { $0.stub(.get("/v1/x"), .string("ok")) }
        let outcomes = Lock<[String]>([])
        let handle = client.request("x").responseString(
            onSuccess: { value in outcomes.withLock { $0.append(value) } },
            onError: { error in outcomes.withLock { $0.append("\(error.stage)") } })
        await handle.wait()
        handle.cancel()
        #expect(outcomes.value == ["ok"])
    }

    @Test func alreadyCancelledTaskNeverReachesTheTransport() async throws {
        let (client, mock) = makeClient { $0.stub(.get("/v1/x"), .string("ok")) }
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.request("x").responseData()
        }
        let error = await expectThrows(KonexError.self) { try await task.value }
        #expect(error?.stage == .cancelled)
        #expect(mock.requestCount == 0)
    }

    @Test func systemCancellationFaultIsReportedAsCancelled() async throws {
        let (client, _) = makeClient { $0.stub(.get("/v1/x"), .fault(.cancelled)) }
        let error = await expectThrows(KonexError.self) { try await client.request("x").responseData() }
        #expect(error?.stage == .cancelled)
    }
}
