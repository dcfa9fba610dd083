import Foundation

// Messages as JSON: sent encoded, read decoded, with the client's coders by default.
extension WebSocket {
    // Encoded on the caller's actor where Swift can say so (6.2): the value's conformance may belong to it.
    #if compiler(>=6.2)
        /// Sends `value` as a JSON text message, encoded on the caller's actor.
        /// - Parameters:
        ///   - value: The value.
        ///   - encoder: An encoder; the client's by default.
        /// - Throws: ``KonexError``: `.invalidRequest` when the value does not encode.
        public nonisolated(nonsending) func send<T: Encodable>(json value: T, encoder: JSONEncoder? = nil)
            async throws
        { try await send(jsonMessage(value, encoder: encoder)) }
    #else
        /// Sends `value` as a JSON text message.
        /// - Parameters:
        ///   - value: The value.
        ///   - encoder: An encoder; the client's by default.
        /// - Throws: ``KonexError``: `.invalidRequest` when the value does not encode.
        public func send<T: Encodable>(json value: T, encoder: JSONEncoder? = nil) async throws {
            try await send(jsonMessage(value, encoder: encoder))
        }
    #endif

    /// `value` as a JSON text message, encoded where the caller is.
    private func jsonMessage<T: Encodable>(_ value: T, encoder: JSONEncoder?) throws -> WebSocketMessage {
        do {
            let data = try (encoder ?? source.client.encoder).encode(value)
            return .text(String(decoding: data, as: UTF8.self))
        } catch {
            throw KonexError.invalidRequest(
                "the message of type \(T.self) does not encode as JSON: \(error)", method: request.method)
        }
    }

    /// Each message decoded as JSON (a text message's UTF-8, or a binary message's bytes).
    /// - Parameters:
    ///   - type: The type of each message.
    ///   - decoder: A decoder; the client's by default.
    public func messages<T: Decodable & Sendable>(decoding type: T.Type, decoder: JSONDecoder? = nil)
        -> DecodedWebSocketMessages<T>
    {
        DecodedWebSocketMessages(
            messages: messages, decoder: decoder ?? source.client.decoder, socket: self, decodesOnReader: false)
    }

    #if compiler(>=6.2)
        /// Each message decoded as JSON on the reader's actor, for a model whose conformance belongs to it.
        /// - Parameters:
        ///   - type: The type of each message.
        ///   - decoder: A decoder; the client's by default.
        public func messages<T: Decodable>(decoding type: T.Type, decoder: JSONDecoder? = nil)
            -> DecodedWebSocketMessages<T>
        {
            DecodedWebSocketMessages(
                messages: messages, decoder: decoder ?? source.client.decoder, socket: self, decodesOnReader: true)
        }
    #endif
}
