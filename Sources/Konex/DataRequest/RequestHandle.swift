import Foundation

/// A running callback-style request: cancel it, or wait for it to finish.
///
/// Exactly one callback is delivered per request. After ``cancel()`` returns, the callback already delivered
/// (if the request had finished) stays the only one; otherwise `onError` receives a `.cancelled` error, once,
/// and no late success follows.
public final class RequestHandle: Sendable {
    private let delivery: Delivery
    private let task = Lock<Task<Void, Never>?>(nil)
    private let cancellation: @Sendable () -> Void

    init(delivery: Delivery, onCancel: @escaping @Sendable () -> Void) {
        self.delivery = delivery
        cancellation = onCancel
    }

    func start(_ task: Task<Void, Never>) { self.task.value = task }

    /// Cancels the request: the transport call is cancelled and `onError` gets `.cancelled` unless an outcome was
    /// already delivered.
    public func cancel() {
        task.value?.cancel()
        cancellation()
    }

    /// Whether an outcome (success, failure or cancellation) has been delivered.
    public var isFinished: Bool { delivery.isDelivered }

    /// Waits until the request's task has finished.
    public func wait() async { await task.value?.value }
}

/// The single delivery of one request's outcome, shared by its task and its handle (which may be discarded).
final class Delivery: Sendable {
    private let state = Lock((delivered: false, cancelled: false))

    /// Claims the delivery; `false` when an outcome was already delivered.
    func claim() -> Bool {
        state.withLock { state in
            if state.delivered { return false }
            state.delivered = true
            return true
        }
    }

    var isDelivered: Bool { state.value.delivered }

    /// Notes that the caller cancelled, for a delivery made by the task itself (on the caller's actor).
    func cancel() { state.withLock { $0.cancelled = true } }

    var isCancelled: Bool { state.value.cancelled }
}

extension DataRequest {
    /// Runs `operation` in a task and delivers its outcome exactly once to `completion`, on `queue` (the client's
    /// `callbackQueue` for `nil`); the task ends once the delivery has run, so `wait()` returns after the callback.
    func deliver<Value: Sendable>(
        on queue: DispatchQueue?, _ operation: @escaping @Sendable (DataRequest) async throws -> Value,
        completion: @escaping @Sendable (Result<Value, KonexError>) -> Void
    ) -> RequestHandle {
        let request = self
        let queue = queue ?? client.callbackQueue
        let delivery = Delivery()
        // Captures the delivery, never the handle: a handle the caller drops must not keep anything alive.
        let send: @Sendable (Result<Value, KonexError>, (@Sendable () -> Void)?) -> Void = { result, delivered in
            guard delivery.claim() else {
                delivered?()
                return
            }
            guard let queue else {
                completion(result)
                delivered?()
                return
            }
            queue.async {
                completion(result)
                delivered?()
            }
        }
        let handle = RequestHandle(delivery: delivery, onCancel: { send(.failure(request.cancellationError()), nil) })
        handle.start(
            Task {
                let outcome: Result<Value, KonexError>
                do {
                    outcome = .success(try await operation(request))
                } catch {
                    outcome = .failure(Self.callbackFailure(error))
                }
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    send(outcome, { done.resume() })
                }
            })
        return handle
    }
}

extension DataRequest {
    /// Runs `operation` in a task on the caller's actor (`isolation`) and delivers its outcome there, exactly once.
    ///
    /// The callbacks were written in the caller's isolation (a main-actor view model's closures may touch its
    /// state), so they are called there, never sent elsewhere; the pipeline inside `operation` still runs off the
    /// actor. Cancelling marks the delivery, and the task, woken by the cancellation, delivers `.cancelled` itself.
    ///
    /// From code on no actor (a Konex 0.5 call site, a Swift 5 mode view model, a completion-handler wrapper) the
    /// callbacks run on the client's ``KonexClient/callbackQueue``, as they always did: the main queue on Apple
    /// platforms, where such code updates its UI; on the task that ran the request where the client has no queue.
    func deliver<Value>(
        isolation: isolated (any Actor)?, _ operation: @escaping (DataRequest) async throws -> Value,
        completion: @escaping (Result<Value, KonexError>) -> Void
    ) -> RequestHandle {
        if isolation == nil, let queue = client.callbackQueue {
            return deliverFromNoActor(on: queue, operation, completion: completion)
        }
        let request = self
        let delivery = Delivery()
        let handle = RequestHandle(delivery: delivery, onCancel: { delivery.cancel() })
        handle.start(
            Task {
                _ = isolation  // captured: the task runs on the caller's actor, where the closures belong
                let outcome: Result<Value, KonexError>
                do {
                    outcome = .success(try await operation(request))
                } catch {
                    outcome = .failure(Self.callbackFailure(error))
                }
                guard delivery.claim() else { return }
                completion(delivery.isCancelled ? .failure(request.cancellationError()) : outcome)
            })
        return handle
    }
}

extension DataRequest {
    /// ``deliver(isolation:_:completion:)`` for a caller on no actor: the outcome delivered on `queue`, exactly once.
    ///
    /// Its closures and its value are not `Sendable`, and they cross to `queue` in a box that says they are. That is
    /// sound here: code on no actor gives no isolation for its closures to keep, they are handed over whole and never
    /// called anywhere else, and called once, on one queue (where the Konex 0.5 call sites this serves ran them);
    /// running them on the request's task instead was no safer, only a thread the docs did not promise.
    private func deliverFromNoActor<Value>(
        on queue: DispatchQueue, _ operation: @escaping (DataRequest) async throws -> Value,
        completion: @escaping (Result<Value, KonexError>) -> Void
    ) -> RequestHandle {
        let handedOver = HandedOver((operation, completion))
        return deliver(
            on: queue, { HandedOver(try await handedOver.value.0($0)) },
            completion: { handedOver.value.1($0.map(\.value)) })
    }
}

/// A value handed from code on no actor to the one place that uses it next (``DataRequest/deliverFromNoActor``
/// says why that is sound); never shared.
private final class HandedOver<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

extension DataRequest {
    /// What a callback's `onError` gets for `error`: a ``KonexError`` as it is, anything else as a transport failure.
    static func callbackFailure(_ error: any Error) -> KonexError {
        error as? KonexError ?? KonexError(stage: .transport, message: "\(error)", underlyingError: error)
    }
}
