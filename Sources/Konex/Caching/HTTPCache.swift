import Foundation

/// An HTTP cache (RFC 9111) in Konex itself, so it behaves the same on Linux, where FoundationNetworking has no usable
/// one, and on Apple platforms.
///
/// It keeps GET responses the server allows it to keep, serves them while they are fresh (`max-age`, `Expires`,
/// `Age`, or 10 % of the time since `Last-Modified`, up to a day), revalidates stale ones with `If-None-Match` /
/// `If-Modified-Since` and merges a `304` into the stored response, and honours `no-store`, `no-cache`,
/// `must-revalidate`, `private`/`s-maxage` (a private cache by default), `Vary`, `stale-while-revalidate` and
/// `stale-if-error`, and the request's own `Cache-Control` (`no-cache`, `no-store`, `max-age`, `max-stale`,
/// `min-fresh`, `only-if-cached`). A successful POST, PUT, PATCH or DELETE removes the stored response for its URL.
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
/// let client = KonexClient(baseURL: api, interceptors: [cache])
/// let posts = try await client.request(GetPosts()).response(of: [Post].self)
/// print(posts.source)                                               // .network, then .cache, then .revalidated
/// let offline = try await client.request(GetPosts()).cachePolicy(.returnCacheDataDontLoad).responseArray(of: Post.self)
/// ```
public final class HTTPCache: TransportInterceptor {
    /// Where responses are kept.
    public let storage: any HTTPCacheStorage
    /// Whether this cache is shared among users (`s-maxage` applies, `private` responses are not kept); `false`.
    public let isShared: Bool
    let now: @Sendable () -> Date
    /// Keys whose background revalidation (`stale-while-revalidate`) is running, so one runs at a time per key.
    private let revalidating = Lock<Set<String>>([])
    /// The last response head served per key: building an HTTPURLResponse costs microseconds on Linux, and hits
    /// in the same second with the same stored headers can share one.
    private let heads = Lock<[String: ServedHead]>([:])

    private struct ServedHead {
        let statusCode: Int
        let headers: [String: String]
        let age: Int
        let response: HTTPURLResponse
    }

    /// Creates a cache.
    /// - Parameters:
    ///   - storage: Where responses are kept; 10 MB in memory by default.
    ///   - isShared: `true` for a cache shared among users (a proxy); `false` for an app's own cache.
    ///   - now: The wall clock freshness is measured on; inject one to test expiry without waiting.
    public init(
        storage: any HTTPCacheStorage = MemoryCacheStorage(), isShared: Bool = false,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.storage = storage
        self.isShared = isShared
        self.now = now
    }

    /// The key a request's response is stored under: its URL without the fragment (only GET responses are stored),
    /// and, when the request carries `Authorization`, a hash of it.
    ///
    /// An app that switches accounts must not be served one account's response for another, and a server rarely
    /// says `Vary: Authorization`; so credentials always separate entries (the hash, not the credential, is what a
    /// disk storage writes).
    public static func key(for request: URLRequest) -> String? {
        guard var text = request.url?.absoluteString else { return nil }
        if let hash = text.utf8.firstIndex(of: UInt8(ascii: "#")) { text = String(text[..<hash]) }
        if let credentials = request.value(forHTTPHeaderField: "Authorization") {
            text += " authorization:" + StableHash.fnv1a(credentials)
        }
        return text
    }

    public func intercept(_ request: URLRequest, next: TransportNext) async throws -> TransportReply {
        guard let key = Self.key(for: request) else { return try await next(request) }
        let method = request.httpMethod ?? "GET"
        guard method == "GET" else {
            let reply = try await next(request)
            // An unsafe method that succeeded changed the resource: what is stored for it is outdated (§4.4).
            if !["HEAD", "OPTIONS", "TRACE"].contains(method), (200..<400).contains(reply.response.statusCode) {
                storage.removeResponse(forKey: key)
            }
            return reply
        }
        // What goes on to the network: the transport's own cache stays out of it. Made only when needed (writing a
        // URLRequest copies it, which a hit should not pay for).
        var outgoing: URLRequest {
            var outgoing = request
            outgoing.cachePolicy = .reloadIgnoringLocalCacheData
            return outgoing
        }
        let asked = CacheControl(request.value(forHTTPHeaderField: "Cache-Control"))
        // A caller's own conditional request is theirs to validate: pass it through, keep only full answers.
        let callerValidates =
            request.value(forHTTPHeaderField: "If-None-Match") != nil
            || request.value(forHTTPHeaderField: "If-Modified-Since") != nil

        let policy = request.cachePolicy
        let ignoresStored =
            callerValidates || asked.has("no-store") || policy == .reloadIgnoringLocalCacheData
            || policy == .reloadIgnoringLocalAndRemoteCacheData
        let stored = ignoresStored ? nil : storage.response(forKey: key).flatMap { matching($0, request) }

        if policy == .returnCacheDataDontLoad || policy == .returnCacheDataElseLoad {
            if let stored { return serve(stored, key: key, to: request, as: .cache) }
            if policy == .returnCacheDataDontLoad { return gatewayTimeout(request) }
        } else if let stored {
            let age = stored.age(at: now())
            let lifetime = stored.freshnessLifetime(shared: isShared)
            let control = stored.cacheControl
            let mustAsk =
                control.has("no-cache") || asked.has("no-cache") || policy == .reloadRevalidatingCacheData
                || asked.seconds("max-age").map { age > TimeInterval($0.value) } == true
            let minFresh = TimeInterval(asked.seconds("min-fresh")?.value ?? 0)
            let staleness = age - lifetime
            if !mustAsk, lifetime - age > minFresh {
                return serve(stored, key: key, to: request, as: .cache, age: age)
            }
            let mayServeStale = !mustAsk && !control.has("must-revalidate") && !control.has("proxy-revalidate")
            if mayServeStale, let maxStale = asked.seconds("max-stale") {
                // `max-stale` without a value accepts any staleness.
                if maxStale == .invalid || staleness <= TimeInterval(maxStale.value) {
                    return serve(stored, key: key, to: request, as: .cache, age: age)
                }
            }
            if asked.has("only-if-cached") { return gatewayTimeout(request) }
            if mayServeStale, let window = control.seconds("stale-while-revalidate"),
                staleness <= TimeInterval(window.value)
            {
                revalidateInBackground(stored, key: key, request: outgoing, next: next)
                return serve(stored, key: key, to: request, as: .cache, age: age)
            }
            return try await revalidate(stored, key: key, request: outgoing, asked: asked, next: next)
        } else if asked.has("only-if-cached") {
            return gatewayTimeout(request)
        }
        return try await fetch(key: key, request: outgoing, original: request, asked: asked, next: next)
    }

    // MARK: Network

    /// Asks the server and keeps the answer when allowed.
    private func fetch(
        key: String, request: URLRequest, original: URLRequest, asked: CacheControl, next: TransportNext
    ) async throws -> TransportReply {
        let requestDate = now()
        let reply = try await next(request)
        keep(reply, key: key, request: original, asked: asked, requestDate: requestDate)
        return reply
    }

    /// Asks the server whether `stored` is still good; a 304 refreshes it, an error may fall back on it.
    private func revalidate(
        _ stored: CachedResponse, key: String, request: URLRequest, asked: CacheControl, next: TransportNext
    ) async throws -> TransportReply {
        var conditional = request
        if let etag = stored.header("ETag") { conditional.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        if let modified = stored.header("Last-Modified") {
            conditional.setValue(modified, forHTTPHeaderField: "If-Modified-Since")
        }
        let requestDate = now()
        let reply: TransportReply
        do {
            reply = try await next(conditional)
        } catch let error where !(error is CancellationError) && (error as? URLError)?.code != .cancelled {
            if let fallback = staleIfError(stored, key: key, request: request, asked: asked) { return fallback }
            throw error
        }
        let status = reply.response.statusCode
        if status == 304, stored.hasValidator {
            let refreshed = stored.updated(by: reply.response, requestDate: requestDate, responseDate: now())
            storage.store(refreshed, forKey: key)
            var served = serve(refreshed, key: key, to: request, as: .revalidated)
            served.queueTime = reply.queueTime
            return served
        }
        if (500...599).contains(status), let fallback = staleIfError(stored, key: key, request: request, asked: asked) {
            return fallback
        }
        keep(reply, key: key, request: request, asked: asked, requestDate: requestDate)
        return reply
    }

    /// `stale-if-error` (RFC 5861 §4), from the response or the request, unless `must-revalidate` forbids it.
    private func staleIfError(_ stored: CachedResponse, key: String, request: URLRequest, asked: CacheControl)
        -> TransportReply?
    {
        let control = stored.cacheControl
        guard !control.has("must-revalidate"), !control.has("no-cache"),
            let window = control.seconds("stale-if-error") ?? asked.seconds("stale-if-error")
        else { return nil }
        let age = stored.age(at: now())
        guard age - stored.freshnessLifetime(shared: isShared) <= TimeInterval(window.value) else { return nil }
        return serve(stored, key: key, to: request, as: .cache, age: age)
    }

    /// `stale-while-revalidate`: the stale response is served now and refreshed behind the caller's back.
    private func revalidateInBackground(
        _ stored: CachedResponse, key: String, request: URLRequest, next: TransportNext
    ) {
        let started = revalidating.withLock { $0.insert(key).inserted }
        guard started else { return }
        Task {
            defer { _ = revalidating.withLock { $0.remove(key) } }
            _ = try? await revalidate(stored, key: key, request: request, asked: CacheControl(nil), next: next)
        }
    }

    // MARK: Serving

    private func serve(
        _ stored: CachedResponse, key: String, to request: URLRequest, as source: ResponseSource,
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
        let response = HTTPURLResponse(
            url: request.url ?? stored.url, statusCode: stored.statusCode, httpVersion: "HTTP/1.1",
            headerFields: headers)!
        let head = ServedHead(statusCode: stored.statusCode, headers: stored.headers, age: age, response: response)
        heads.withLock { heads in
            if heads.count >= 256 { heads.removeAll(keepingCapacity: true) }  // a memo, not a second cache
            heads[key] = head
        }
        return TransportReply(data: stored.body, response: response, source: source)
    }

    /// What RFC 9111 answers when only a stored response may be used and there is none: 504.
    private func gatewayTimeout(_ request: URLRequest) -> TransportReply {
        let response = HTTPURLResponse(
            url: request.url ?? URL(fileURLWithPath: "/"), statusCode: 504, httpVersion: "HTTP/1.1",
            headerFields: ["Content-Length": "0", "Cache-Control": "no-store"])!
        return TransportReply(data: Data(), response: response, source: .cache)
    }
}
