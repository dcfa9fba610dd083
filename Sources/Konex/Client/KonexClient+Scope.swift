/// A transport (and optionally a clock) that every ``KonexClient`` in a task tree uses instead of its own.
struct TransportScope: Sendable {
    let transport: any Transport
    let clock: (any Clock<Duration>)?

    @TaskLocal static var current: TransportScope?
}

extension KonexClient {
    /// Runs `operation` with every `KonexClient` — ``shared`` and clients made deep inside app code included — sending
    /// through `transport` instead of its own, for as long as `operation` runs, in this task and the tasks it starts.
    ///
    /// Tests of code that does not take a transport use it (KonexTesting's traits wrap it); parallel tests never see
    /// each other's scopes, because a task-local value belongs to one task tree.
    /// ```swift
    /// let mock = MockTransport(clock: ImmediateClock()).stubbing(.get("/me"), .json(me))
    /// try await KonexClient.withTransport(mock) {
    ///     try await profileModel.load()          // uses KonexClient.shared inside; gets the mock
    /// }
    /// ```
    /// - Parameters:
    ///   - transport: What every client sends through inside the scope.
    ///   - clock: What retries, stream timeouts and reconnections wait on inside the scope; each client's own when
    ///     `nil`.
    ///   - isolation: The caller's actor, kept for `operation` (leave the default).
    ///   - operation: The code to run.
    /// - Returns: What `operation` returns.
    public static func withTransport<Result>(
        _ transport: any Transport, clock: (any Clock<Duration>)? = nil,
        isolation: isolated (any Actor)? = #isolation, operation: () async throws -> Result
    ) async rethrows -> Result {
        try await TransportScope.$current.withValue(
            TransportScope(transport: transport, clock: clock), operation: operation, isolation: isolation)
    }

    /// The transport requests go through now (a scope's, else this client's own), and how its requests follow
    /// redirects.
    var activeRoute: (transport: any Transport, redirects: RedirectSettings) {
        // One task-local read a request: a scope's transport, with the client's policy else that transport's.
        guard let scope = TransportScope.current else { return (transport, redirects) }
        let redirects = RedirectSettings(
            policy: redirectPolicy ?? scope.transport.redirectPolicy, redaction: redaction, cookies: cookieJar)
        return (scope.transport, redirects)
    }

    /// The clock waits use now: a scope's, else this client's own.
    var activeClock: any Clock<Duration> { TransportScope.current?.clock ?? clock }
}

extension KonexClient {
    /// What opens WebSocket connections now: a scope's transport (a mock in a test), else ``webSocketTransport``,
    /// else the client's transport when it can.
    func activeWebSocketTransport() throws -> any WebSocketTransport {
        if let scope = TransportScope.current {
            guard let sockets = scope.transport as? any WebSocketTransport else {
                throw WebSocketFailure(
                    .unsupported, "the scoped transport \(type(of: scope.transport)) cannot open WebSockets")
            }
            return sockets
        }
        if let webSocketTransport { return webSocketTransport }
        if let sockets = transport as? any WebSocketTransport { return sockets }
        throw WebSocketFailure(
            .unsupported,
            "\(type(of: transport)) cannot open WebSockets: give the client a webSocketTransport "
                + "(NIOWebSocketTransport from KonexAsyncHTTPClient on Linux servers)")
    }
}

extension KonexClient {
    /// `request`'s origin as budgets count it (``TransportRequest/origin``), read from ``baseOrigin`` when the
    /// request goes to the base URL's host as written.
    func origin(of request: TransportRequest) -> String {
        let url = request.url
        if let base = baseOrigin, url.host == base.host, url.port == base.port, url.scheme == base.scheme {
            return base.folded
        }
        return request.origin
    }
}
