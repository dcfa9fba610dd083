import Foundation

/// What the pipeline checks in every WebSocket handshake's answer, whichever transport made it (RFC 6455 §4.1).
enum WebSocketHandshakeCheck {
    /// Throws when the server chose a subprotocol the client did not offer, or more than one.
    /// - Parameters:
    ///   - request: The upgrade request, with the `Sec-WebSocket-Protocol` values it offered, if any.
    ///   - response: The server's 101.
    static func check(_ request: TransportRequest, answeredBy response: ResponseHead) throws {
        guard let chosen = response.value(forHTTPHeaderField: "Sec-WebSocket-Protocol") else { return }
        let offered = Set(tokens(request.value(forHTTPHeaderField: "Sec-WebSocket-Protocol")))
        let answered = tokens(chosen)
        let shown = String(chosen.prefix(100))
        guard answered.count == 1, let protocolName = answered.first else {
            throw WebSocketFailure(
                .protocolViolation, "the server chose \(answered.count) subprotocols (`\(shown)`); it may choose one")
        }
        guard offered.contains(protocolName) else {
            let list = offered.isEmpty ? "none was offered" : "the client offered \(offered.sorted())"
            throw WebSocketFailure(
                .protocolViolation, "the server chose the subprotocol `\(shown)`, and \(list) (RFC 6455 §4.1)")
        }
    }

    /// The comma-separated tokens of a header value, without spaces.
    private static func tokens(_ value: String?) -> [String] {
        (value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
