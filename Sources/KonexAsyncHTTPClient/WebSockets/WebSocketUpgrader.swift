#if AsyncHTTPClient
    import NIOCore
    import NIOHTTP1
    import NIOWebSocket

    /// NIO's WebSocket upgrade without NIO's frame codec: the handshake's key and its check are NIO's, and the
    /// pipeline gets Konex's frame handler, which reads frames off the socket's bytes (``WebSocketFrameReader``) and
    /// encodes what it sends itself (masking a word at a time; NIO's encoder masks a byte at a time).
    final class WebSocketUpgrader: NIOHTTPClientProtocolUpgrader, Sendable {
        let supportedProtocol = "websocket"
        let requiredUpgradeHeaders: [String] = []
        /// Writes `Sec-WebSocket-Key` and checks `Sec-WebSocket-Accept`; its own pipeline step is never used.
        private let handshake: NIOWebSocketClientUpgrader
        private let upgraded: @Sendable (any Channel, HTTPResponseHead) -> EventLoopFuture<Void>

        /// - Parameter upgraded: Adds the frame handler once the server has agreed.
        init(upgraded: @escaping @Sendable (any Channel, HTTPResponseHead) -> EventLoopFuture<Void>) {
            handshake = NIOWebSocketClientUpgrader(automaticErrorHandling: false) { channel, _ in
                channel.eventLoop.makeSucceededVoidFuture()
            }
            self.upgraded = upgraded
        }

        func addCustom(upgradeRequestHeaders: inout HTTPHeaders) {
            handshake.addCustom(upgradeRequestHeaders: &upgradeRequestHeaders)
        }

        func shouldAllowUpgrade(upgradeResponse: HTTPResponseHead) -> Bool {
            handshake.shouldAllowUpgrade(upgradeResponse: upgradeResponse)
        }

        func upgrade(context: ChannelHandlerContext, upgradeResponse: HTTPResponseHead) -> EventLoopFuture<Void> {
            upgraded(context.channel, upgradeResponse)
        }
    }
#endif
