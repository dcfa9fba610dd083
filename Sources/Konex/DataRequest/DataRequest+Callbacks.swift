import Foundation

// What the callback forms of the terminals share (each terminal's forms are in its family's file, beside its async
// form). For code that is not async, each returns a handle to cancel, and delivers exactly one of
// `onSuccess`/`onError`.
//
// Where the closures run follows Swift's own rule for closures: where they were written. Called from an actor (a
// main-actor view model, or any code in an app target that is main-actor isolated by default), the closures run on
// that actor and may update its state; from nonisolated code, on the task that ran the request. Naming a `queue:`
// picks the older form, whose `@Sendable` closures run on that queue (or, for `nil`, the client's `callbackQueue`).
extension DataRequest {
    func split<Value>(
        _ onSuccess: @escaping @Sendable (Value) -> Void, _ onError: @escaping @Sendable (KonexError) -> Void
    ) -> @Sendable (Result<Value, KonexError>) -> Void {
        { result in
            switch result {
            case .success(let value): onSuccess(value)
            case .failure(let error): onError(error)
            }
        }
    }

    func split<Value>(_ onSuccess: @escaping (Value) -> Void, _ onError: @escaping (KonexError) -> Void)
        -> (Result<Value, KonexError>) -> Void
    {
        { result in
            switch result {
            case .success(let value): onSuccess(value)
            case .failure(let error): onError(error)
            }
        }
    }
}
