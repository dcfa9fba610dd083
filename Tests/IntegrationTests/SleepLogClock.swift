import Konex

/// A clock that sleeps in real time and logs every wait asked of it, exactly: its `now` is virtual and moves only
/// when a sleep ends, so `deadline - now` is the duration the caller asked for, whatever the machine's load.
final class SleepLogClock: Clock, Sendable {
    struct Instant: InstantProtocol, Sendable {
        let offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let state = Lock((now: Instant(offset: .zero), sleeps: [Duration]()))

    var now: Instant { state.value.now }
    var minimumResolution: Duration { .zero }
    /// Every wait asked for, in the order asked.
    var sleeps: [Duration] { state.value.sleeps }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let wait = state.withLock { state in
            let wait = state.now.duration(to: deadline)
            state.sleeps.append(wait)
            return wait
        }
        try await ContinuousClock().sleep(for: wait)
        state.withLock { state in if state.now < deadline { state.now = deadline } }
    }
}
