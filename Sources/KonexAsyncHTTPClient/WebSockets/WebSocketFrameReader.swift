#if AsyncHTTPClient
    import NIOCore
    import NIOWebSocket

    /// A frame as the server sent it (RFC 6455 §5.2), read in place from the socket's bytes.
    struct InboundFrame {
        var fin: Bool
        var rsv1: Bool
        /// RSV2 or RSV3: no extension Konex agrees to defines them.
        var otherReservedBits: Bool
        var opcode: WebSocketOpcode
        /// Whether the server masked it, which a server never may (§5.1): its payload is left masked.
        var isMasked: Bool
        var data: ByteBuffer
    }

    /// Reads frames straight off the socket's bytes, for the frame handler: a frame is a header read and a slice of
    /// the buffer, with no pipeline step, no `NIOAny` and no allocation between the socket and the message. SwiftNIO's
    /// decoder (a state machine a byte field at a time, a frame object, a pipeline hop and a dynamic cast) cost more
    /// than the rest of a 64-byte fragment's handling (Autobahn 9.4.1: 65,536 fragments a message).
    enum WebSocketFrameReader {
        /// Why a frame cannot be read; the connection fails.
        enum Refusal: Error, Equatable {
            /// The payload is longer than the largest frame accepted.
            case tooLong(Int)
            /// A control frame without FIN (§5.5: control frames are never fragmented).
            case fragmentedControlFrame
            /// A control frame of more than 125 bytes (§5.5).
            case longControlFrame(Int)
        }

        /// The frame at the start of `buffer`, which is moved past it; `nil` (and `buffer` untouched) until the whole
        /// frame has arrived. A header that breaks a rule throws as soon as it is read, before its payload comes.
        static func frame(in buffer: inout ByteBuffer, maximumSize: Int) throws(Refusal) -> InboundFrame? {
            let start = buffer.readerIndex
            guard let first = buffer.getInteger(at: start, as: UInt8.self),
                let second = buffer.getInteger(at: start + 1, as: UInt8.self)
            else { return nil }
            var header = 2
            var length = Int(second & 0x7F)
            if length == 126 {
                guard let word = buffer.getInteger(at: start + 2, as: UInt16.self) else { return nil }
                length = Int(word)
                header = 4
            } else if length == 127 {
                guard let word = buffer.getInteger(at: start + 2, as: UInt64.self) else { return nil }
                guard word <= UInt64(maximumSize) else { throw .tooLong(Int(clamping: word)) }
                length = Int(word)
                header = 10
            }
            guard length <= maximumSize else { throw .tooLong(length) }
            let isControl = first & 0x08 != 0
            if isControl {
                guard first & 0x80 != 0 else { throw .fragmentedControlFrame }
                guard length <= 125 else { throw .longControlFrame(length) }
            }
            let isMasked = second & 0x80 != 0
            if isMasked { header += 4 }
            guard buffer.readableBytes >= header + length else { return nil }
            buffer.moveReaderIndex(forwardBy: header)
            let data = buffer.readSlice(length: length)!
            return InboundFrame(
                fin: first & 0x80 != 0, rsv1: first & 0x40 != 0, otherReservedBits: first & 0x30 != 0,
                opcode: WebSocketOpcode(encodedWebSocketOpcode: first & 0x0F)!, isMasked: isMasked, data: data)
        }
    }
#endif
