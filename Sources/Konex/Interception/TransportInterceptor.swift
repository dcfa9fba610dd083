import Foundation

/// Wraps the transport call of in-memory exchanges: it may answer without the network, share one call among many
/// callers, hold a request until there is room, or pass it on through `next`.
///
/// Konex ships three: ``HTTPCache`` (RFC 9111), ``RequestCoalescer`` and ``ConcurrencyLimit``. Interceptors attach at
/// client, request and call-site level like every other component; the client's is outermost, so a request passes
/// them in that order on the way out and in reverse on the way back. Put a cache before a limit (a hit then takes no
/// slot) and a coalescer before a limit (a shared call takes one slot).
/// ```swift
/// let cache = HTTPCache(storage: .memory(capacity: 10 << 20))
/// let client = KonexClient(baseURL: api, interceptors: [cache, RequestCoalescer(), ConcurrencyLimit(perHost: 4)])
/// let feed = try await client.request(GetFeed()).responseArray(of: Post.self)   // cached, shared, limited
/// ```
/// Interceptors run for every attempt (a retry passes them again) and for the `response…` terminals, whose bodies
/// are in memory; `download(to:)` and `stream()` go straight to the transport.
public protocol TransportInterceptor: Sendable {
    /// Answers `request`, usually by calling `next` (the rest of the chain, then the transport).
    /// - Parameters:
    ///   - request: The request as adapted; what plugins saw.
    ///   - next: The interceptors after this one, then the transport.
    /// - Returns: The reply, saying where it came from.
    /// - Throws: A transport error, `CancellationError`, or a ``KonexError`` (kept as it is).
    func intercept(_ request: URLRequest, next: TransportNext) async throws -> TransportReply
}

/// The rest of an interceptor chain: call it to send a request on.
public struct TransportNext: Sendable {
    let run: @Sendable (URLRequest) async throws -> TransportReply

    /// Creates the rest of a chain from a closure (for testing an interceptor on its own).
    public init(_ run: @escaping @Sendable (URLRequest) async throws -> TransportReply) { self.run = run }

    /// Sends `request` on through the rest of the chain.
    public func callAsFunction(_ request: URLRequest) async throws -> TransportReply { try await run(request) }
}

/// What an interceptor chain answers: the body and head, where they came from, and how long the request queued.
public struct TransportReply: Sendable {
    /// The body.
    public var data: Data
    /// The response head.
    public var response: HTTPURLResponse
    /// Where the response came from.
    public var source: ResponseSource
    /// Time spent waiting for a ``ConcurrencyLimit`` slot; zero when none was waited for.
    public var queueTime: Duration
    /// Whether one transport call answered this and other identical requests (``RequestCoalescer``).
    public var isShared: Bool

    /// Creates a reply.
    public init(
        data: Data, response: HTTPURLResponse, source: ResponseSource = .network, queueTime: Duration = .zero,
        isShared: Bool = false
    ) {
        self.data = data
        self.response = response
        self.source = source
        self.queueTime = queueTime
        self.isShared = isShared
    }
}

/// Where a response came from.
public enum ResponseSource: String, Sendable, Hashable, CustomStringConvertible {
    /// The server answered this request.
    case network
    /// A stored response was served without asking the server.
    case cache
    /// A stored response was served after the server confirmed it with `304 Not Modified`.
    case revalidated

    public var description: String { rawValue }
}
