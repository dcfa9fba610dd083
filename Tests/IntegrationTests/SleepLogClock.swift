import Konex
import KonexTesting

/// A clock that sleeps in real time and logs every wait asked of it, exactly: its `now` is an `ImmediateClock`'s,
/// which moves only when a sleep ends, so `deadline - now` is the duration the caller asked for, whatever the
/// machine's load.
final class SleepLogClock: Clock, Sendable {
    typealias Instant = ImmediateClock.Instant

    private let virtual = ImmediateClock()
    private let log = Lock<[Duration]>([])

    var now: Instant { virtual.now }
    var minimumResolution: Duration { .zero }
    /// Every wait asked for, in the order asked.
    var sleeps: [Duration] { log.value }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let wait = now.duration(to: deadline)
        log.withLock { $0.append(wait) }
        try await ContinuousClock().sleep(for: wait)
        try await virtual.sleep(until: deadline)  // moves `now` to the deadline
    }
}
