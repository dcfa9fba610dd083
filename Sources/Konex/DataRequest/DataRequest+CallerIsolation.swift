import Foundation

// Terminals for models whose `Decodable` conformance belongs to the caller's actor.
//
// In a target that is main-actor isolated by default (Xcode 26's app template: `defaultIsolation(MainActor.self)` with
// `InferIsolatedConformances`), `struct Post: Codable` conforms on the main actor, and Swift refuses it wherever a
// conformance may be used off that actor, such as the `Decodable & Sendable` parameters of the usual terminals. The
// forms below take any `Decodable`: the pipeline still runs off the caller's actor (the request, the transport, the
// validators), and only the last step, decoding, runs where the call was made. Overload resolution picks them by
// itself: a `Sendable` model whose conformance is nonisolated keeps the usual form and is decoded off the actor.
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

        /// Runs the pipeline (off the caller's actor, as every terminal does); a validation failure gets its body
        /// checked against `errorType` here, where the type's conformance may be used.
        nonisolated(nonsending) func executeDecodingErrorsHere(as errorType: (any Decodable.Type)?) async throws
            -> ReceivedResponse
        {
            do {
                return try await execute()
            } catch var failure as KonexError {
                guard let errorType, failure.stage == .validation, let data = failure.data, !data.isEmpty else {
                    throw failure
                }
                do {
                    // Kept as text: the value's conformance, and so perhaps the value, belongs to this actor, and
                    // the error may travel. `errorBody(as:)` decodes it again where it is read.
                    failure.errorBodyText = String(
                        describing: try JSONTape.decode(errorType, from: data, with: client.decoder))
                } catch {
                    failure.message += ErrorBodyDecoder.mismatch(String(describing: errorType), error)
                }
                throw failure
            }
        }
    }
#endif
