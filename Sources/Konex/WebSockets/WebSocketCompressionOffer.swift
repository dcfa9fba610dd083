/// What a client offers for `permessage-deflate` (RFC 7692 §7.1): how much memory each side's window may hold.
///
/// The default offers the extension with no promise, and lets the server cap the client's window. A client that keeps
/// many connections open saves memory by promising fresh windows:
/// ```swift
/// var options = WebSocketOptions()
/// options.compressionOffer = WebSocketCompressionOffer(clientNoContextTakeover: true, clientMaxWindowBits: 10)
/// let socket = try await client.request(Chat()).webSocket(options: options)
/// ```
public struct WebSocketCompressionOffer: Sendable, Hashable {
    /// The client compresses each message with a fresh window (`client_no_context_takeover`), whatever the server
    /// answers: no window is kept between messages, at a small cost in compression.
    public var clientNoContextTakeover: Bool
    /// Asks the server to compress each message with a fresh window (`server_no_context_takeover`).
    public var serverNoContextTakeover: Bool
    /// The largest window the client's compressor uses, 8 to 15 bits (`client_max_window_bits`; 15 offers the
    /// parameter with no value, so the server may choose). zlib's raw deflate has no 8-bit window: 9 stands in.
    public var clientMaxWindowBits: Int

    /// Creates an offer.
    /// - Parameters:
    ///   - clientNoContextTakeover: Compress each message with a fresh window.
    ///   - serverNoContextTakeover: Ask the server to compress each message with a fresh window.
    ///   - clientMaxWindowBits: The largest window the client uses, clamped to 8...15.
    public init(
        clientNoContextTakeover: Bool = false, serverNoContextTakeover: Bool = false, clientMaxWindowBits: Int = 15
    ) {
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientMaxWindowBits = min(max(clientMaxWindowBits, 8), 15)
    }

    /// The `Sec-WebSocket-Extensions` value that makes the offer.
    public var headerValue: String {
        var offer = "permessage-deflate"
        if clientNoContextTakeover { offer += "; client_no_context_takeover" }
        if serverNoContextTakeover { offer += "; server_no_context_takeover" }
        offer +=
            clientMaxWindowBits < 15 ? "; client_max_window_bits=\(clientMaxWindowBits)" : "; client_max_window_bits"
        return offer
    }
}
