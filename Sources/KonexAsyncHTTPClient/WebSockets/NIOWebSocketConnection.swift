#if AsyncHTTPClient
    import Foundation
    import Konex
    import NIOCore
    import NIOWebSocket

    /// An upgraded NIO channel as a ``Konex/WebSocketChannel``: the reader drains the frame handler's inbox, and
    /// everything else goes to the event loop.
    final class NIOWebSocketConnection: WebSocketChannel {
        let response: ResponseHead
        private let channel: any Channel
        private let handler: NIOLoopBound<WebSocketFrameHandler>
        private let inbox: WebSocketInbox

        /// Called on the event loop, as the upgrade completes.
        init(channel: any Channel, handler: WebSocketFrameHandler, response: ResponseHead) {
            self.channel = channel
            self.handler = NIOLoopBound(handler, eventLoop: channel.eventLoop)
            self.response = response
            inbox = handler.inbox
        }

        func send(_ message: WebSocketMessage) async throws {
            guard inbox.end == nil else { throw WebSocketFailure(.connectionLost, "the connection is closed") }
            let frame: WebSocketFrame
            switch message {
            case .text(let text):
                var buffer = channel.allocator.buffer(capacity: text.utf8.count)
                buffer.writeString(text)
                frame = WebSocketFrameHandler.frame(.text, buffer)
            case .binary(let data):
                frame = WebSocketFrameHandler.frame(.binary, channel.allocator.buffer(bytes: data))
            }
            // Completes once the frame is on the socket: a server that reads slowly slows the sender too. A sender
            // cancelled while it waits (a server that stopped reading) stops waiting; the frame stays queued.
            let written = channel.eventLoop.makePromise(of: Void.self)
            channel.writeAndFlush(frame, promise: written)
            do {
                try await withTaskCancellationHandler {
                    try await written.futureResult.get()
                } onCancel: {
                    written.fail(CancellationError())
                }
            } catch let failure as WebSocketFailure {
                throw failure
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw WebSocketFailure(.connectionLost, "the message could not be sent: \(error)")
            }
        }

        func receive() async throws -> WebSocketMessage? { try await inbox.receive() }

        func ping() async throws {
            let channel = self.channel
            try await inbox.awaitPong {
                var generator = SystemRandomNumberGenerator()
                let frame = WebSocketFrameHandler.frame(
                    .ping, channel.allocator.buffer(integer: UInt64.random(in: .min ... .max, using: &generator)))
                channel.writeAndFlush(frame, promise: nil)
            }
        }

        func close(code: WebSocketCloseCode, reason: String) async {
            let handler = self.handler
            channel.eventLoop.execute { handler.value.close(code: code, reason: reason) }
            // The channel closes when the peer answers, or when the handler's close timeout drops it.
            try? await channel.closeFuture.get()
        }

        func abort() {
            let handler = self.handler
            channel.eventLoop.execute {
                handler.value.abort(
                    WebSocketFailure(.connectionLost, "the connection was dropped", closeCode: .abnormalClosure))
            }
        }

        /// The connection's event loop: a reader that prefers it reads and writes without a thread hop.
        @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
        var taskExecutor: (any TaskExecutor)? { EventLoopTaskExecutor(channel.eventLoop) }

        var closeCode: WebSocketCloseCode? { inbox.closeCode }

        var closeReason: String? { inbox.closeReason }
    }
#endif
