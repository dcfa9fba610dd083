import Foundation

// A decoded array: `responseArray(of:)`, every form side by side, as DataRequest+ResponseObject.swift lays them out:
// the `Sendable` forms (async, callbacks on the caller's actor, on a queue), then from Swift 6.2 the caller-isolated
// forms.
extension DataRequest {
    /// Sends the request and decodes an array.
    /// - Parameters:
    ///   - type: The element type.
    ///   - keyPath: A dotted path to a nested array (`"data.items"`).
    ///   - decoder: A decoder for this call; the client's by default.
    ///   - errorType: The server's error model, decoded when validation fails.
    /// - Returns: The decoded elements.
    /// - Throws: ``KonexError``.
    public consuming func responseArray<T: Decodable & Sendable>(
        of type: T.Type, atKeyPath keyPath: String? = nil, decoder: JSONDecoder? = nil,
        errorType: (any (Decodable & Sendable).Type)? = nil
    ) async throws -> [T] {
        try await value(of: [T].self, atKeyPath: keyPath, decoder: decoder, errorType: errorType)
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
}

#if compiler(>=6.2)
    extension DataRequest {
        /// Sends the request and decodes an array on the caller's actor.
        /// - Parameters:
        ///   - type: The element type.
        ///   - keyPath: A dotted path to a nested array (`"data.items"`).
        ///   - decoder: A decoder for this call; the client's by default.
        ///   - errorType: The server's error model, decoded on the caller's actor when validation fails.
        /// - Returns: The decoded elements.
        /// - Throws: ``KonexError``.
        public nonisolated(nonsending) func responseArray<T: Decodable>(
            of type: T.Type, atKeyPath keyPath: String? = nil, decoder: JSONDecoder? = nil,
            errorType: (any Decodable.Type)? = nil
        ) async throws -> [T] {
            let answer = try await executeDecodingErrorsHere(as: errorType)
            return try decoded([T].self, from: answer, atKeyPath: keyPath, decoder: decoder)
        }

        /// Sends the request, decodes an array on the caller's actor and delivers it there.
        /// - Parameters:
        ///   - type: The element type; its conformance may be isolated to the caller's actor.
        ///   - keyPath: A dotted path to a nested array.
        ///   - decoder: A decoder for this call; the client's by default.
        ///   - errorType: The server's error model; read it with ``KonexError/errorBody(as:)-4jv59``.
        ///   - isolation: The caller's actor, where decoding and the callbacks run (leave the default).
        ///   - onSuccess: Called once with the elements.
        ///   - onError: Called once with a ``KonexError``.
        /// - Returns: A handle to cancel the request or wait for it.
        @discardableResult
        public func responseArray<T: Decodable>(
            of type: T.Type, atKeyPath keyPath: String? = nil, decoder: JSONDecoder? = nil,
            errorType: (any Decodable.Type)? = nil, isolation: isolated (any Actor)? = #isolation,
            onSuccess: @escaping ([T]) -> Void, onError: @escaping (KonexError) -> Void
        ) -> RequestHandle {
            deliver(
                isolation: isolation,
                { try await $0.responseArray(of: type, atKeyPath: keyPath, decoder: decoder, errorType: errorType) },
                completion: split(onSuccess, onError))
        }
    }
#endif
