import Foundation

extension DataRequest {
    /// Opens a WebSocket connection through the pipeline head: build, adapters, instruments, plugins, the handshake,
    /// plugins see the 101, and a refused handshake goes to the retriers (so a ``TokenAuthenticator`` refreshes on a
    /// 401 and the handshake is tried again).
    ///
    /// The request's URL may be `ws`/`wss` or `http`/`https`. Validators do not run on the 101; processors need a body
    /// and are refused. The transport is the client's ``KonexClient/webSocketTransport``, else its transport when it
    /// can open WebSockets (``URLSessionTransport`` does, where the platform allows), else a test scope's.
    /// ```swift
    /// let socket = try await client.request(Chat()).withAdapter(auth).webSocket(pingInterval: .seconds(20))
    /// try await socket.send("hello")
    /// for try await message in socket.messages { print(message) }
    /// ```
    /// - Parameters:
    ///   - options: The largest message, the receive buffer, compression.
    ///   - pingInterval: Pings this often on the client's clock; `nil` (the default) never pings.
    ///   - pongTimeout: A ping unanswered for this long fails the connection (`.connection`, ``WebSocketFailure/Kind/pongTimeout``).
    /// - Returns: The open connection.
    /// - Throws: ``KonexError``: `.handshake` with the server's response when it refused, or the stage that failed.
    public func webSocket(
        options: WebSocketOptions = WebSocketOptions(), pingInterval: Duration? = nil,
        pongTimeout: Duration = .seconds(10)
    ) async throws -> WebSocket {
        try refuseProcessors(for: "webSocket()", because: "a body")
        let answer = try await execute(body: .webSocket(options))
        let channel = try answer.connection()
        return WebSocket(
            source: self, answer: answer, channel: channel, pingInterval: pingInterval, pongTimeout: pongTimeout,
            options: options)
    }
}
