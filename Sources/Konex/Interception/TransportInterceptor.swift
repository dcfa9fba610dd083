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

/// What an interceptor chain answers: the response head, its body as the transport handed it over, and where it came
/// from (the network or a cache, whether it was shared, how long it queued).
///
/// The body is a ``ResponseBody``, the transport's own shape: whole for the `response…` terminals
/// (``TransportNext/delivery`` ``BodyDelivery/whole``), still arriving for `stream()`, in a file for `download(to:)`.
/// An interceptor that needs the bytes whole collects them; one that holds a resource for as long as the body runs
/// waits for ``ResponseBody/whenEnded(_:)``. Nothing in a reply is hidden from an interceptor: ``ConcurrencyLimit``,
/// ``HTTPCache`` and ``RequestCoalescer`` use this public shape alone.
/// ```swift
/// struct Slot: TransportInterceptor {
///     let gate: Gate
///     func intercept(_ request: TransportRequest, next: TransportNext) async throws -> TransportReply {
///         await gate.enter()
///         let reply: TransportReply
///         do { reply = try await next(request) } catch { gate.leave(); throw error }
///         reply.body.whenEnded { gate.leave() }   // a stream keeps its slot until it ends
///         return reply
///     }
/// }
/// ```
public struct TransportReply: Sendable {
    /// The response head.
    public var response: ResponseHead
    /// The body: whole, still arriving, or in a file (see ``TransportNext/delivery``).
    public var body: ResponseBody
    /// Where the response came from.
    public var source: ResponseSource
    // (Declared before `queueTime`: the two one-byte fields share the padding the body leaves, 8 bytes less in
    // every reply, and step 4 keeps about ten of them in every request's async frame.)
    /// Whether one transport call answered this and other identical requests (``RequestCoalescer``).
    public var isShared: Bool
    /// Time spent waiting for a ``ConcurrencyLimit`` slot; zero when none was waited for.
    public var queueTime: Duration
    /// What Konex adds once it has taken the reply, rarely anything: held by reference, `nil` when empty (step 4
    /// keeps about ten replies in every request's async frame, and these two fields were 24 bytes of each).
    private var taken: Taken?

    private final class Taken: Sendable {
        let redirects: [Redirect]
        let errorHead: Data
        init(redirects: [Redirect], errorHead: Data) {
            self.redirects = redirects
            self.errorHead = errorHead
        }
    }

    /// The redirects followed to reach ``response``, first to last (set by Konex once it has followed them).
    var redirects: [Redirect] {
        get { taken?.redirects ?? [] }
        set { setTaken(redirects: newValue, errorHead: errorHead) }
    }
    /// The start of an error body (up to 64 KiB, for a status outside 200..<300) kept for validators and error models
    /// once Konex has taken ``body`` into a file or as a stream (a stream gives it back to its reader first); empty
    /// otherwise.
    var errorHead: Data {
        get { taken?.errorHead ?? Data() }
        set { setTaken(redirects: redirects, errorHead: newValue) }
    }

    /// Boxes what Konex added, or nothing when both are empty (the usual reply allocates nothing).
    private mutating func setTaken(redirects: [Redirect], errorHead: Data) {
        taken = redirects.isEmpty && errorHead.isEmpty ? nil : Taken(redirects: redirects, errorHead: errorHead)
    }

    /// Creates a reply.
    /// - Parameters:
    ///   - response: The response head.
    ///   - body: The body, as a transport hands it over.
    ///   - source: Where the response came from.
    ///   - queueTime: Time spent waiting for a slot.
    ///   - isShared: Whether this answer is shared with other callers.
    public init(
        response: ResponseHead, body: ResponseBody, source: ResponseSource = .network, queueTime: Duration = .zero,
        isShared: Bool = false
    ) {
        self.response = response
        self.body = body
        self.source = source
        self.queueTime = queueTime
        self.isShared = isShared
    }

    /// Creates a reply whose body is whole in memory.
    public init(
        data: Data, response: ResponseHead, source: ResponseSource = .network, queueTime: Duration = .zero,
        isShared: Bool = false
    ) {
        self.init(
            response: response, body: ResponseBody(data), source: source, queueTime: queueTime, isShared: isShared)
    }

    /// Creates a reply from a Foundation response, for an interceptor that answers with one.
    /// - Parameters:
    ///   - data: The body.
    ///   - response: The response; read as a ``ResponseHead`` without copying its fields.
    ///   - source: Where the response came from.
    public init(data: Data, response: HTTPURLResponse, source: ResponseSource = .network) {
        self.init(data: data, response: ResponseHead(response), source: source)
    }

    /// The body when it is whole in memory; empty for a body still arriving or in a file.
    ///
    /// Read ``body`` instead: it says which it is. Setting this replaces the body with `newValue`, whole.
    @available(
        *, deprecated, message: "read `body` (a ResponseBody: `body.data` when whole, `collect(upTo:)` otherwise)"
    )
    public var data: Data {
        get { body.data ?? Data() }
        set { body = ResponseBody(newValue) }
    }

    /// Whether the body is whole in memory: `false` for a body still arriving (`stream()`) or in a file
    /// (`download(to:)`). Such a reply must not be stored or shared as if it were whole.
    public var bodyIsInMemory: Bool { body.data != nil }
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
