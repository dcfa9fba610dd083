/// One piece of work that any number of tasks wait on, each of which can stop waiting when its own task is
/// cancelled, and that ends once, with a value or an error, whoever ends it first (the work, or a timeout).
///
/// Waiting on an unstructured `Task`'s `value` cannot be cancelled: one hung token refresh would hang every request
/// behind it, cancelled ones too. This is the wait that can.
final class SingleFlight<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, any Error>?
        var waiters: [UInt64: CheckedContinuation<Value, any Error>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Lock(State())

    /// Whether the flight has ended.
    var isFinished: Bool { state.withLock { $0.result != nil } }

    /// Ends the flight with `result` and wakes every waiter, unless it had ended already.
    /// - Returns: Whether this call ended it.
    @discardableResult
    func finish(_ result: Result<Value, any Error>) -> Bool {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>]? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        guard let waiters else { return false }
        for waiter in waiters { waiter.resume(with: result) }
        return true
    }

    /// The flight's value, once it ends.
    /// - Throws: The flight's error, or `CancellationError` when the waiting task is cancelled first.
    func value() async throws -> Value {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                let ready = state.withLock { state -> Result<Value, any Error>? in
                    if let result = state.result { return result }
                    // Read under the lock the handler takes, so a cancel is seen here or finds the waiter there.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
