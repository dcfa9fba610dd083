import Foundation

// Callback forms of the terminal operations, for code that is not async. Each returns a handle to cancel, and
// delivers exactly one of `onSuccess`/`onError`.
//
// Where the closures run follows Swift's own rule for closures: where they were written. Called from an actor (a
// main-actor view model, or any code in an app target that is main-actor isolated by default), the closures run on
// that actor and may update its state; from nonisolated code, on the task that ran the request. Naming a `queue:`
// picks the older form, whose `@Sendable` closures run on that queue (or, for `nil`, the client's `callbackQueue`).
extension DataRequest {
    /// Sends the request and delivers the envelope or the error, on the caller's actor.
    /// - Parameters:
    ///   - isolation: The caller's actor, where `completion` runs (leave the default).
    ///   - completion: Called once with the response or a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func response(
        isolation: isolated (any Actor)? = #isolation,
        completion: @escaping (Result<Response<Data>, KonexError>) -> Void
    ) -> RequestHandle {
        deliver(isolation: isolation, { try await $0.response() }, completion: completion)
    }

    /// Sends the request and delivers the envelope or the error on `queue`.
    /// - Parameters:
    ///   - queue: Where `completion` runs; `nil` for the client's `callbackQueue`.
    ///   - completion: Called once with the response or a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func response(
        queue: DispatchQueue?, completion: @escaping @Sendable (Result<Response<Data>, KonexError>) -> Void
    ) -> RequestHandle {
        deliver(on: queue, { try await $0.response() }, completion: completion)
    }

    /// Sends the request and delivers the decoded envelope or the error, in one `Result`, on the caller's actor.
    /// - Parameters:
    ///   - type: The type to decode (off the caller's actor: its conformance is nonisolated).
    ///   - keyPath: A dotted path to a nested value.
    ///   - decoder: A decoder for this call; the client's by default.
    ///   - errorType: The server's error model, decoded when validation fails.
    ///   - isolation: The caller's actor, where `completion` runs (leave the default).
    ///   - completion: Called once with the response or a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func response<T: Decodable & Sendable>(
        of type: T.Type, atKeyPath keyPath: String? = nil, decoder: JSONDecoder? = nil,
        errorType: (any (Decodable & Sendable).Type)? = nil, isolation: isolated (any Actor)? = #isolation,
        completion: @escaping (Result<Response<T>, KonexError>) -> Void
    ) -> RequestHandle {
        decodingErrors(as: errorType).deliver(
            isolation: isolation, { try await $0.response(of: type, atKeyPath: keyPath, decoder: decoder) },
            completion: completion)
    }

    /// Sends the request and delivers the decoded envelope or the error, in one `Result`, on `queue`.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - keyPath: A dotted path to a nested value.
    ///   - decoder: A decoder for this call; the client's by default.
    ///   - errorType: The server's error model, decoded when validation fails.
    ///   - queue: Where `completion` runs; `nil` for the client's `callbackQueue`.
    ///   - completion: Called once with the response or a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func response<T: Decodable & Sendable>(
        of type: T.Type, atKeyPath keyPath: String? = nil, decoder: JSONDecoder? = nil,
        errorType: (any (Decodable & Sendable).Type)? = nil, queue: DispatchQueue?,
        completion: @escaping @Sendable (Result<Response<T>, KonexError>) -> Void
    ) -> RequestHandle {
        decodingErrors(as: errorType).deliver(
            on: queue, { try await $0.response(of: type, atKeyPath: keyPath, decoder: decoder) }, completion: completion
        )
    }

    /// Sends the request and delivers the body, on the caller's actor.
    /// - Parameters:
    ///   - isolation: The caller's actor, where the callbacks run (leave the default).
    ///   - onSuccess: Called once with the body.
    ///   - onError: Called once with a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func responseData(
        isolation: isolated (any Actor)? = #isolation, onSuccess: @escaping (Data) -> Void,
        onError: @escaping (KonexError) -> Void
    ) -> RequestHandle {
        deliver(isolation: isolation, { try await $0.responseData() }, completion: split(onSuccess, onError))
    }

    /// Sends the request and delivers the body on `queue`.
    /// - Parameters:
    ///   - queue: Where the callbacks run; `nil` for the client's `callbackQueue`.
    ///   - onSuccess: Called once with the body.
    ///   - onError: Called once with a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func responseData(
        queue: DispatchQueue?, onSuccess: @escaping @Sendable (Data) -> Void,
        onError: @escaping @Sendable (KonexError) -> Void
    ) -> RequestHandle {
        deliver(on: queue, { try await $0.responseData() }, completion: split(onSuccess, onError))
    }

    /// Sends the request and delivers the body as text, on the caller's actor.
    /// - Parameters:
    ///   - encoding: Forces an encoding instead of the response's charset.
    ///   - isolation: The caller's actor, where the callbacks run (leave the default).
    ///   - onSuccess: Called once with the text.
    ///   - onError: Called once with a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func responseString(
        encoding: String.Encoding? = nil, isolation: isolated (any Actor)? = #isolation,
        onSuccess: @escaping (String) -> Void, onError: @escaping (KonexError) -> Void
    ) -> RequestHandle {
        deliver(
            isolation: isolation, { try await $0.responseString(encoding: encoding) },
            completion: split(onSuccess, onError))
    }

    /// Sends the request and delivers the body as text on `queue`.
    /// - Parameters:
    ///   - encoding: Forces an encoding instead of the response's charset.
    ///   - queue: Where the callbacks run; `nil` for the client's `callbackQueue`.
    ///   - onSuccess: Called once with the text.
    ///   - onError: Called once with a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func responseString(
        encoding: String.Encoding? = nil, queue: DispatchQueue?, onSuccess: @escaping @Sendable (String) -> Void,
        onError: @escaping @Sendable (KonexError) -> Void
    ) -> RequestHandle {
        deliver(on: queue, { try await $0.responseString(encoding: encoding) }, completion: split(onSuccess, onError))
    }

    /// Sends the request and delivers the body as ``JSON``, on the caller's actor.
    /// - Parameters:
    ///   - keyPath: A dotted path to a nested value.
    ///   - isolation: The caller's actor, where the callbacks run (leave the default).
    ///   - onSuccess: Called once with the parsed body.
    ///   - onError: Called once with a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func responseJSON(
        atKeyPath keyPath: String? = nil, isolation: isolated (any Actor)? = #isolation,
        onSuccess: @escaping (JSON) -> Void, onError: @escaping (KonexError) -> Void
    ) -> RequestHandle {
        deliver(
            isolation: isolation, { try await $0.responseJSON(atKeyPath: keyPath) },
            completion: split(onSuccess, onError))
    }

    /// Sends the request and delivers the body as ``JSON`` on `queue`.
    /// - Parameters:
    ///   - keyPath: A dotted path to a nested value.
    ///   - queue: Where the callbacks run; `nil` for the client's `callbackQueue`.
    ///   - onSuccess: Called once with the parsed body.
    ///   - onError: Called once with a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func responseJSON(
        atKeyPath keyPath: String? = nil, queue: DispatchQueue?, onSuccess: @escaping @Sendable (JSON) -> Void,
        onError: @escaping @Sendable (KonexError) -> Void
    ) -> RequestHandle {
        deliver(on: queue, { try await $0.responseJSON(atKeyPath: keyPath) }, completion: split(onSuccess, onError))
    }

    /// Sends the request and delivers one decoded object, on the caller's actor.
    ///
    /// ```swift
    /// client.request(GetPost(id: 1)).responseObject(of: Post.self) { post in
    ///     self.post = post  // a main-actor model's state: the closure runs on the main actor
    /// } onError: { error in
    ///     self.error = error
    /// }
    /// ```
    /// - Parameters:
    ///   - type: The type to decode (off the caller's actor: its conformance is nonisolated).
    ///   - keyPath: A dotted path to a nested value.
    ///   - decoder: A decoder for this call; the client's by default.
    ///   - errorType: The server's error model, decoded when validation fails.
    ///   - isolation: The caller's actor, where the callbacks run (leave the default).
    ///   - onSuccess: Called once with the value.
    ///   - onError: Called once with a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func responseObject<T: Decodable & Sendable>(
        of type: T.Type, atKeyPath keyPath: String? = nil, decoder: JSONDecoder? = nil,
        errorType: (any (Decodable & Sendable).Type)? = nil, isolation: isolated (any Actor)? = #isolation,
        onSuccess: @escaping (T) -> Void, onError: @escaping (KonexError) -> Void
    ) -> RequestHandle {
        decodingErrors(as: errorType).deliver(
            isolation: isolation, { try await $0.responseObject(of: type, atKeyPath: keyPath, decoder: decoder) },
            completion: split(onSuccess, onError))
    }

    /// Sends the request and delivers one decoded object on `queue`.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - keyPath: A dotted path to a nested value.
    ///   - decoder: A decoder for this call; the client's by default.
    ///   - errorType: The server's error model, decoded when validation fails.
    ///   - queue: Where the callbacks run; `nil` for the client's `callbackQueue`.
    ///   - onSuccess: Called once with the value.
    ///   - onError: Called once with a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func responseObject<T: Decodable & Sendable>(
        of type: T.Type, atKeyPath keyPath: String? = nil, decoder: JSONDecoder? = nil,
        errorType: (any (Decodable & Sendable).Type)? = nil, queue: DispatchQueue?,
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

    /// Sends the request and delivers a decoded array, on the caller's actor.
    /// - Parameters:
    ///   - type: The element type (decoded off the caller's actor: its conformance is nonisolated).
    ///   - keyPath: A dotted path to a nested array.
    ///   - decoder: A decoder for this call; the client's by default.
    ///   - errorType: The server's error model, decoded when validation fails.
    ///   - isolation: The caller's actor, where the callbacks run (leave the default).
    ///   - onSuccess: Called once with the elements.
    ///   - onError: Called once with a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func responseArray<T: Decodable & Sendable>(
        of type: T.Type, atKeyPath keyPath: String? = nil, decoder: JSONDecoder? = nil,
        errorType: (any (Decodable & Sendable).Type)? = nil, isolation: isolated (any Actor)? = #isolation,
        onSuccess: @escaping ([T]) -> Void, onError: @escaping (KonexError) -> Void
    ) -> RequestHandle {
        decodingErrors(as: errorType).deliver(
            isolation: isolation, { try await $0.responseArray(of: type, atKeyPath: keyPath, decoder: decoder) },
            completion: split(onSuccess, onError))
    }

    /// Sends the request and delivers a decoded array on `queue`.
    /// - Parameters:
    ///   - type: The element type.
    ///   - keyPath: A dotted path to a nested array.
    ///   - decoder: A decoder for this call; the client's by default.
    ///   - errorType: The server's error model, decoded when validation fails.
    ///   - queue: Where the callbacks run; `nil` for the client's `callbackQueue`.
    ///   - onSuccess: Called once with the elements.
    ///   - onError: Called once with a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func responseArray<T: Decodable & Sendable>(
        of type: T.Type, atKeyPath keyPath: String? = nil, decoder: JSONDecoder? = nil,
        errorType: (any (Decodable & Sendable).Type)? = nil, queue: DispatchQueue?,
        onSuccess: @escaping @Sendable ([T]) -> Void, onError: @escaping @Sendable (KonexError) -> Void
    ) -> RequestHandle {
        decodingErrors(as: errorType).deliver(
            on: queue, { try await $0.responseArray(of: type, atKeyPath: keyPath, decoder: decoder) },
            completion: split(onSuccess, onError))
    }

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
