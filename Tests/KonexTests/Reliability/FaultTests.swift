import Foundation
import KonexTesting
import Testing

@testable import Konex

@Suite struct FaultTests {
    @Test func thousandConcurrentRequestsWithRandomCancellationsEachGetOneOutcome() async throws {
        let mock = MockTransport(delay: .random(.microseconds(100)...(.milliseconds(5))), seed: 3, journalLimit: 0)
        mock.stub(.get("/v1/x"), .string("ok"))
        let client = KonexClient.mocked(mock, baseURL: api)
        let outcomes = Lock<[Int: [String]]>([:])
        var random = SeededGenerator(seed: 11)
        var handles: [RequestHandle] = []
        for index in 0..<1_000 {
            handles.append(
                client.request("x").responseString(
                    onSuccess: { _ in outcomes.withLock { $0[index, default: []].append("success") } },
                    onError: { error in outcomes.withLock { $0[index, default: []].append("\(error.stage)") } }))
            if Bool.random(using: &random) { handles[Int.random(in: 0...index, using: &random)].cancel() }
        }
        for handle in handles { await handle.wait() }
        let all = outcomes.value
        #expect(all.count == 1_000)
        #expect(all.values.allSatisfy { $0.count == 1 })
        #expect(Set(all.values.map { $0[0] }).isSubset(of: ["success", "cancelled"]))
    }

    @Test func thousandConcurrentAsyncRequestsAllComplete() async throws {
        let mock = MockTransport(delay: .random(.zero...(.milliseconds(2))), journalLimit: 0)
        mock.stub(.get("/v1/x"), .json(Post(id: 1, title: "t")))
        let client = KonexClient.mocked(mock, baseURL: api)
        let count = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<1_000 {
                group.addTask {
                    _ = try await client.request("x").responseObject(of: Post.self)
                    return 1
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(count == 1_000)
    }

    @Test func finishedRequestHandleAndClientAreReleased() async throws {
        weak var weakClient: KonexClient?
        weak var weakHandle: RequestHandle?
        weak var weakMock: MockTransport?
        do {
            let mock = MockTransport(clock: ImmediateClock()).stubbing(.get("/v1/x"), .string("ok"))
            let client = KonexClient.mocked(mock, baseURL: api)
            weakClient = client
            weakMock = mock
            let handle = client.request("x").responseString(onSuccess: { _ in }, onError: { _ in })
            weakHandle = handle
            await handle.wait()
            _ = try await client.request("x").validate().responseString()
        }
        #expect(weakClient == nil)
        #expect(weakHandle == nil)
        #expect(weakMock == nil)
    }

    @Test func clientReleasedWhileRequestsAreInFlightStillCompletesThem() async throws {
        let clock = ManualClock()
        weak var weakClient: KonexClient?
        let task: Task<String, any Error>
        do {
            let mock = MockTransport(clock: clock).stubbing(
                .get("/v1/x"), MockResponse.string("late but fine").delayed(by: .seconds(1)))
            let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
            weakClient = client
            task = Task { try await client.request("x").responseString() }
        }
        try await clock.waitForSleepers()
        clock.advance(by: .seconds(1))
        #expect(try await task.value == "late but fine")
        #expect(weakClient == nil)
    }

    @Test func urlSessionTransportIsReleased() {
        weak var weakTransport: URLSessionTransport?
        do {
            let client = KonexClient()
            weakTransport = client.transport as? URLSessionTransport
            #expect(weakTransport != nil)
        }
        #expect(weakTransport == nil)
    }
}
