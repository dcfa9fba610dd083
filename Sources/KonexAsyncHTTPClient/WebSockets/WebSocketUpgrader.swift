#if AsyncHTTPClient
    import NIOCore
    import NIOHTTP1
    import NIOWebSocket

    /// NIO's WebSocket upgrade without NIO's frame encoder: the handshake's key and its check are NIO's, and the
    /// pipeline gets NIO's frame decoder and Konex's frame handler, which encodes what it sends itself (masking a
    /// word at a time; NIO's encoder masks a byte at a time).
    final class WebSocketUpgrader: NIOHTTPClientProtocolUpgrader, Sendable {
        let supportedProtocol = "websocket"
        let requiredUpgradeHeaders: [String] = []
        /// Writes `Sec-WebSocket-Key` and checks `Sec-WebSocket-Accept`; its own pipeline step is never used.
        private let handshake: NIOWebSocketClientUpgrader
        private let maxFrameSize: Int
        private let upgraded: @Sendable (any Channel, HTTPResponseHead) -> EventLoopFuture<Void>

        /// - Parameters:
        ///   - maxFrameSize: The largest frame the decoder accepts.
        ///   - upgraded: Adds the frame handler, once the decoder is in place.
        init(
            maxFrameSize: Int, upgraded: @escaping @Sendable (any Channel, HTTPResponseHead) -> EventLoopFuture<Void>
        ) {
            handshake = NIOWebSocketClientUpgrader(maxFrameSize: maxFrameSize, automaticErrorHandling: false) {
                channel, _ in channel.eventLoop.makeSucceededVoidFuture()
            }
            self.maxFrameSize = maxFrameSize
            self.upgraded = upgraded
        }

        func addCustom(upgradeRequestHeaders: inout HTTPHeaders) {
            handshake.addCustom(upgradeRequestHeaders: &upgradeRequestHeaders)
        }

        func shouldAllowUpgrade(upgradeResponse: HTTPResponseHead) -> Bool {
            handshake.shouldAllowUpgrade(upgradeResponse: upgradeResponse)
        }

        func upgrade(context: ChannelHandlerContext, upgradeResponse: HTTPResponseHead) -> EventLoopFuture<Void> {
            let channel = context.channel
            let maxFrameSize = self.maxFrameSize
            return channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(
                    ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: maxFrameSize)))
            }
            .flatMap { self.upgraded(channel, upgradeResponse) }
        }
    }
#endif
