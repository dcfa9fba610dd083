import Foundation
import KonexTesting
import Testing

@testable import Konex

/// `firstOf(_:orDeadline:on:)`: whichever ends first answers, and nothing of the race outlives it.
@Suite struct DeadlineTests {
    /// Trust pass 3, item 6: an operation that wins at once must not leave its timer asleep on the clock (on a
    /// `ManualClock` nobody advances, such a timer would sleep for ever).
    @Test func anOperationThatWinsAtOnceLeavesNoTimerBehind() async throws {
        let clock = ManualClock()
        for round in 0..<300 {
            let value = await firstOf({ round }, orDeadline: .seconds(60), on: clock)
            #expect(value == round)
        }
        try await WaitTimeout.wait(for: "no timer left on the clock; \(clock.sleeperCount) sleeping") {
            clock.sleeperCount == 0
        }
    }

    @Test func theDeadlineWinsAndHandsALateValueBackForCleanUp() async throws {
        let clock = ManualClock()
        let gate = ManualClock()
        let discarded = Lock<[Int]>([])
        let race = Task {
            await firstOf(
                {
                    try? await gate.sleep(for: .seconds(1))
                    return 7
                }, orDeadline: .seconds(5), on: clock, discarding: { value in discarded.withLock { $0.append(value) } }
            )
        }
        try await clock.waitForSleepers(1)
        try await gate.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        #expect(await race.value == nil)
        // The loser was cancelled; had it ended with a value, that value would have been handed back, not lost.
        try await WaitTimeout.wait(for: "the loser to end") { gate.sleeperCount == 0 }
        try await WaitTimeout.wait(for: "the late value handed back") { discarded.value == [7] }
    }
}
