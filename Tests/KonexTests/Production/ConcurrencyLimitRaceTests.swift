import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// Item 6: admission, queueing and cancellation decided in one place, under thousands of cancel races.
@Suite struct ConcurrencyLimitRaceTests {
    /// Answers after a yield or two, so requests overlap and queue.
    struct Quick: Transport {
        func send(_ request: TransportRequest, context: TransportContext) async throws -> (ResponseHead, ResponseBody) {
            await Task.yield()
            try Task.checkCancellation()
            return (ResponseHead(statusCode: 200, url: request.url), .empty)
        }
    }

    @Test func thousandsOfCancelRacesBringEveryCountBackToZero() async throws {
        let limit = ConcurrencyLimit(maximum: 2, perHost: 1, queueLimit: 64)
        let client = KonexClient(transport: Quick(), interceptors: [limit])
        var outcomes = (ok: 0, cancelled: 0, full: 0)
        for round in 0..<200 {
            let tasks = (0..<100).map { index in
                Task { () -> KonexError.Stage? in
                    do {
                        _ = try await client.request("https://h\(index % 3).test/\(round)").responseData()
                        return nil
                    } catch let error as KonexError {
                        return error.stage
                    }
                }
            }
            // Cancel a third of them from another task while they run, at whatever point each has reached: before
            // admission, inside the critical section, while queued, or in flight.
            let canceller = Task.detached {
                for (index, task) in tasks.enumerated() where index % 3 == round % 3 {
                    if index % 2 == 0 { await Task.yield() }
                    task.cancel()
                }
            }
            await canceller.value
            for task in tasks {
                switch try await task.value {
                case nil: outcomes.ok += 1
                case .cancelled?: outcomes.cancelled += 1
                case .queueFull?: outcomes.full += 1
                case let other?: Issue.record("unexpected stage \(other)")
                }
            }
            #expect(limit.counts == (0, 0), "round \(round)")
        }
        #expect(outcomes.ok + outcomes.cancelled + outcomes.full == 20_000)
        #expect(outcomes.ok > 0)
        #expect(outcomes.cancelled > 0)
        // After all of that the limit still admits: no slot leaked.
        _ = try await client.request("https://h0.test/after").responseData()
    }

    @Test func theQueueNeverHoldsMoreThanItsLimit() async throws {
        let gate = ConcurrencyLimitTests.Gate()
        let limit = ConcurrencyLimit(maximum: 1, queueLimit: 5)
        let client = KonexClient(transport: gate, interceptors: [limit])
        let peak = Lock(0)
        let turnedAway = Lock(0)
        let tasks = (0..<200).map { index in
            Task {
                defer { peak.withLock { $0 = max($0, limit.counts.waiting) } }
                let response = try? await client.request("https://a.test/\(index)").response()
                if response == nil { turnedAway.withLock { $0 += 1 } }
                return response
            }
        }
        // Every request reaches the limit before time moves: one in flight, five queued, the rest turned away.
        try await gate.clock.waitForSleepers(1)
        let arrived = ContinuousClock.now + .seconds(60)
        while limit.counts.waiting < 5 || turnedAway.value < 194 {
            guard ContinuousClock.now < arrived else {
                Issue.record("waiting \(limit.counts.waiting), turned away \(turnedAway.value)")
                break
            }
            try await Task.sleep(for: .milliseconds(1))
        }
        // Time moves until every admitted request is answered: each sleeps on the gate's clock when its turn comes,
        // which under the thread sanitizer can be long after the one before (a fixed number of advances once left
        // the last one asleep for good).
        let driver = Task {
            while !Task.isCancelled {
                peak.withLock { $0 = max($0, limit.counts.waiting) }
                gate.clock.advance(by: .seconds(1))
                try? await Task.sleep(for: .milliseconds(2))
            }
        }
        var answered = 0
        for task in tasks where await task.value != nil { answered += 1 }
        driver.cancel()
        #expect(peak.value <= 5)
        #expect(answered == 6)  // one in flight, five queued; the other 194 were told the queue is full
        #expect(limit.counts == (0, 0))
    }
}
