import Foundation

// The callback forms for models whose `Decodable` conformance belongs to the caller's actor (see
// `DataRequest+CallerIsolation.swift` for the async forms and why): the pipeline runs off the actor, the body is decoded
// on it, and the callbacks run there too.
#if compiler(>=6.2)
    extension DataRequest {
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
