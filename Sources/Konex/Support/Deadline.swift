import Foundation

/// Runs `operation` against a deadline on `clock` and returns as soon as either ends, also when `operation` ignores
/// cancellation (a `URLSessionWebSocketTask` ping whose pong never comes calls back never).
///
/// A task group would not do: it waits for every child, so a child that never ends keeps the group from returning,
/// and the deadline would pass unnoticed. Here the loser is cancelled and left behind.
/// - Parameters:
///   - limit: How long to wait.
///   - clock: What the limit is measured on (the client's clock, so a test clock governs it).
///   - operation: The work; cancelled when the limit passes first.
///   - discarding: Given what `operation` returned when it ended too late for anyone to read it (a file to remove, a
///     connection to close).
/// - Returns: What `operation` returned, or `nil` when the limit passed first or the caller was cancelled.
func firstOf<T: Sendable>(
    _ operation: @escaping @Sendable () async -> T, orDeadline limit: Duration, on clock: any Clock<Duration>,
    discarding: @escaping @Sendable (T) -> Void = { _ in }
) async -> T? {
    let race = Race<T>()
    return await withTaskCancellationHandler {
        let value = await withCheckedContinuation { continuation in
            race.start(continuation) {
                [
                    Task {
                        let value = await operation()
                        if !race.finish(value) { discarding(value) }
                    },
                    Task {
                        do { try await clock.sleep(for: limit) } catch { return }
                        race.finish(nil)
                    },
                ]
            }
        }
        race.cancelRunners()
        return value
    } onCancel: {
        race.finish(nil)
    }
}

/// The state of one ``firstOf(_:orDeadline:on:discarding:)``: resumed once, by whichever runner (or cancellation) ends first.
private final class Race<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T?, Never>?
        /// Set when the race ended before the continuation was installed (the caller was already cancelled).
        var ended: T??
        var runners: [Task<Void, Never>] = []
    }
    private let state = Lock(State())

    func start(_ continuation: CheckedContinuation<T?, Never>, runners: () -> [Task<Void, Never>]) {
        let ended = state.withLock { state -> T?? in
            if state.ended == nil { state.continuation = continuation }
            return state.ended
        }
        if let ended { return continuation.resume(returning: ended) }
        let started = runners()
        // The operation may have won (and the caller cancelled the runners it found: none) before they were stored:
        // then nobody else would cancel the timer, which would sleep out the whole limit (forever on a test clock).
        let alreadyEnded = state.withLock { state -> Bool in
            guard state.ended == nil else { return true }
            state.runners = started
            return false
        }
        if alreadyEnded { for runner in started { runner.cancel() } }
    }

    /// Ends the race with `value` unless it has ended already.
    /// - Returns: Whether `value` ended it.
    @discardableResult
    func finish(_ value: T?) -> Bool {
        let (won, continuation) = state.withLock { state -> (Bool, CheckedContinuation<T?, Never>?) in
            guard state.ended == nil else { return (false, nil) }
            state.ended = .some(value)
            defer { state.continuation = nil }
            return (true, state.continuation)
        }
        continuation?.resume(returning: value)
        return won
    }

    func cancelRunners() {
        for runner in state.withLock({ $0.runners }) { runner.cancel() }
    }
}
