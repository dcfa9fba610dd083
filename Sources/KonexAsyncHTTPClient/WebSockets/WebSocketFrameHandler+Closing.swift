#if AsyncHTTPClient
    import Foundation
    import Konex
    import NIOCore
    import NIOWebSocket

    // The closing handshake (RFC 6455 §5.5.1, §7) and how a connection ends: a close frame either way, a protocol
    // violation, a dropped connection, an error in the pipeline.
    extension WebSocketFrameHandler {
        /// The peer's close frame: an answer to ours ends the connection; one of its own is echoed first (§5.5.1).
        func closeArrived(_ payload: ByteBuffer, context: ChannelHandlerContext) {
            let code: WebSocketCloseCode
            let reason: String?
            switch WebSocketClosePayload.parse(payload.readableBytesView) {
            case .closed(let said, let text): (code, reason) = (said, text)
            case .violation(let message, let closeCode):
                return fail(.protocolViolation, closeCode: closeCode, "\(message): closed with \(closeCode)")
            }
            if !closeSent { _ = sendClose(code == .noStatusReceived ? nil : code, context: context) }  // echo its code
            end(Self.end(forPeerCode: code, reason: reason))
            context.close(promise: nil)
        }

        /// Starts the closing handshake: the close frame, then the peer's answer or, after the close timeout, a
        /// dropped connection (1006: it never answered).
        func close(code: WebSocketCloseCode, reason: String) {
            guard let context, !closeSent else { return }
            // 1005 and 1006 report; they are never sent (§7.4.1).
            let sent: WebSocketCloseCode =
                code == .noStatusReceived || code == .abnormalClosure ? .normalClosure : code
            // The app closes: data it has not read yet is not wanted, and the end is not held behind it.
            held.removeAll()
            heldFrames.removeAll()
            fragments = nil
            _ = sendClose(sent, reason: reason, context: context)
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            let timeout = options.closeTimeout
            let wait = max(.zero, min(timeout, .seconds(86_400 * 365)))  // a year at most: NIO's deadlines overflow
            closeTimer = context.eventLoop.scheduleTask(in: .nanoseconds(wait.nanoseconds)) {
                handler.value.end(.unansweredClose(after: timeout))
                handler.value.context?.close(promise: nil)
            }
        }

        /// Drops the connection at once.
        func abort(_ failure: WebSocketFailure) {
            end(.failed(failure))
            context?.close(promise: nil)
        }

        /// The peer broke the protocol: close with 1002.
        func violate(_ message: String) {
            fail(.protocolViolation, closeCode: .protocolError, "\(message): closed with 1002")
        }

        /// Fails the connection: the close frame with `closeCode` goes out, then the socket closes.
        func fail(_ kind: WebSocketFailure.Kind, closeCode: WebSocketCloseCode, _ message: String) {
            guard let context else { return }
            end(.failed(WebSocketFailure(kind, message, closeCode: closeCode)))
            if !closeSent {
                let channel = context.channel
                sendClose(closeCode, context: context).whenComplete { _ in channel.close(promise: nil) }
            } else {
                context.close(promise: nil)
            }
        }

        /// Sends this side's one close frame: `code` (none for an empty close) and `reason`, cut to what a control
        /// frame holds (125 bytes, two of them the code). No data frame may follow it.
        func sendClose(_ code: WebSocketCloseCode?, reason: String = "", context: ChannelHandlerContext)
            -> EventLoopFuture<Void>
        {
            closeSent = true
            if readHeld {  // the peer's answer must be read, however far behind the reader is
                readHeld = false
                context.read()
            }
            let payload = context.channel.allocator.buffer(bytes: WebSocketClosePayload.encode(code, reason: reason))
            return context.writeAndFlush(
                wrapOutboundOut(Self.encoded(Self.frame(.connectionClose, payload), allocator: allocator)))
        }

        /// Records how the connection ended (the first end wins), after any held messages.
        func end(_ end: WebSocketInbox.End) {
            fragments = nil
            closeTimer?.cancel()
            closeTimer = nil
            if held.isEmpty && heldFrames.isEmpty {
                inbox.finish(end)
            } else if pendingEnd == nil {
                pendingEnd = end
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            if closeSent {
                end(.closed(.abnormalClosure, reason: "the server closed the connection without answering the close"))
            } else {
                end(
                    .failed(
                        WebSocketFailure(
                            .connectionLost, "the connection ended without a close frame",
                            closeCode: .abnormalClosure)))
            }
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            abort(WebSocketFailure(.connectionLost, "the connection failed: \(error)", closeCode: .abnormalClosure))
        }
    }

#endif
