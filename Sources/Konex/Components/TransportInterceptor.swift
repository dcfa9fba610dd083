import Foundation

/// Wraps the transport call of every request: it may answer without the network, share one call among many callers,
/// hold a request until there is room, or pass it on through `next`.
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
/// Interceptors run for every attempt (a retry passes them again) and every hop of a redirect, for every terminal but
/// `webSocket()`. `next.delivery` says how the caller takes the body: for `stream()` and `download(to:)` the reply
/// comes back with its ``TransportReply/body`` still arriving or in a file, so the cache and the coalescer let those
/// pass, while ``ConcurrencyLimit`` holds its slot until the body ends. A reply an interceptor makes itself (a canned
/// answer, say) reaches a stream or a download as one, whatever its body's form.
public protocol TransportInterceptor: Sendable {
    /// Answers `request`, usually by calling `next` (the rest of the chain, then the transport).
    /// - Parameters:
    ///   - request: The request as adapted; what plugins saw.
    ///   - next: The interceptors after this one, then the transport.
    /// - Returns: The reply, saying where it came from.
    /// - Throws: A transport error, `CancellationError`, or a ``KonexError`` (kept as it is).
    func intercept(_ request: TransportRequest, next: TransportNext) async throws -> TransportReply
}

/// The rest of an interceptor chain: call it to send a request on.
public struct TransportNext: Sendable {
    let run: @Sendable (TransportRequest) async throws -> TransportReply
    /// How the caller takes the body: whole, as it arrives, or into a file.
    public let delivery: BodyDelivery
    /// Who is asking: the identity of the ``KonexClient`` that sends the request, or `nil` for a chain made by hand.
    ///
    /// What a request carries below its headers (the session's cookies and stored credentials, a per-user
    /// transport) belongs to its client, so two requests with equal headers from two clients may be two users. An
    /// interceptor that hands one answer to several requests (``RequestCoalescer``) never hands it across identities.
    public let clientIdentity: ObjectIdentifier?

    /// Creates the rest of a chain from a closure (for testing an interceptor on its own).
    /// - Parameters:
    ///   - delivery: How the caller takes the body; ``BodyDelivery/whole`` by default.
    ///   - clientIdentity: Who is asking (see ``clientIdentity``); `nil` by default.
    ///   - run: The rest of the chain.
    public init(
        delivery: BodyDelivery = .whole, clientIdentity: ObjectIdentifier? = nil,
        _ run: @escaping @Sendable (TransportRequest) async throws -> TransportReply
    ) {
        self.delivery = delivery
        self.clientIdentity = clientIdentity
        self.run = run
    }

    /// Sends `request` on through the rest of the chain.
    public func callAsFunction(_ request: TransportRequest) async throws -> TransportReply { try await run(request) }
}
