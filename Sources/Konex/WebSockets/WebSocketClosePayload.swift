/// A close frame's payload (RFC 6455 §5.5.1): nothing, or a two-byte code and a UTF-8 reason; read and written here
/// for every transport that parses frames itself, and fuzzed (a peer chooses every byte of it).
package enum WebSocketClosePayload {
    /// What a peer's close frame said, or how it broke the protocol.
    package enum Parsed: Equatable, Sendable {
        /// A well-formed close: its code (1005 when it carried none) and reason (`nil` when it carried no code).
        case closed(WebSocketCloseCode, reason: String?)
        /// A malformed close, and the code this side closes with.
        case violation(String, closeWith: WebSocketCloseCode)
    }

    /// The longest reason a close frame holds: 125 bytes of control-frame payload, two of them the code (§5.5).
    package static let maximumReasonBytes = 123

    /// Reads a close frame's payload.
    /// - Parameter bytes: The payload, unmasked.
    /// - Returns: The code and reason, or what was wrong with them.
    package static func parse(_ bytes: some Collection<UInt8>) -> Parsed {
        let bytes = Array(bytes)
        switch bytes.count {
        case 0: return .closed(.noStatusReceived, reason: nil)
        case 1: return .violation("a close frame carried one byte, not a two-byte code", closeWith: .protocolError)
        case 126...:
            return .violation(
                "a close frame carried \(bytes.count) bytes (a control frame holds 125)", closeWith: .protocolError)
        default:
            let code = WebSocketCloseCode(UInt16(bytes[0]) << 8 | UInt16(bytes[1]))
            guard isValidPeerCode(code) else {
                return .violation("a close frame carried the code \(code)", closeWith: .protocolError)
            }
            // A close reason is refused when it is not UTF-8, never repaired.
            let reason = bytes[2...]
            guard UTF8Validation.firstInvalidOffset(reason) == nil else {
                return .violation("the close frame's reason was not valid UTF-8", closeWith: .invalidFramePayloadData)
            }
            return .closed(code, reason: String(decoding: reason, as: UTF8.self))
        }
    }

    /// The payload this side sends: `code` and `reason` cut to ``maximumReasonBytes`` on a character boundary, or
    /// nothing for an empty close.
    package static func encode(_ code: WebSocketCloseCode?, reason: String) -> [UInt8] {
        guard let code else { return [] }
        return [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
            + Array(truncated(reason, toUTF8Count: maximumReasonBytes).utf8)
    }

    /// The codes a peer may send (§7.4.1, §7.4.2 and IANA's registry): 1005, 1006 and 1015 never go on the wire.
    package static func isValidPeerCode(_ code: WebSocketCloseCode) -> Bool {
        switch code.rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// `text` cut to at most `limit` bytes of UTF-8, never inside a character.
    package static func truncated(_ text: String, toUTF8Count limit: Int) -> String {
        guard text.utf8.count > limit else { return text }
        var result = ""
        for character in text {
            guard result.utf8.count + character.utf8.count <= limit else { break }
            result.append(character)
        }
        return result
    }
}
