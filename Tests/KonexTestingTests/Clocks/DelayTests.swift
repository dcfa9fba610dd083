import Foundation
import Konex
import KonexTesting
import TestSupport
import Testing

@Suite struct DelayTests {
    @Test func immediateClockSkipsDelaysButAdvancesVirtualTime() async throws {
        let clock = ImmediateClock()
        let mock = MockTransport(clock: clock, delay: .fixed(.seconds(1)))
        mock.stub(
            MockEndpoint(.get("/slow"), responses: [.string("ok").delayed(by: .seconds(3))], delay: .fixed(.seconds(2)))
        )
        let value = try await KonexClient.mocked(mock).request("/slow").responseString()
        #expect(value == "ok")
        #expect(clock.now.offset == .seconds(6))
    }

    @Test func manualClockHoldsTheResponseUntilAdvanced() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock).stubbing(
            .get("/slow"), MockResponse.string("done").delayed(by: .seconds(3)))
        let client = KonexClient.mocked(mock)
        let task = Task { try await client.request("/slow").responseString() }
        try await clock.waitForSleepers()
        clock.advance(by: .seconds(2))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(1))
        #expect(try await task.value == "done")
        #expect(clock.sleeperCount == 0)
    }

    @Test func cancellingDuringADelayThrowsCancellation() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock).stubbing(
            .get("/slow"), MockResponse.string("x").delayed(by: .seconds(3)))
        let task = Task { try await KonexClient.mocked(mock).request("/slow").responseString() }
        try await clock.waitForSleepers()
        task.cancel()
        let error = try await requireThrows(KonexError.self) { try await task.value }
        #expect(error.stage == .cancelled)
    }

    @Test func seededRandomDelaysAreReproducibleAndInRange() async throws {
        func delays(seed: UInt64) async throws -> [Duration] {
            let clock = ImmediateClock()
            let mock = MockTransport(
                clock: clock, delay: .random(.milliseconds(100)...(.milliseconds(200))), seed: seed)
            mock.stub(.anything, .status(200))
            var result: [Duration] = []
            for _ in 0..<10 {
                let before = clock.now
                _ = try await mock.data(for: request(url: "https://api.test/x"))
                result.append(before.duration(to: clock.now))
            }
            return result
        }
        let first = try await delays(seed: 7)
        #expect(try await delays(seed: 7) == first)
        #expect(try await delays(seed: 8) != first)
        #expect(first.allSatisfy { $0 >= .milliseconds(100) && $0 <= .milliseconds(200) })
    }
}
