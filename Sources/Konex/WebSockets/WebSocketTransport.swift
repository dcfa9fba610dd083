import Foundation

/// Opens WebSocket connections: the transport beside ``Transport`` for `webSocket()`.
///
/// `URLSessionTransport` is one (where the platform's URLSession speaks WebSocket), KonexAsyncHTTPClient's
/// `NIOWebSocketTransport` another (SwiftNIO, for Linux), and KonexTesting's `MockTransport` scripts servers on a
/// clock. A transport performs the handshake with the request head as Konex built and adapted it; a refused handshake
/// throws ``WebSocketHandshakeRefused`` with the server's answer, so a 401 reaches the retriers.
public protocol WebSocketTransport: TLSCapable {
    /// Performs the opening handshake and returns the connection.
    /// - Parameters:
    ///   - request: The handshake's head (`http`/`https` or `ws`/`wss`), headers included: the same ``RequestHead`` an
    ///     HTTP ``Transport`` gets (`request.urlRequest` is Foundation's, for a transport over URLSession).
    ///   - options: Limits the connection must keep.
    /// - Returns: The open connection.
    /// - Throws: ``WebSocketHandshakeRefused`` when the server answers other than 101; other errors as for a request.
    func connect(_ request: RequestHead, options: WebSocketOptions) async throws -> any WebSocketChannel
}

/// One open WebSocket connection, as a transport gives it to Konex: ``WebSocket`` reads it one message at a time, so
/// a transport that reads its socket only when asked gives back pressure for free.
public protocol WebSocketChannel: Sendable {
    /// The handshake's response (status 101).
    var response: ResponseHead { get }
    /// Sends one message.
    func send(_ message: WebSocketMessage) async throws
    /// The next message; `nil` once the connection closed cleanly (``closeCode`` then says how).
    /// - Throws: ``WebSocketFailure`` when the connection broke or the peer broke the protocol.
    func receive() async throws -> WebSocketMessage?
    /// Sends a ping and returns when its pong arrives.
    func ping() async throws
    /// Starts the closing handshake with `code` and `reason`, and waits (briefly) for the peer's close.
    func close(code: WebSocketCloseCode, reason: String) async
    /// Ends the connection at once, without a closing handshake.
    func abort()
    /// The close code the peer sent (or ``WebSocketCloseCode/abnormalClosure`` when it sent none); `nil` while open.
    var closeCode: WebSocketCloseCode? { get }
    /// The reason the peer sent with its close code.
    var closeReason: String? { get }
    /// The executor the connection's own events run on, for a reader that prefers it (see
    /// ``WebSocket/taskExecutor``); `nil`, the default, when the transport has none to offer.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    var taskExecutor: (any TaskExecutor)? { get }
}

extension WebSocketChannel {
    /// No executor of the connection's own: readers run where their task does.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    public var taskExecutor: (any TaskExecutor)? { nil }
}

/// What a WebSocket connection must keep to.
public struct WebSocketOptions: Sendable, Hashable {
    /// The largest message accepted, in bytes; larger closes the connection with 1009. 16 MiB by default.
    public var maximumMessageSize: Int
    /// The most messages held for a reader slower than the network. A transport that can pause its socket stops
    /// reading when this many wait (so the server's writes slow down); one that cannot pause fails the connection
    /// when the reader falls this far behind.
    public var receiveBufferLimit: Int
    /// The most bytes held for a reader slower than the network, 32 MiB by default; like ``receiveBufferLimit``, a
    /// transport that can pause stops reading the socket when they are held. With a message being assembled and one
    /// waiting for room (each at most ``maximumMessageSize``), a connection holds at most 64 MiB by default.
    public var receiveBufferBytes: Int
    /// Ask for `permessage-deflate` (RFC 7692) where the transport offers it: `NIOWebSocketTransport` does, and
    /// applies ``maximumMessageSize`` to a message as it inflates. Off by default; setting it on makes the default
    /// ``compressionOffer``.
    public var compression: Bool {
        get { compressionOffer != nil }
        set { compressionOffer = newValue ? compressionOffer ?? WebSocketCompressionOffer() : nil }
    }
    /// The `permessage-deflate` offer (its windows and context takeover); `nil`, the default, offers no compression.
    public var compressionOffer: WebSocketCompressionOffer?
    /// How long ``WebSocket/close(_:reason:)`` waits for the peer to answer the close before it drops the
    /// connection (the close code is then 1006). 5 seconds by default.
    public var closeTimeout: Duration
    /// The trust and client certificate the connection must use: the client's ``KonexClient/tls``, set by Konex
    /// when it opens the connection.
    public var tls: TLSSettings = .default

    /// Creates options.
    /// - Parameters:
    ///   - maximumMessageSize: The largest message accepted, in bytes.
    ///   - receiveBufferLimit: The most messages held for a slow reader.
    ///   - receiveBufferBytes: The most bytes held for a slow reader.
    ///   - compression: Ask for `permessage-deflate` where the transport offers it.
    ///   - closeTimeout: How long a close waits for the peer's answer.
    public init(
        maximumMessageSize: Int = 16 << 20, receiveBufferLimit: Int = 256, compression: Bool = false,
        closeTimeout: Duration = .seconds(5), receiveBufferBytes: Int = 32 << 20
    ) {
        self.maximumMessageSize = maximumMessageSize
        self.receiveBufferLimit = receiveBufferLimit
        self.receiveBufferBytes = max(1, receiveBufferBytes)
        self.compressionOffer = compression ? WebSocketCompressionOffer() : nil
        self.closeTimeout = closeTimeout
    }
}

/// The server answered the WebSocket handshake with something other than 101.
public struct WebSocketHandshakeRefused: Error, Sendable, CustomStringConvertible {
    /// The server's answer.
    public let response: ResponseHead
    /// The start of its body.
    public let data: Data

    /// Creates the error.
    public init(response: ResponseHead, data: Data = Data()) {
        self.response = response
        self.data = data
    }

    /// Creates the error from a Foundation response (a transport over URLSession).
    public init(response: HTTPURLResponse, data: Data = Data()) {
        self.init(response: ResponseHead(response), data: data)
    }

    public var description: String {
        "the server answered the WebSocket handshake with \(response.statusCode) instead of 101 Switching Protocols"
    }
}

/// Why a WebSocket connection broke: the `underlyingError` of the ``KonexError`` a ``WebSocket`` throws.
public struct WebSocketFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong; an extensible set.
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The connection ended without a closing handshake.
        public static let connectionLost = Kind(rawValue: "connectionLost")
        /// The peer broke RFC 6455 (a bad frame, a text message that is not UTF-8).
        public static let protocolViolation = Kind(rawValue: "protocolViolation")
        /// A message was larger than ``WebSocketOptions/maximumMessageSize``.
        public static let messageTooBig = Kind(rawValue: "messageTooBig")
        /// A ping went unanswered for longer than the pong timeout.
        public static let pongTimeout = Kind(rawValue: "pongTimeout")
        /// The reader fell further behind than ``WebSocketOptions/receiveBufferLimit`` on a transport that cannot
        /// pause.
        public static let bufferOverflow = Kind(rawValue: "bufferOverflow")
        /// The transport cannot speak WebSocket here (a libcurl without it, say).
        public static let unsupported = Kind(rawValue: "unsupported")
    }

    /// What went wrong.
    public let kind: Kind
    /// In plain words.
    public let message: String
    /// The close code sent or received for it, if any.
    public let closeCode: WebSocketCloseCode?

    /// Creates a failure.
    public init(_ kind: Kind, _ message: String, closeCode: WebSocketCloseCode? = nil) {
        self.kind = kind
        self.message = message
        self.closeCode = closeCode
    }

    public var description: String { message }
}
