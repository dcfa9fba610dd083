import Foundation

// One decoded object: `response(of:)` (the envelope) and `responseObject(of:)`, every form side by side. First the
// forms for `Sendable` models (decoded off the caller's actor): async, callbacks on the caller's actor, callbacks on a
// queue, the Konex 1 spellings; then, from Swift 6.2, the forms for models whose conformance belongs to the caller's
// actor (decoded there; DataRequest+CallerIsolation.swift says how). <doc:ResponsesAndDecoding> has the table of which
// form runs where.
extension DataRequest {
    /// Sends the request and decodes the body as `type`, returning the envelope.
    /// - Parameters:
    ///   - type: The type to decode; `Empty` or an optional accept an empty body.
    ///   - keyPath: A dotted path to a nested value (`"data.items"`), found without re-serializing.
    ///   - decoder: A decoder for this call; the client's by default.
    ///   - errorType: The server's error model, decoded when validation fails.
    /// - Throws: ``KonexError``.
    public consuming func response<T: Decodable & Sendable>(
        of type: T.Type, atKeyPath keyPath: String? = nil, decoder: JSONDecoder? = nil,
        errorType: (any (Decodable & Sendable).Type)? = nil
    ) async throws -> Response<T> {
        let request = decodingErrors(as: errorType)
        let answer = try await request.execute()
        return Response(try request.decoded(type, from: answer, atKeyPath: keyPath, decoder: decoder), of: answer)
    }

    /// Sends the request and decodes one object.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - keyPath: A dotted path to a nested value (`"data.user"`).
    ///   - decoder: A decoder for this call; the client's by default.
    ///   - errorType: The server's error model, decoded when validation fails.
    /// - Returns: The decoded value.
    /// - Throws: ``KonexError``; decoding failures carry the coding path and the start of the body.
    public consuming func responseObject<T: Decodable & Sendable>(
        of type: T.Type, atKeyPath keyPath: String? = nil, decoder: JSONDecoder? = nil,
        errorType: (any (Decodable & Sendable).Type)? = nil
    ) async throws -> T {
        try await value(of: type, atKeyPath: keyPath, decoder: decoder, errorType: errorType)
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

    /// The Konex 1 spelling of `responseObject(of:atKeyPath:decoder:errorType:)`.
    @available(*, deprecated, renamed: "responseObject(of:atKeyPath:decoder:errorType:)")
    public consuming func responseObject<T: Decodable & Sendable>(
        ofType type: T.Type, atKeyPath keyPath: String? = nil, decoder: JSONDecoder? = nil,
        errorType: (any (Decodable & Sendable).Type)? = nil
    ) async throws -> T {
        try await responseObject(of: type, atKeyPath: keyPath, decoder: decoder, errorType: errorType)
    }
}

#if compiler(>=6.2)
    extension DataRequest {
        /// Sends the request and decodes the body as `type` on the caller's actor, returning the envelope.
        ///
        /// Chosen for models whose conformance is isolated to the caller's actor (a main-actor app's own models);
        /// see <doc:AppsOnTheMainActor> for what it costs.
        /// - Parameters:
        ///   - type: The type to decode; `Empty` or an optional accept an empty body.
        ///   - keyPath: A dotted path to a nested value (`"data.items"`).
        ///   - decoder: A decoder for this call; the client's by default.
        ///   - errorType: The server's error model, decoded on the caller's actor when validation fails; read it with
        ///     ``KonexError/errorBody(as:)-4jv59``.
        /// - Throws: ``KonexError``.
        public nonisolated(nonsending) func response<T: Decodable>(
            of type: T.Type, atKeyPath keyPath: String? = nil, decoder: JSONDecoder? = nil,
            errorType: (any Decodable.Type)? = nil
        ) async throws -> Response<T> {
            let answer = try await executeDecodingErrorsHere(as: errorType)
            return Response(try decoded(type, from: answer, atKeyPath: keyPath, decoder: decoder), of: answer)
        }

        /// Sends the request and decodes one object on the caller's actor.
        ///
        /// ```swift
        /// struct Post: Codable { let id: Int; let title: String }  // main-actor isolated in an Xcode 26 app
        /// let post = try await client.request(GetPost(id: 1)).validate().responseObject(of: Post.self)
        /// ```
        /// - Parameters:
        ///   - type: The type to decode.
        ///   - keyPath: A dotted path to a nested value (`"data.user"`).
        ///   - decoder: A decoder for this call; the client's by default.
        ///   - errorType: The server's error model, decoded on the caller's actor when validation fails.
        /// - Returns: The decoded value.
        /// - Throws: ``KonexError``; decoding failures carry the coding path and the start of the body.
        public nonisolated(nonsending) func responseObject<T: Decodable>(
            of type: T.Type, atKeyPath keyPath: String? = nil, decoder: JSONDecoder? = nil,
            errorType: (any Decodable.Type)? = nil
        ) async throws -> T {
            let answer = try await executeDecodingErrorsHere(as: errorType)
            return try decoded(type, from: answer, atKeyPath: keyPath, decoder: decoder)
        }

        /// Sends the request, decodes the body on the caller's actor and delivers the envelope or the error there.
        /// - Parameters:
        ///   - type: The type to decode; its conformance may be isolated to the caller's actor.
        ///   - keyPath: A dotted path to a nested value.
        ///   - decoder: A decoder for this call; the client's by default.
        ///   - errorType: The server's error model; read it with ``KonexError/errorBody(as:)-4jv59``.
        ///   - isolation: The caller's actor, where decoding and `completion` run (leave the default).
        ///   - completion: Called once with the response or a ``KonexError``.
        /// - Returns: A handle to cancel the request or wait for it.
        @discardableResult
        public func response<T: Decodable>(
            of type: T.Type, atKeyPath keyPath: String? = nil, decoder: JSONDecoder? = nil,
            errorType: (any Decodable.Type)? = nil, isolation: isolated (any Actor)? = #isolation,
            completion: @escaping (Result<Response<T>, KonexError>) -> Void
        ) -> RequestHandle {
            deliver(
                isolation: isolation,
                { try await $0.response(of: type, atKeyPath: keyPath, decoder: decoder, errorType: errorType) },
                completion: completion)
        }

        /// Sends the request, decodes one object on the caller's actor and delivers it there.
        /// - Parameters:
        ///   - type: The type to decode; its conformance may be isolated to the caller's actor.
        ///   - keyPath: A dotted path to a nested value.
        ///   - decoder: A decoder for this call; the client's by default.
        ///   - errorType: The server's error model; read it with ``KonexError/errorBody(as:)-4jv59``.
        ///   - isolation: The caller's actor, where decoding and the callbacks run (leave the default).
        ///   - onSuccess: Called once with the value.
        ///   - onError: Called once with a ``KonexError``.
        /// - Returns: A handle to cancel the request or wait for it.
        @discardableResult
        public func responseObject<T: Decodable>(
            of type: T.Type, atKeyPath keyPath: String? = nil, decoder: JSONDecoder? = nil,
            errorType: (any Decodable.Type)? = nil, isolation: isolated (any Actor)? = #isolation,
            onSuccess: @escaping (T) -> Void, onError: @escaping (KonexError) -> Void
        ) -> RequestHandle {
            deliver(
                isolation: isolation,
                { try await $0.responseObject(of: type, atKeyPath: keyPath, decoder: decoder, errorType: errorType) },
                completion: split(onSuccess, onError))
        }
    }
#endif
