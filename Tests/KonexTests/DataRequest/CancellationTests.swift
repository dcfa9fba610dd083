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

/// A cancel that lands after a streaming transport handed over the head (one that ignores cancellation) must stop
/// the transfer, not leave it running for nobody.
@Suite struct LateStreamCancellationTests {
    final class Late: Transport {
        let cancelled = Lock(false)
        let started = Lock(false)

        func send(_ request: TransportRequest, context: TransportContext) async throws -> (ResponseHead, ResponseBody) {
            #expect(context.delivery == .incremental)
            started.value = true
            // Ignores cancellation: answers once the caller's task has been cancelled.
            while !Task.isCancelled { await Task.yield() }
            let cancelled = self.cancelled
            let (body, _) = ByteStream.makeStream(bufferLimit: context.bufferLimit) { cancelled.value = true }
            return (ResponseHead(statusCode: 200, url: request.url), ResponseBody(body))
        }
    }

    @Test func aCancelAfterTheHeadStopsTheStreamedTransfer() async throws {
        let transport = Late()
        let client = KonexClient(transport: transport)
        let request = Task { try await client.request("https://api.test/feed").stream() }
        try await WaitTimeout.wait(for: "the transfer to start") { transport.started.value }
        request.cancel()
        let error = try await requireThrows(KonexError.self) { try await request.value }
        #expect(error.stage == .cancelled)
        #expect(transport.cancelled.value)
    }
}
