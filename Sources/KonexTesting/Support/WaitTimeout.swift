import Foundation

/// A bounded wait in a test ran out of time: what it waited for and what it saw instead.
///
/// Every wait KonexTesting offers (``ManualClock/waitForSleepers(_:timeout:)``,
/// ``MockTransport/waitForRequests(_:timeout:)``) gives up with this error (after 120 s by default, far above the
/// stalls of a loaded machine under the thread sanitizer, seen near 40 s), so a regression fails the test
/// instead of hanging the run.
public struct WaitTimeout: Error, Sendable, CustomStringConvertible {
    /// What the wait was for, and what was seen when time ran out.
    public let description: String

    /// Polls `condition` (yielding, then sleeping briefly) until it holds or `timeout` passes on the real clock.
    /// - Parameters:
    ///   - explanation: What the wait is for and what was seen, evaluated only when it times out.
    ///   - timeout: How long to wait, in real time.
    ///   - condition: Whether the wait is over.
    /// - Throws: ``WaitTimeout``.
    public static func wait(
        for explanation: @autoclosure () -> String, timeout: Duration = .seconds(120), until condition: () -> Bool
    ) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var polls = 0
        while !condition() {
            guard clock.now < deadline else {
                throw WaitTimeout(description: "timed out after \(timeout) waiting for \(explanation())")
            }
            polls += 1
            // Yield first, so a wait that is over within a few scheduler turns costs no real time.
            if polls < 100 { await Task.yield() } else { try await Task.sleep(for: .milliseconds(1)) }
        }
    }
}
