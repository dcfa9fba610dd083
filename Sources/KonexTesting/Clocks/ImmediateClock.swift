import Foundation
import Konex

/// A clock whose sleeps return at once while its `now` moves forward by the time slept.
///
/// Use it where a test wants delays and backoff to happen but not to take time:
/// ```swift
/// let mock = MockTransport(clock: ImmediateClock())
/// mock.stub(.get("/slow"), .json(report).delayed(by: .seconds(3)))   // returns in microseconds
/// ```
public final class ImmediateClock: Clock, Sendable {
    /// A point in this clock's virtual time.
    public struct Instant: InstantProtocol, Sendable {
        /// Time since the clock was created.
        public let offset: Duration
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let current = Lock(Instant(offset: .zero))

    /// Creates a clock at time zero.
    public init() {}

    public var now: Instant { current.value }
    public var minimumResolution: Duration { .zero }

    /// Returns at once (after a cancellation check), moving `now` to `deadline`.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        current.withLock { now in if now < deadline { now = deadline } }
        await Task.yield()
    }
}
