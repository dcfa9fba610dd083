#if AsyncHTTPClient
    import Foundation
    import Konex

    // A body's limits: AsyncHTTPClient's deadline stops at the head, so the body is bounded here.
    extension AsyncHTTPClientTransport {
        /// How long a body may take: a deadline for the whole of it (``bodyTimeout``), and the longest silence
        /// between two of its bytes (the request's `timeoutInterval`, which URLSession also reads as an idle time).
        struct BodyLimits: Sendable {
            let deadline: ContinuousClock.Instant?
            let idle: Duration?
        }

        /// When the body last made progress; the body loop writes it, the watchdog reads it. `nil` while the body
        /// waits for a slow reader: that is not the server's silence.
        final class Activity: Sendable {
            private let last = Lock<ContinuousClock.Instant?>(ContinuousClock.now)
            func arrived() { last.value = .now }
            func waitsForReader() { last.value = nil }
            var lastArrival: ContinuousClock.Instant? { last.value }
        }

        /// Runs `body` and fails with ``Konex/TransportFailure/Kind/timedOut`` when the deadline passes or the body is silent for longer
        /// than the idle time; the body task is cancelled. Without limits, `body` runs alone.
        func withBodyLimits<T: Sendable>(
            _ limits: BodyLimits, _ body: @escaping @Sendable (Activity) async throws -> T
        ) async throws -> T {
            let activity = Activity()
            guard limits.deadline != nil || limits.idle != nil else { return try await body(activity) }
            return try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask { try await body(activity) }
                group.addTask {
                    // One watchdog for the whole body: it sleeps to the nearer limit and looks again, so a chunk
                    // costs the body loop one clock read, not a timer.
                    while true {
                        let silentUntil = limits.idle.map { (activity.lastArrival ?? .now) + $0 }
                        let wake = [limits.deadline, silentUntil].compactMap { $0 }.min()!
                        try await Task.sleep(until: wake, clock: .continuous)
                        let now = ContinuousClock.now
                        if let deadline = limits.deadline, now >= deadline { return nil }
                        if let idle = limits.idle, let last = activity.lastArrival, last + idle <= now { return nil }
                    }
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let value = first else { throw TransportFailure(.timedOut) }
                return value
            }
        }
    }
#endif
