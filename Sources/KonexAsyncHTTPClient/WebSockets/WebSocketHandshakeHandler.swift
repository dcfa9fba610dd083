#if AsyncHTTPClient
    import Foundation
    import Konex
    import NIOCore
    import NIOHTTP1
    import NIOSSL
    import NIOTLS
    import NIOWebSocket

    /// Sends the opening handshake and, when the server refuses it, reads its answer: the status, the headers and the
    /// first 64 KiB of the body become ``Konex/WebSocketHandshakeRefused``. An accepted upgrade never reaches this
    /// handler (NIO's upgrade handler takes the 101 and removes it).
    final class WebSocketHandshakeHandler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPClientResponsePart
        typealias OutboundOut = HTTPClientRequestPart

        /// How much of a refusal's body is kept.
        static let bodyLimit = 64 << 10

        private let target: WebSocketTarget
        /// The pinned keys, over TLS: the request waits for the handshake and a check of the server's key.
        private let pins: [PublicKeyPin]
        private let handshake: EventLoopPromise<NIOWebSocketConnection>
        private var sent = false
        private var refusal: (head: HTTPResponseHead, body: ByteBuffer)?

        init(target: WebSocketTarget, pins: [PublicKeyPin], handshake: EventLoopPromise<NIOWebSocketConnection>) {
            self.target = target
            self.pins = pins
            self.handshake = handshake
        }

        func handlerAdded(context: ChannelHandlerContext) {
            if context.channel.isActive, pins.isEmpty { send(context: context) }
        }

        func channelActive(context: ChannelHandlerContext) {
            if pins.isEmpty { send(context: context) }
            context.fireChannelActive()
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if !pins.isEmpty, case .handshakeCompleted = event as? TLSUserEvent {
                if let failure = pinFailure(context: context) {
                    handshake.fail(TransportFailure(.secureConnectionFailed, url: target.url, underlying: failure))
                    context.close(promise: nil)
                    return
                }
                send(context: context)
            }
            context.fireUserInboundEventTriggered(event)
        }

        /// Why the verified server certificate's key is none of ``pins``; `nil` when it is one.
        private func pinFailure(context: ChannelHandlerContext) -> TLSFailure? {
            let certificate = try? context.pipeline.syncOperations.handler(type: NIOSSLHandler.self).peerCertificate
            let presented = (try? certificate?.toDERBytes()).flatMap { PublicKeyPin(certificateDER: $0) }
            if let presented, pins.contains(presented) { return nil }
            return TLSFailure(.pinMismatch(presented: presented.map { [$0] } ?? []), host: target.host, pins: pins)
        }

        private func send(context: ChannelHandlerContext) {
            guard !sent else { return }
            sent = true
            context.write(wrapOutboundOut(.head(target.head)), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                refusal = (head, context.channel.allocator.buffer(capacity: 0))
            case .body(var part):
                guard let (head, started) = refusal else { return }
                var body = started
                let room = Self.bodyLimit - body.readableBytes
                if room > 0, let slice = part.readSlice(length: min(room, part.readableBytes)) {
                    body.writeImmutableBuffer(slice)
                    refusal = (head, body)
                }
                if body.readableBytes >= Self.bodyLimit { refuse(context: context) }
            case .end:
                refuse(context: context)
            }
        }

        /// Fails the handshake with the server's answer, and closes the connection (it was for the upgrade only).
        private func refuse(context: ChannelHandlerContext) {
            guard let (head, body) = refusal else { return }
            refusal = nil
            handshake.fail(
                WebSocketHandshakeRefused(response: target.response(to: head), data: body.readableData))
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            // A refusal without an end (the server closed after the head) still names its status.
            refuse(context: context)
            handshake.fail(TransportFailure(.networkConnectionLost, url: target.url))
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            handshake.fail(error)
            context.close(promise: nil)
        }
    }
#endif
