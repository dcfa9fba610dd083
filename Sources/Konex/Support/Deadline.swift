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
/// - Returns: What `operation` returned, or `nil` when the limit passed first or the caller was cancelled.
func firstOf<T: Sendable>(
    _ operation: @escaping @Sendable () async -> T, orDeadline limit: Duration, on clock: any Clock<Duration>
) async -> T? {
    let race = Race<T>()
    return await withTaskCancellationHandler {
        let value = await withCheckedContinuation { continuation in
            race.start(continuation) {
                [
                    Task { race.finish(await operation()) },
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

/// The state of one ``firstOf(_:orDeadline:on:)``: resumed once, by whichever runner (or cancellation) ends first.
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
        state.withLock { $0.runners = started }
    }

    func finish(_ value: T?) {
        let continuation = state.withLock { state -> CheckedContinuation<T?, Never>? in
            guard state.ended == nil else { return nil }
            state.ended = .some(value)
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: value)
    }

    func cancelRunners() {
        for runner in state.withLock({ $0.runners }) { runner.cancel() }
    }
}
