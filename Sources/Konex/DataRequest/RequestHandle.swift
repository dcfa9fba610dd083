import Foundation

/// A running callback-style request: cancel it, or wait for it to finish.
///
/// Exactly one callback is delivered per request. After ``cancel()`` returns, the callback already delivered
/// (if the request had finished) stays the only one; otherwise `onError` receives a `.cancelled` error, once,
/// and no late success follows.
public final class RequestHandle: Sendable {
    private enum State: Sendable {
        case pending
        case delivered
    }

    private let state = Lock(State.pending)
    private let task = Lock<Task<Void, Never>?>(nil)
    private let cancellation: @Sendable () -> Void

    init(onCancel: @escaping @Sendable () -> Void) { cancellation = onCancel }

    func start(_ task: Task<Void, Never>) { self.task.value = task }

    /// Claims the single delivery; `false` when an outcome was already delivered.
    func claim() -> Bool {
        state.withLock { state in
            guard case .pending = state else { return false }
            state = .delivered
            return true
        }
    }

    /// Cancels the request: the transport call is cancelled and `onError` gets `.cancelled` unless an outcome was
    /// already delivered.
    public func cancel() {
        task.value?.cancel()
        cancellation()
    }

    /// Whether an outcome (success, failure or cancellation) has been delivered.
    public var isFinished: Bool { state.withLock { if case .delivered = $0 { true } else { false } } }

    /// Waits until the request's task has finished.
    public func wait() async { await task.value?.value }
}

extension DataRequest {
    /// Runs `operation` in a task and delivers its outcome exactly once to `completion`.
    func deliver<Value: Sendable>(
        on queue: DispatchQueue?, _ operation: @escaping @Sendable (DataRequest) async throws -> Value,
        completion: @escaping @Sendable (Result<Value, KonexError>) -> Void
    ) -> RequestHandle {
        let request = self
        let slot = Lock<RequestHandle?>(nil)
        let send: @Sendable (Result<Value, KonexError>) -> Void = { result in
            guard let handle = slot.value, handle.claim() else { return }
            if let queue { queue.async { completion(result) } } else { completion(result) }
        }
        let handle = RequestHandle(onCancel: { send(.failure(request.cancellationError())) })
        slot.value = handle
        handle.start(
            Task {
                do {
                    send(.success(try await operation(request)))
                } catch let error as KonexError {
                    send(.failure(error))
                } catch {
                    send(.failure(KonexError(stage: .transport, message: "\(error)", underlyingError: error)))
                }
            })
        return handle
    }
}
