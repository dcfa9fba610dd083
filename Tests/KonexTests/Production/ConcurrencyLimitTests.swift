import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

@Suite struct ConcurrencyLimitTests {
    /// A transport that holds every request on a manual clock and records how many were in flight, per host too.
    final class Gate: Transport {
        let clock = ManualClock()
        private let state = Lock<(now: [String: Int], peak: Int, peakByHost: [String: Int], started: [String])>(
            ([:], 0, [:], []))

        var peak: Int { state.value.peak }
        var peakByHost: [String: Int] { state.value.peakByHost }
        var started: [String] { state.value.started }
        var inFlight: Int { state.value.now.values.reduce(0, +) }

        func send(_ request: TransportRequest, context: TransportContext) async throws -> (ResponseHead, ResponseBody) {
            let host = request.url.host!
            state.withLock { state in
                state.now[host, default: 0] += 1
                state.peak = max(state.peak, state.now.values.reduce(0, +))
                state.peakByHost[host] = max(state.peakByHost[host, default: 0], state.now[host]!)
                state.started.append(request.url.absoluteString)
            }
            defer { state.withLock { $0.now[host]! -= 1 } }
            try await clock.sleep(for: .seconds(1))
            return (ResponseHead(statusCode: 200, url: request.url), ResponseBody(Data("ok".utf8)))
        }
    }

    @Test func aLimitOfFourNeverHasMoreThanFourInFlight() async throws {
        let gate = Gate()
        let limit = ConcurrencyLimit(maximum: 4)
        let client = KonexClient(transport: gate, interceptors: [limit])
        let tasks = (0..<100).map { index in
            Task { try await client.request("https://a.test/\(index)").response() }
        }
        for _ in 0..<25 {
            try await gate.clock.waitForSleepers(4)
            #expect(limit.counts.inFlight == 4)
            gate.clock.advance(by: .seconds(1))
        }
        var queued = 0
        for task in tasks {
            let response = try await task.value
            if response.timing.queue > .zero { queued += 1 }
        }
        #expect(gate.peak == 4)
        #expect(queued >= 96)  // all but the first four waited, and their wait is in the timing
        #expect(limit.counts == (0, 0))
    }

    @Test func requestsLeaveTheQueueInTheOrderTheyCame() async throws {
        let gate = Gate()
        let limit = ConcurrencyLimit(maximum: 1)
        let client = KonexClient(transport: gate, interceptors: [limit])
        var tasks: [Task<Response<Data>, any Error>] = []
        for index in 0..<5 {
            tasks.append(Task { try await client.request("https://a.test/\(index)").response() })
            // One at a time, so the arrival order is known; the queue must keep it.
            try await WaitTimeout.wait(for: "request \(index) arrived") { limit.counts == (1, index) }
        }
        for _ in 0..<5 {
            try await gate.clock.waitForSleepers(1)
            gate.clock.advance(by: .seconds(1))
        }
        for task in tasks { _ = try await task.value }
        #expect(gate.started == (0..<5).map { "https://a.test/\($0)" })
    }

    @Test func aBusyHostDoesNotHoldUpAnother() async throws {
        let gate = Gate()
        let limit = ConcurrencyLimit(maximum: 3, perHost: 1)
        let client = KonexClient(transport: gate, interceptors: [limit])
        let a = (0..<3).map { index in Task { try await client.request("https://a.test/\(index)").response() } }
        try await WaitTimeout.wait(for: "a.test's queue") { limit.counts == (1, 2) }
        let b = Task { try await client.request("https://b.test/0").response() }
        try await gate.clock.waitForSleepers(2)  // b.test started though two a.test requests arrived first
        #expect(Set(gate.started.map { URL(string: $0)!.host! }) == ["a.test", "b.test"])
        for _ in 0..<3 {
            try await gate.clock.waitForSleepers(1)
            gate.clock.advance(by: .seconds(1))
        }
        for task in a + [b] { _ = try await task.value }
        #expect(gate.peakByHost == ["a.test": 1, "b.test": 1])
    }

    @Test func aFullQueueFailsAtOnceWithATypedError() async throws {
        let gate = Gate()
        let limit = ConcurrencyLimit(maximum: 1, queueLimit: 1)
        let client = KonexClient(transport: gate, interceptors: [limit])
        let first = Task { try await client.request("https://a.test/1").response() }
        try await WaitTimeout.wait(for: "one in flight") { limit.counts == (1, 0) }
        let second = Task { try await client.request("https://a.test/2").response() }
        try await WaitTimeout.wait(for: "one in flight, one waiting") { limit.counts == (1, 1) }
        let error = try await requireThrows(KonexError.self) {
            _ = try await client.request("https://a.test/3").response()
        }
        #expect(error.stage == .queueFull)
        #expect(error.url?.absoluteString == "https://a.test/3")
        #expect(error.message.contains("queueLimit 1"))
        for _ in 0..<2 {
            try await gate.clock.waitForSleepers(1)
            gate.clock.advance(by: .seconds(1))
        }
        _ = try await (first.value, second.value)
    }

    @Test func cancellingAQueuedRequestRemovesItAtOnce() async throws {
        let gate = Gate()
        let limit = ConcurrencyLimit(maximum: 1)
        let client = KonexClient(transport: gate, interceptors: [limit])
        let first = Task { try await client.request("https://a.test/1").response() }
        try await WaitTimeout.wait(for: "one in flight") { limit.counts == (1, 0) }
        let queued = Task { try await client.request("https://a.test/2").response() }
        try await WaitTimeout.wait(for: "one waiting") { limit.counts == (1, 1) }
        queued.cancel()
        let error = try await requireThrows(KonexError.self) { _ = try await queued.value }
        #expect(error.stage == .cancelled)
        #expect(limit.counts == (1, 0))
        try await gate.clock.waitForSleepers(1)
        gate.clock.advance(by: .seconds(1))
        _ = try await first.value
        #expect(gate.started == ["https://a.test/1"])
        #expect(limit.counts == (0, 0))
    }
}

/// Many requests, some cancelled at random moments: every one ends, and the bookkeeping returns to zero.
@Suite struct InterceptorChurnTests {
    @Test func aLimitAndACoalescerUnderRandomCancellationLeaveNothingBehind() async throws {
        var generator = SystemRandomNumberGenerator()
        let mock = MockTransport(clock: ContinuousClock())
        mock.stub(.anything, MockResponse.json(["ok": true]).delayed(.random(.microseconds(50)...(.milliseconds(3)))))
        let coalescer = RequestCoalescer()
        let limit = ConcurrencyLimit(maximum: 4, perHost: 2, queueLimit: 150)
        let client = KonexClient(transport: mock, interceptors: [coalescer, limit])
        let hosts = ["https://a.test", "https://b.test", "https://c.test"]
        let outcomes = Lock<[String: Int]>([:])
        await withTaskGroup(of: Void.self) { group in
            var tasks: [Task<Void, Never>] = []
            for index in 0..<300 {
                let url = "\(hosts[index % 3])/item/\(index % 25)"  // repeats, so some coalesce
                let task = Task {
                    do {
                        _ = try await client.request(url).validate().responseData()
                        outcomes.withLock { $0["ok", default: 0] += 1 }
                    } catch let error as KonexError {
                        outcomes.withLock { $0[error.stage.rawValue, default: 0] += 1 }
                    } catch {
                        outcomes.withLock { $0["other", default: 0] += 1 }
                    }
                }
                tasks.append(task)
                if Int.random(in: 0..<4, using: &generator) == 0 {
                    let victim = tasks[Int.random(in: 0..<tasks.count, using: &generator)]
                    group.addTask {
                        try? await Task.sleep(for: .microseconds(Int.random(in: 0..<2_000)))
                        victim.cancel()
                    }
                }
            }
            for task in tasks { group.addTask { await task.value } }
        }
        let counted = outcomes.value
        #expect(counted.values.reduce(0, +) == 300)
        #expect(Set(counted.keys).isSubset(of: ["ok", "cancelled", "queueFull"]), "\(counted)")
        #expect(counted["ok", default: 0] > 0)
        #expect(coalescer.inFlightCount == 0)
        #expect(coalescer.waiterCount == 0)
        #expect(limit.counts == (0, 0))
    }
}

extension ConcurrencyLimitTests {
    @Test func higherPriorityWaitersLeaveFirstThenInArrivalOrder() async throws {
        let gate = Gate()
        let limit = ConcurrencyLimit(maximum: 1)
        let client = KonexClient(transport: gate, interceptors: [limit])
        var tasks: [Task<Response<Data>, any Error>] = []
        let arrivals: [(String, TaskPriority)] = [
            ("first", .medium), ("prefetch-1", .utility), ("prefetch-2", .utility), ("visible-1", .high),
            ("visible-2", .high),
        ]
        for (index, (name, priority)) in arrivals.enumerated() {
            tasks.append(Task(priority: priority) { try await client.request("https://a.test/\(name)").response() })
            try await WaitTimeout.wait(for: "\(name) arrived") { limit.counts == (1, index) }
        }
        for _ in arrivals {
            try await gate.clock.waitForSleepers(1)
            gate.clock.advance(by: .seconds(1))
        }
        for task in tasks { _ = try await task.value }
        #expect(
            gate.started.map { URL(string: $0)!.lastPathComponent } == [
                "first", "visible-1", "visible-2", "prefetch-1", "prefetch-2",
            ])
    }
}
