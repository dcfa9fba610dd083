#if AsyncHTTPClient
    import Foundation
    import Konex
    import NIOCore
    import NIOWebSocket

    /// RFC 6455 on the event loop, straight after the socket: reads frames (``WebSocketFrameReader``), assembles
    /// fragments (control frames may come between them), checks UTF-8 and sizes, answers pings and closes, and pauses
    /// the socket while the reader is behind.
    ///
    /// Everything here runs on the channel's event loop; ``NIOWebSocketConnection`` reaches it through
    /// `eventLoop.execute`.
    final class WebSocketFrameHandler: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundIn = WebSocketFrame
        /// Frames go out encoded here (``encoded(_:allocator:)``): NIO's frame encoder is taken out of the pipeline.
        typealias OutboundOut = ByteBuffer

        let inbox: WebSocketInbox
        let options: WebSocketOptions
        /// The largest frame read: a frame's payload is held whole until it has all arrived.
        let maximumFrameSize: Int
        /// The bytes of a frame not whole yet, from the reads so far.
        var unread: ByteBuffer?
        var context: ChannelHandlerContext?
        /// The fragments of a message not yet finished; `compressed` when its first frame set RSV1.
        var fragments: (opcode: WebSocketOpcode, bytes: ByteBuffer, compressed: Bool)?
        /// The UTF-8 check of a text message's fragments so far, so text that can no longer be valid fails at once.
        var textCheck = UTF8Validation.Stream()
        /// `permessage-deflate` as agreed, and its two zlib streams.
        let deflate: PerMessageDeflate?
        let compressor: ZlibStream?
        let decompressor: ZlibStream?
        /// Messages the inbox had no room for, in order: while any wait, the socket is not read.
        var held = CircularBuffer<WebSocketMessage>()
        /// Data frames that arrived (from the same socket read) while messages wait, kept as they came on the wire:
        /// assembling or inflating them now would hold megabytes per compressed kilobyte (a deflate bomb) for a
        /// reader that is not reading. Control frames are still handled at once.
        var heldFrames = CircularBuffer<InboundFrame>()
        /// The channel's allocator, kept so held frames can be inflated after the channel is gone.
        var allocator = ByteBufferAllocator()
        /// A `read()` from the channel held back while messages wait.
        var readHeld = false
        /// How the connection ended, kept until the held messages are in the inbox.
        var pendingEnd: WebSocketInbox.End?
        /// This side sent its close frame: no data frame may follow it.
        var closeSent = false
        var closeTimer: Scheduled<Void>?

        init(options: WebSocketOptions, deflate: PerMessageDeflate?, maximumFrameSize: Int) {
            self.options = options
            self.maximumFrameSize = maximumFrameSize
            self.deflate = deflate
            compressor = deflate.map { ZlibStream(.compress, windowBits: $0.clientWindowBits) }
            decompressor = deflate.map { _ in ZlibStream(.decompress, windowBits: 15) }
            inbox = WebSocketInbox(limit: options.receiveBufferLimit, byteLimit: options.receiveBufferBytes)
        }

        func handlerAdded(context: ChannelHandlerContext) {
            self.context = context
            allocator = context.channel.allocator
            let loop = context.eventLoop
            // Weakly: the handler holds the inbox, so a strong reference back would keep both alive for ever.
            let handler = WeakHandler(self)
            inbox.whenRoom { loop.execute { handler.value?.roomMade() } }
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            self.context = nil
            closeTimer?.cancel()
        }

        // MARK: Reading

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            if var earlier = unread {
                unread = nil  // one reference, so the append does not copy the bytes so far
                earlier.writeBuffer(&buffer)
                buffer = earlier
            }
            while pendingEnd == nil, inbox.end == nil {
                let frame: InboundFrame?
                do {
                    frame = try WebSocketFrameReader.frame(in: &buffer, maximumSize: maximumFrameSize)
                } catch {
                    return refused(error)
                }
                guard let frame else { break }
                frameArrived(frame, context: context)
            }
            // What is left is the start of a frame (or nothing); after the end, nothing more is read.
            if buffer.readableBytes > 0, pendingEnd == nil, inbox.end == nil { unread = buffer }
        }

        /// A frame the reader could not accept: too long for the limit (1009), or a control frame that breaks §5.5.
        func refused(_ refusal: WebSocketFrameReader.Refusal) {
            switch refusal {
            case .tooLong:
                fail(
                    .messageTooBig, closeCode: .messageTooBig,
                    "a frame was over maximumMessageSize (\(options.maximumMessageSize) bytes): closed with 1009")
            case .fragmentedControlFrame:
                violate("a control frame came without FIN (control frames are never fragmented)")
            case .longControlFrame(let length):
                violate("a control frame carried \(length) bytes (125 at most)")
            }
        }

        /// One whole frame from the server.
        func frameArrived(_ frame: InboundFrame, context: ChannelHandlerContext) {
            // A server never masks (§5.1), and no extension was agreed, so no reserved bit may be set (§5.2).
            guard !frame.isMasked else { return violate("the server masked a frame") }
            // RSV1 marks a compressed message, on its first frame only, and only once permessage-deflate is agreed.
            let compressedStart = frame.rsv1 && deflate != nil && (frame.opcode == .text || frame.opcode == .binary)
            guard frame.rsv1 == compressedStart, !frame.otherReservedBits else {
                return violate("a frame set a reserved bit without an extension that defines it")
            }
            switch frame.opcode {
            case .text, .binary, .continuation:
                // After this side's close, no data is wanted; before it, data waits in order for a reader behind.
                guard !closeSent else { return }
                if held.isEmpty && heldFrames.isEmpty { dataArrived(frame) } else { heldFrames.append(frame) }
            case .ping:
                guard !closeSent else { return }
                context.writeAndFlush(
                    wrapOutboundOut(Self.encoded(Self.frame(.pong, frame.data), allocator: allocator)), promise: nil)
            case .pong:
                inbox.pongArrived()
            case .connectionClose:
                closeArrived(frame.data, context: context)
            default:
                violate("a frame with the reserved opcode \(frame.opcode)")
            }
        }

        /// A data frame: assembled into a message, which is delivered once whole.
        func dataArrived(_ frame: InboundFrame) {
            if frame.opcode == .continuation {
                guard var message = fragments else {
                    return violate("a continuation frame came with no message to continue")
                }
                fragments = nil  // one reference, so the append does not copy the bytes so far
                var data = frame.data
                message.bytes.writeBuffer(&data)
                fragments = message
            } else {
                guard fragments == nil else {
                    return violate("a new message began before the fragments of the last one ended")
                }
                fragments = (frame.opcode, frame.data, frame.rsv1 && deflate != nil)
                textCheck = UTF8Validation.Stream()
            }
            // A fragment of uncompressed text is checked as it comes (RFC 6455 §8.1: fail fast); the last one with the
            // whole message below.
            if !frame.fin, let (opcode, _, compressed) = fragments, opcode == .text, !compressed,
                !frame.data.withUnsafeReadableBytes({ textCheck.append($0) })
            {
                fragments = nil
                return invalidText()
            }
            fragmentArrived(fin: frame.fin)
        }

        /// A fragment was added: a message over the limit is closed with 1009, a finished one is delivered.
        func fragmentArrived(fin: Bool) {
            guard let (opcode, received, compressed) = fragments else { return }
            guard received.readableBytes <= options.maximumMessageSize else {
                fragments = nil
                return tooBig()
            }
            guard fin else { return }
            fragments = nil
            var bytes = received
            if compressed, let decompressor {
                switch decompressor.decompress(received, limit: options.maximumMessageSize, allocator: allocator)
                {
                case .message(let inflated): bytes = inflated
                case .tooBig: return tooBig()
                case .invalid: return violate("a compressed message did not inflate (permessage-deflate)")
                }
                if deflate?.serverNoContextTakeover == true { decompressor.reset() }
            }
            if opcode == .binary { return deliver(.binary(bytes.readableData)) }
            guard let text = bytes.validUTF8String else { return invalidText() }
            deliver(.text(text))
        }

        func invalidText() {
            fail(
                .protocolViolation, closeCode: .invalidFramePayloadData,
                "a text message was not valid UTF-8: closed with 1007")
        }

        func tooBig() {
            fail(
                .messageTooBig, closeCode: .messageTooBig,
                "a message was over maximumMessageSize (\(options.maximumMessageSize) bytes): closed with 1009")
        }

        func deliver(_ message: WebSocketMessage) {
            if held.isEmpty, inbox.deliver(message) != .full { return }
            held.append(message)
        }

        /// The reader took a message from a full inbox: move held messages in, then the held frames, and read the
        /// socket again once none wait.
        func roomMade() {
            while let message = held.first {
                if inbox.deliver(message) == .full { return }
                held.removeFirst()
            }
            while held.isEmpty, inbox.end == nil, let frame = heldFrames.popFirst() { dataArrived(frame) }
            guard held.isEmpty, heldFrames.isEmpty else { return }
            if let end = pendingEnd {
                pendingEnd = nil
                inbox.finish(end)
            }
            if readHeld, let context {
                readHeld = false
                context.read()
            }
        }

        func read(context: ChannelHandlerContext) {
            // Back pressure: while the reader is behind, the socket's buffer fills and TCP slows the server down. Once
            // this side has sent its close, the socket is read again, so the peer's answer is seen at once.
            if closeSent || (held.isEmpty && heldFrames.isEmpty) { context.read() } else { readHeld = true }
        }

        // MARK: Writing

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            let frame = unwrapOutboundIn(data)
            // After this side's close frame only the close handshake may follow (§5.5.1).
            if closeSent, frame.opcode != .connectionClose {
                promise?.fail(WebSocketFailure(.connectionLost, "the connection is closing"))
                return
            }
            // Compressed here, on the loop, so the shared window sees messages in the order they go out.
            if let compressor, frame.opcode == .text || frame.opcode == .binary {
                guard let compressed = compressor.compress(frame.data, allocator: context.channel.allocator) else {
                    promise?.fail(WebSocketFailure(.protocolViolation, "the message could not be compressed"))
                    return
                }
                if deflate?.clientNoContextTakeover == true { compressor.reset() }
                let sent = WebSocketFrame(
                    fin: true, rsv1: true, opcode: frame.opcode, maskKey: frame.maskKey, data: compressed)
                return context.write(wrapOutboundOut(Self.encoded(sent, allocator: allocator)), promise: promise)
            }
            context.write(wrapOutboundOut(Self.encoded(frame, allocator: allocator)), promise: promise)
        }
    }

    /// A weak reference to the handler for the inbox's room callback, dereferenced only on the handler's event loop.
    private final class WeakHandler: @unchecked Sendable {  // `value` is read on the event loop alone
        weak var value: WebSocketFrameHandler?
        init(_ value: WebSocketFrameHandler) { self.value = value }
    }

#endif
