#if AsyncHTTPClient
    import Foundation
    import Konex
    import NIOCore
    import NIOWebSocket

    // RFC 6455's small rules, for the frame handler: how a client frame is made and what a peer's close code means
    // (a close frame's payload is read and written by Konex's `WebSocketClosePayload`).
    extension WebSocketFrameHandler {
        /// A client frame: final, and masked as every client frame must be (§5.3).
        static func frame(_ opcode: WebSocketOpcode, _ data: ByteBuffer) -> WebSocketFrame {
            var generator = SystemRandomNumberGenerator()
            return WebSocketFrame(fin: true, opcode: opcode, maskKey: .random(using: &generator), data: data)
        }

        /// A client frame as it goes on the wire (RFC 6455 §5.2): the header, then the payload masked with the
        /// frame's key, copied and masked in one pass eight bytes at a time (NIO's encoder masks a byte at a time,
        /// which was a quarter of the cost of echoing a 4 MiB message).
        static func encoded(_ frame: WebSocketFrame, allocator: ByteBufferAllocator) -> ByteBuffer {
            let length = frame.data.readableBytes
            var out = allocator.buffer(capacity: 14 + length)
            out.writeInteger(
                (frame.fin ? 0x80 : 0) | (frame.rsv1 ? 0x40 : 0) | (frame.rsv2 ? 0x20 : 0) | (frame.rsv3 ? 0x10 : 0)
                    | UInt8(webSocketOpcode: frame.opcode))
            let masked: UInt8 = frame.maskKey == nil ? 0 : 0x80
            switch length {
            case ..<126: out.writeInteger(masked | UInt8(length))
            case ...0xFFFF:
                out.writeInteger(masked | 126)
                out.writeInteger(UInt16(length))
            default:
                out.writeInteger(masked | 127)
                out.writeInteger(UInt64(length))
            }
            guard let key = frame.maskKey else {
                out.writeImmutableBuffer(frame.data)
                return out
            }
            let keyBytes = (0..<4).map { key[$0] }
            out.writeBytes(keyBytes)
            // The key repeated over eight bytes, in memory order, so a load XORs eight payload bytes at once.
            let wide = (keyBytes + keyBytes).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            frame.data.withUnsafeReadableBytes { source in
                _ = out.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { target in
                    var index = 0
                    while index + 8 <= length {
                        let word = source.loadUnaligned(fromByteOffset: index, as: UInt64.self) ^ wide
                        target.storeBytes(of: word, toByteOffset: index, as: UInt64.self)
                        index += 8
                    }
                    while index < length {
                        target[index] = source[index] ^ keyBytes[index & 3]
                        index += 1
                    }
                    return length
                }
            }
            return out
        }

        /// The peer's close: the codes of a broken protocol are failures, the rest ends (which may reconnect).
        static func end(forPeerCode code: WebSocketCloseCode, reason: String?) -> WebSocketInbox.End {
            let said = reason.map { $0.isEmpty ? "" : ": \($0)" } ?? ""
            switch code {
            case .protocolError, .invalidFramePayloadData:
                return .failed(
                    WebSocketFailure(
                        .protocolViolation, "the server closed with \(code), a protocol error\(said)",
                        closeCode: code))
            case .messageTooBig:
                return .failed(
                    WebSocketFailure(
                        .messageTooBig, "the server closed with 1009: a message was too big\(said)",
                        closeCode: code))
            default:
                return .closed(code, reason: reason)
            }
        }
    }

    extension ByteBuffer {
        /// The bytes as a string when they are valid UTF-8; `nil` when they are not (nothing is repaired).
        var validUTF8String: String? {
            // Konex's check reads eight ASCII bytes at a time; the standard library then copies text known to be
            // valid (checking it again as it copies, at the speed of a copy).
            var check = UTF8Validation.Stream()
            guard withUnsafeReadableBytes({ check.append($0) }), check.isComplete else { return nil }
            return String(decoding: readableBytesView, as: UTF8.self)
        }
    }
#endif
