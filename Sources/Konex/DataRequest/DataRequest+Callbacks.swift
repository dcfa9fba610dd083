import Foundation

// Callback forms of the terminal operations, for code that is not async. Each returns a handle to cancel, and
// delivers exactly one of `onSuccess`/`onError`: on `queue` when given, else on the client's `callbackQueue` (the
// main queue on Apple platforms), else on the task that ran the request.
extension DataRequest {
    /// Sends the request and delivers the envelope or the error.
    @discardableResult
    public func response(
        queue: DispatchQueue? = nil, completion: @escaping @Sendable (Result<Response<Data>, KonexError>) -> Void
    ) -> RequestHandle {
        deliver(on: queue, { try await $0.response() }, completion: completion)
    }

    /// Sends the request and delivers the decoded envelope or the error, in one `Result`.
    @discardableResult
    public func response<T: Decodable & Sendable>(
        of type: T.Type, atKeyPath keyPath: String? = nil, decoder: JSONDecoder? = nil,
        errorType: (any (Decodable & Sendable).Type)? = nil, queue: DispatchQueue? = nil,
        completion: @escaping @Sendable (Result<Response<T>, KonexError>) -> Void
    ) -> RequestHandle {
        decodingErrors(as: errorType).deliver(
            on: queue, { try await $0.response(of: type, atKeyPath: keyPath, decoder: decoder) }, completion: completion
        )
    }

    /// Sends the request and delivers the body.
    @discardableResult
    public func responseData(
        queue: DispatchQueue? = nil, onSuccess: @escaping @Sendable (Data) -> Void,
        onError: @escaping @Sendable (KonexError) -> Void
    ) -> RequestHandle {
        deliver(on: queue, { try await $0.responseData() }, completion: split(onSuccess, onError))
    }

    /// Sends the request and delivers the body as text.
    @discardableResult
    public func responseString(
        encoding: String.Encoding? = nil, queue: DispatchQueue? = nil, onSuccess: @escaping @Sendable (String) -> Void,
        onError: @escaping @Sendable (KonexError) -> Void
    ) -> RequestHandle {
        deliver(on: queue, { try await $0.responseString(encoding: encoding) }, completion: split(onSuccess, onError))
    }

    /// Sends the request and delivers the body as ``JSON``.
    @discardableResult
    public func responseJSON(
        atKeyPath keyPath: String? = nil, queue: DispatchQueue? = nil, onSuccess: @escaping @Sendable (JSON) -> Void,
        onError: @escaping @Sendable (KonexError) -> Void
    ) -> RequestHandle {
        deliver(on: queue, { try await $0.responseJSON(atKeyPath: keyPath) }, completion: split(onSuccess, onError))
    }

    /// Sends the request and delivers one decoded object.
    @discardableResult
    public func responseObject<T: Decodable & Sendable>(
        of type: T.Type, atKeyPath keyPath: String? = nil, decoder: JSONDecoder? = nil,
        errorType: (any (Decodable & Sendable).Type)? = nil, queue: DispatchQueue? = nil,
        onSuccess: @escaping @Sendable (T) -> Void, onError: @escaping @Sendable (KonexError) -> Void
    ) -> RequestHandle {
        decodingErrors(as: errorType).deliver(
            on: queue, { try await $0.responseObject(of: type, atKeyPath: keyPath, decoder: decoder) },
            completion: split(onSuccess, onError))
    }

    /// The Konex 1 spelling of ``responseObject(of:atKeyPath:decoder:errorType:queue:onSuccess:onError:)``.
    @available(*, deprecated, renamed: "responseObject(of:atKeyPath:decoder:errorType:queue:onSuccess:onError:)")
    @discardableResult
    public func responseObject<T: Decodable & Sendable>(
        ofType type: T.Type, atKeyPath keyPath: String? = nil, errorType: (any (Decodable & Sendable).Type)? = nil,
        queue: DispatchQueue? = nil, onSuccess: @escaping @Sendable (T) -> Void,
        onError: @escaping @Sendable (KonexError) -> Void
    ) -> RequestHandle {
        responseObject(
            of: type, atKeyPath: keyPath, errorType: errorType, queue: queue, onSuccess: onSuccess, onError: onError)
    }

    /// Sends the request and delivers a decoded array.
    @discardableResult
    public func responseArray<T: Decodable & Sendable>(
        of type: T.Type, atKeyPath keyPath: String? = nil, decoder: JSONDecoder? = nil,
        errorType: (any (Decodable & Sendable).Type)? = nil, queue: DispatchQueue? = nil,
        onSuccess: @escaping @Sendable ([T]) -> Void, onError: @escaping @Sendable (KonexError) -> Void
    ) -> RequestHandle {
        decodingErrors(as: errorType).deliver(
            on: queue, { try await $0.responseArray(of: type, atKeyPath: keyPath, decoder: decoder) },
            completion: split(onSuccess, onError))
    }

    private func split<Value>(
        _ onSuccess: @escaping @Sendable (Value) -> Void, _ onError: @escaping @Sendable (KonexError) -> Void
    ) -> @Sendable (Result<Value, KonexError>) -> Void {
        { result in
            switch result {
            case .success(let value): onSuccess(value)
            case .failure(let error): onError(error)
            }
        }
    }
}
