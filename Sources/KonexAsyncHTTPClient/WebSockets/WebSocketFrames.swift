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
            let text = String(decoding: readableBytesView, as: UTF8.self)
            // Repair writes U+FFFD: a string with none, of the same length, was valid. One with U+FFFD (sent, or
            // repaired) is checked scalar by scalar.
            if text.utf8.count == readableBytes, !text.utf8.contains(0xEF) { return text }
            var iterator = readableBytesView.makeIterator()
            var decoder = UTF8()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue: continue
                case .emptyInput: return text
                case .error: return nil
                }
            }
        }
    }
#endif
