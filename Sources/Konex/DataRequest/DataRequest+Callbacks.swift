import Foundation

// What the callback forms of the terminals share (each terminal's forms are in its family's file, beside its async
// form). For code that is not async, each returns a handle to cancel, and delivers exactly one of
// `onSuccess`/`onError`.
//
// Where the closures run: called from an actor (a main-actor view model, or any code in an app target that is
// main-actor isolated by default), on that actor, where they were written and may update its state; from code on no
// actor (a Konex 0.5 call site, Swift 5 mode code), on the client's `callbackQueue`, the main queue on Apple platforms,
// as Konex always promised (on the request's task where the client has none). Naming a `queue:` picks the older form,
// whose `@Sendable` closures run on that queue (or, for `nil`, the client's `callbackQueue`).
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
