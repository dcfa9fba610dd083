import Foundation

/// A WebSocket's messages as they arrive: an `AsyncSequence` that ends when the connection closes cleanly and throws
/// a ``KonexError`` when it breaks.
public struct WebSocketMessages: AsyncSequence, Sendable {
    public typealias Element = WebSocketMessage
    let socket: WebSocket

    public struct AsyncIterator: AsyncIteratorProtocol {
        let socket: WebSocket
        // Called on the reader's actor (6.2): an iterator kept in a main-actor model's `var` and read with
        // `next()` by hand is not sent anywhere; the wait itself is the socket's.
        #if compiler(>=6.2)
            public nonisolated(nonsending) mutating func next() async throws -> WebSocketMessage? {
                try await socket.next()
            }
        #else
            public mutating func next() async throws -> WebSocketMessage? { try await socket.next() }
        #endif
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(socket: socket) }
}

/// A WebSocket's messages decoded as JSON; a message that does not decode throws a `.decoding` ``KonexError``
/// naming the coding path and the start of the message.
///
/// As with ``JSONLines``, a model whose conformance belongs to the reader's actor is decoded there.
public struct DecodedWebSocketMessages<T: Decodable>: AsyncSequence {
    public typealias Element = T
    let messages: WebSocketMessages
    let decoder: JSONDecoder
    let socket: WebSocket
    /// Whether messages are decoded on the reader's actor (the model's conformance may belong to it).
    let decodesOnReader: Bool

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: WebSocketMessages.AsyncIterator
        let decoder: JSONDecoder
        let socket: WebSocket
        let decodesOnReader: Bool

        public mutating func next() async throws -> T? {
            guard let message = try await base.next() else { return nil }
            return try decode(message)
        }

        /// Reads the next message off the reader's actor and, for a model isolated to it, decodes it here.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> T? {
            guard decodesOnReader else {
                // As in `JSONLines`: off the actor for a nonisolated (`Sendable`) model; the iterator is the reader's.
                nonisolated(unsafe) var iterator = self
                defer { self = iterator }
                return try await iterator.next()
            }
            guard let message = try await base.next(isolation: actor) else { return nil }
            return try decode(message)
        }

        private func decode(_ message: WebSocketMessage) throws -> T {
            do {
                return try JSONTape.decode(T.self, from: message.data, with: decoder)
            } catch {
                throw KonexError.decoding(
                    error, keyPath: nil, request: socket.request, response: socket.response, data: message.data)
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            base: messages.makeAsyncIterator(), decoder: decoder, socket: socket, decodesOnReader: decodesOnReader)
    }
}

extension DecodedWebSocketMessages: Sendable where T: Sendable {}
