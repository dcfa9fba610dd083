import Foundation

/// An HTTP cache (RFC 9111) in Konex itself, so it behaves the same on Linux, where FoundationNetworking has no usable
/// one, and on Apple platforms.
///
/// It keeps GET responses the server allows it to keep, serves them while they are fresh (`max-age`, `Expires`,
/// `Age`, or 10 % of the time since `Last-Modified`, up to a day), revalidates stale ones with `If-None-Match` /
/// `If-Modified-Since` and merges a `304` into the stored response, and honours `no-store`, `no-cache`,
/// `must-revalidate`, `private`/`s-maxage` (a private cache by default), `Vary` (one stored variant per set of
/// values), `stale-while-revalidate` and `stale-if-error`, and the request's own `Cache-Control` (`no-cache`,
/// `no-store`, `max-age`, `max-stale`, `min-fresh`, `only-if-cached`). A caller's own `If-None-Match` /
/// `If-Modified-Since` that matches a fresh stored response is answered `304` from the cache. A successful POST,
/// PUT, PATCH or DELETE removes what is stored for its URL and for the `Location` / `Content-Location` it answers
/// with on the same host.
///
/// What it never does: serve a stale response when the server cannot be reached, unless `stale-if-error` (from the
/// response or the request) allows it, or the request asks for the stored copy with `.returnCacheDataElseLoad` /
/// `.returnCacheDataDontLoad`; and erase a stored response because the server answered an error: only a storable
/// replacement or an unsafe method replaces it, so the offline copy survives a struggling server.
///
/// Accounts: a response stored under one credential (`Authorization`, an API-key header, a cookie) is never served
/// for another. Set ``partition`` to the signed-in account's ID so that entries survive a token refresh and
/// belong to that account, and call ``removeAll()`` at sign-out.
///
/// The request's `cachePolicy` chooses the mode, with the meanings Apple's URL loading system gives them:
/// - `.useProtocolCachePolicy` (the default): as RFC 9111 says.
/// - `.reloadIgnoringLocalCacheData`: ask the server, store the answer.
/// - `.reloadRevalidatingCacheData`: revalidate a stored response even when fresh.
/// - `.returnCacheDataElseLoad`: a stored response whatever its age, else the network.
/// - `.returnCacheDataDontLoad`: offline; a stored response whatever its age, else `504 Gateway Timeout`
///   (as RFC 9111 §5.2.1.7 answers `only-if-cached`).
///
/// The transport's own cache is bypassed for requests the cache sends on, so nothing is cached twice.
/// ```swift
/// let cache = HTTPCache(storage: .disk(directory: cachesFolder.appendingPathComponent("api")))
/// cache.partition = account.id
/// let client = KonexClient(baseURL: api, interceptors: [cache])
/// let posts = try await client.request(GetPosts()).response(of: [Post].self)
/// print(posts.source)                                               // .network, then .cache, then .revalidated
/// let offline = try await client.request(GetPosts()).cachePolicy(.returnCacheDataDontLoad).responseArray(of: Post.self)
/// ```
public final class HTTPCache: TransportInterceptor {
    /// Where responses are kept.
    public let storage: any HTTPCacheStorage
    /// Whether this cache is shared among users (`s-maxage` and `proxy-revalidate` apply, `private` responses are
    /// not kept); `false`.
    public let isShared: Bool
    /// The cookie storage of the session requests go through, whose cookies separate entries like credentials do;
    /// `nil` when requests carry no cookies the cache cannot see.
    public let cookieStorage: HTTPCookieStorage?
    let now: @Sendable () -> Date
    /// Keys whose background revalidation (`stale-while-revalidate`) is running, so one runs at a time per key.
    let revalidating = Lock<Set<String>>([])
    /// Background revalidations under way, by key.
    let background = Lock<[String: Task<Void, Never>]>([:])
    /// The last response head served per key: hits in the same second with the same stored headers share one
    /// (its fields made once, not a request).
    let heads = Lock<[String: ServedHead]>([:])
    /// Digests of the last credentials, partitions and `Vary` values seen.
    let digests = Lock<[String: String]>([:])
    private let partitionValue = Lock<String?>(nil)
    /// Blocking storages are called here, off Swift's cooperative threads.
    private static let ioQueue = DispatchQueue(label: "Konex.HTTPCache.io", attributes: .concurrent)

    struct ServedHead {
        let statusCode: Int
        let headers: [String: String]
        let age: Int
        let response: ResponseHead
    }

    /// Creates a cache.
    /// - Parameters:
    ///   - storage: Where responses are kept; 10 MB in memory by default.
    ///   - isShared: `true` for a cache shared among users (a proxy); `false` for an app's own cache.
    ///   - cookieStorage: The cookie storage of the session requests go through (`HTTPCookieStorage.shared` for
    ///     `URLSessionConfiguration.default`; pass `configuration.httpCookieStorage` for another), so that two cookie
    ///     sessions never share entries; `nil` when requests carry no cookies.
    ///   - now: The wall clock freshness is measured on; inject one to test expiry without waiting.
    public init(
        storage: any HTTPCacheStorage = MemoryCacheStorage(), isShared: Bool = false,
        cookieStorage: HTTPCookieStorage? = .shared, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.storage = storage
        self.isShared = isShared
        self.cookieStorage = cookieStorage
        self.now = now
    }

    /// Whose responses are stored: set it to the signed-in account's ID. Entries stored under one partition are
    /// never served under another, and within a partition a refreshed token still finds them (without a partition,
    /// each credential value is a partition of its own, which is safe but loses entries at every refresh).
    public var partition: String? {
        get { partitionValue.value }
        set { partitionValue.value = newValue }
    }

    /// Removes every stored response, of every partition: call it when the user signs out.
    public func removeAll() {
        storage.removeAll()
        heads.withLock { $0.removeAll() }
    }

    /// Runs a storage call, on a thread of its own for a storage that blocks on I/O.
    func io<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        guard storage.performsBlockingIO else { return body() }
        return await withCheckedContinuation { continuation in
            Self.ioQueue.async { continuation.resume(returning: body()) }
        }
    }

    public func intercept(_ request: TransportRequest, next: TransportNext) async throws -> TransportReply {
        // A stream or a download passes by: its body is not in the reply to store, nor replayed whole to a reader
        // that asked for it as it arrives.
        guard next.delivery == .whole else { return try await next(request) }
        let key = key(for: request)
        guard request.httpMethod == "GET" else { return try await passing(request, key: key, next: next) }
        let asked = CacheControl(request.value(forHTTPHeaderField: "Cache-Control"))
        if let conditional = CallerValidators(request) {
            return try await answer(conditional, request: request, key: key, asked: asked, next: next)
        }
        let policy = request.cachePolicy
        let ignoresStored =
            asked.has("no-store") || policy == .reloadIgnoringLocalCacheData
            || policy == .reloadIgnoringLocalAndRemoteCacheData
        let found = ignoresStored ? nil : await lookup(key, request)
        switch decide(found, key: key, request: request, asked: asked, next: next) {
        case .reply(let reply):
            return reply
        case .revalidate(let stored, let storedKey):
            return try await revalidate(
                stored, key: storedKey, primaryKey: key, request: Self.outgoing(request), asked: asked, next: next)
        case .fetch:
            return try await fetch(
                key: key, request: Self.outgoing(request), original: request, asked: asked, next: next)
        }
    }

    /// What a GET gets after the lookup.
    private enum Decision {
        /// An answer made here: a hit, a stale hit allowed, a 504 for `only-if-cached`.
        case reply(TransportReply)
        /// Asking the origin whether the stored response is still good.
        case revalidate(CachedResponse, key: String)
        /// A full request to the origin.
        case fetch
    }

    /// What goes on to the network: the transport's own cache stays out of it.
    private static func outgoing(_ request: TransportRequest) -> TransportRequest {
        var outgoing = request
        outgoing.cachePolicy = .reloadIgnoringLocalCacheData
        return outgoing
    }

    /// The decision for a GET given what the lookup `found` (synchronous: its locals are not kept in the async frame
    /// of `intercept`, which lives as long as the origin takes to answer).
    private func decide(
        _ found: (response: CachedResponse, key: String)?, key: String, request: TransportRequest,
        asked: CacheControl, next: TransportNext
    ) -> Decision {
        let policy = request.cachePolicy
        if policy == .returnCacheDataDontLoad || policy == .returnCacheDataElseLoad {
            if let (stored, storedKey) = found { return .reply(serve(stored, key: storedKey, to: request, as: .cache)) }
            if policy == .returnCacheDataDontLoad { return .reply(gatewayTimeout(request)) }
        } else if let (stored, storedKey) = found {
            let age = stored.age(at: now())
            let lifetime = stored.freshnessLifetime(shared: isShared)
            let control = stored.cacheControl
            // Age and lifetime once: each reads the clock and the parsed headers, and a hit should pay for that once.
            let always = asksAlways(stored, age: age, asked: asked, policy: policy)
            let staleness = age - lifetime
            if !always, isFresh(age: age, lifetime: lifetime, asked: asked) {
                return .reply(serve(stored, key: storedKey, to: request, as: .cache, age: age))
            }
            let mayServeStale = !always && !forbidsStale(control)
            if mayServeStale, let maxStale = asked.seconds("max-stale") {
                // `max-stale` without a value accepts any staleness.
                if maxStale == .invalid || staleness <= TimeInterval(maxStale.value) {
                    return .reply(serve(stored, key: storedKey, to: request, as: .cache, age: age))
                }
            }
            if asked.has("only-if-cached") { return .reply(gatewayTimeout(request)) }
            if mayServeStale, let window = control.seconds("stale-while-revalidate"),
                staleness <= TimeInterval(window.value)
            {
                revalidateInBackground(
                    stored, key: storedKey, primaryKey: key, request: Self.outgoing(request), next: next)
                return .reply(serve(stored, key: storedKey, to: request, as: .cache, age: age))
            }
            return .revalidate(stored, key: storedKey)
        } else if asked.has("only-if-cached") {
            return .reply(gatewayTimeout(request))
        }
        return .fetch
    }

    /// A method other than GET goes to the origin; one that is unsafe and succeeded changed the resource, so what is
    /// stored for it is outdated (§4.4).
    // In a frame of its own, as the one below: `intercept`'s frame is held while the origin answers a miss.
    @inline(never) private func passing(_ request: TransportRequest, key: String, next: TransportNext) async throws
        -> TransportReply
    {
        let method = request.httpMethod
        let reply = try await next(request)
        if !["HEAD", "OPTIONS", "TRACE"].contains(method), (200..<400).contains(reply.response.statusCode) {
            await invalidate(after: request, key: key, reply: reply)
        }
        return reply
    }

    /// A caller's own conditional request: a fresh stored response that matches it is answered 304 here (§4.3.2);
    /// otherwise it is theirs to validate with the origin, and only full answers are kept.
    @inline(never) private func answer(
        _ conditional: CallerValidators, request: TransportRequest, key: String, asked: CacheControl,
        next: TransportNext
    ) async throws -> TransportReply {
        if !asked.has("no-cache"), !asked.has("no-store"), request.cachePolicy == .useProtocolCachePolicy,
            let (stored, storedKey) = await lookup(key, request),
            isFresh(age: stored.age(at: now()), lifetime: stored.freshnessLifetime(shared: isShared), asked: asked),
            conditional.match(stored)
        {
            return notModified(stored, key: storedKey, to: request)
        }
        var outgoing = request
        outgoing.cachePolicy = .reloadIgnoringLocalCacheData
        return try await fetch(key: key, request: outgoing, original: request, asked: asked, next: next)
    }

    /// Whether a stored response of this age and lifetime may be served without asking the origin, as far as the
    /// request's `max-age` and `min-fresh` go.
    func isFresh(age: TimeInterval, lifetime: TimeInterval, asked: CacheControl) -> Bool {
        if let maxAge = asked.seconds("max-age"), age > TimeInterval(maxAge.value) { return false }
        let minFresh = TimeInterval(asked.seconds("min-fresh")?.value ?? 0)
        return lifetime - age > minFresh
    }

    /// Whether the request or the stored response insists on the origin whatever the staleness.
    private func asksAlways(
        _ stored: CachedResponse, age: TimeInterval, asked: CacheControl, policy: URLRequest.CachePolicy
    ) -> Bool {
        stored.cacheControl.has("no-cache") || asked.has("no-cache") || policy == .reloadRevalidatingCacheData
            || asked.seconds("max-age").map { age > TimeInterval($0.value) } == true
    }

    /// Whether the stored response forbids serving it stale (`proxy-revalidate` binds shared caches only, §5.2.2.8).
    func forbidsStale(_ control: CacheControl) -> Bool {
        control.has("must-revalidate") || (isShared && control.has("proxy-revalidate"))
    }

    // MARK: Serving

    func serve(
        _ stored: CachedResponse, key: String, to request: TransportRequest, as source: ResponseSource,
        age: TimeInterval? = nil
    ) -> TransportReply {
        let age = Int(min(age ?? stored.age(at: now()), TimeInterval(CacheControl.maximumSeconds)))
        if let head = heads.withLock({ $0[key] }), head.age == age, head.statusCode == stored.statusCode,
            head.headers == stored.headers
        {
            return TransportReply(data: stored.body, response: head.response, source: source)
        }
        var headers = stored.headers
        if let existing = headers.keys.first(where: { $0.lowercased() == "age" }) { headers[existing] = nil }
        headers["Age"] = String(age)
        let response = ResponseHead(
            statusCode: stored.statusCode, headerFields: HTTPHeaders(headers), url: request.url)
        let head = ServedHead(statusCode: stored.statusCode, headers: stored.headers, age: age, response: response)
        heads.withLock { heads in
            if heads.count >= 256 { heads.removeAll(keepingCapacity: true) }  // a memo, not a second cache
            heads[key] = head
        }
        return TransportReply(data: stored.body, response: response, source: source)
    }

    /// What RFC 9111 answers when only a stored response may be used and there is none: 504.
    func gatewayTimeout(_ request: TransportRequest) -> TransportReply {
        let response = ResponseHead(
            statusCode: 504, headerFields: ["Content-Length": "0", "Cache-Control": "no-store"],
            url: request.url)
        return TransportReply(data: Data(), response: response, source: .cache)
    }
}
