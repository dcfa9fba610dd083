import Foundation

/// A WebSocket's messages as they arrive: an `AsyncSequence` that ends when the connection closes cleanly and throws
/// a ``KonexError`` when it breaks.
public struct WebSocketMessages: AsyncSequence, Sendable {
    public typealias Element = WebSocketMessage
    let socket: WebSocket

    public struct AsyncIterator: AsyncIteratorProtocol {
        let socket: WebSocket
        public mutating func next() async throws -> WebSocketMessage? { try await socket.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(socket: socket) }
}

/// A WebSocket's messages decoded as JSON; a message that does not decode throws a `.decoding` ``KonexError``
/// naming the coding path and the start of the message.
public struct DecodedWebSocketMessages<T: Decodable & Sendable>: AsyncSequence, Sendable {
    public typealias Element = T
    let messages: WebSocketMessages
    let decoder: JSONDecoder
    let socket: WebSocket

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: WebSocketMessages.AsyncIterator
        let decoder: JSONDecoder
        let socket: WebSocket

        public mutating func next() async throws -> T? {
            guard let message = try await base.next() else { return nil }
            do {
                return try JSONTape.decode(T.self, from: message.data, with: decoder)
            } catch {
                throw KonexError.decoding(
                    error, keyPath: nil, request: socket.request, response: socket.response, data: message.data)
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: messages.makeAsyncIterator(), decoder: decoder, socket: socket)
    }
}
