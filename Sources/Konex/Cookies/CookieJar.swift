import Foundation

/// Cookies a server set, kept and sent back as RFC 6265bis says, the same over every transport: URLSession,
/// AsyncHTTPClient, `MockTransport`, fixtures and HAR replay.
///
/// Give a client a jar and every request it sends (each hop of a redirect, each retry, a WebSocket's handshake)
/// carries the jar's cookies for its own URL in a `Cookie` header, and every `Set-Cookie` line of every answer from
/// the network goes into the jar. URLSession's own cookie handling is off for those requests, so no cookie is sent
/// twice. Without a jar (the default) nothing changes: over URLSession its session's cookie storage applies.
/// ```swift
/// let client = KonexClient(baseURL: api, cookieJar: CookieJar())
/// _ = try await client.request(LogIn(user: "ada", password: secret)).response()   // Set-Cookie: session=…
/// let me = try await client.request(GetMe()).responseObject(of: User.self)        // Cookie: session=…
/// ```
/// Two clients share cookies only when given the same jar. The rules, all from RFC 6265bis: a `Domain` that is a
/// public suffix is refused (see ``PublicSuffixList``); a cookie without `Domain` is sent to its host alone; `Secure`
/// cookies are neither set nor sent over `http`, and an `http` answer cannot replace one; `__Secure-` and `__Host-`
/// names must keep their promises; `Max-Age` wins over `Expires`, both capped at 400 days; a cookie over 4,096 bytes is
/// refused; ``Limits`` bound the count per domain and in all, the least recently used going first; cookies are sent
/// longest path first, then oldest first.
public final class CookieJar: Sendable {
    /// Where the cookies are kept.
    public let storage: any CookieStorage
    /// The public suffixes refused as a `Domain`; `nil` treats every `Domain` other than the host as one.
    public let publicSuffixes: PublicSuffixList?
    /// How many cookies are kept.
    public let limits: Limits
    private let now: @Sendable () -> Date
    /// One change at a time (the storage rules read the store, then write it), and the last creation date given:
    /// each new cookie is created strictly after the one before, so cookies set by one answer are sent in the order
    /// its lines came.
    private let changes = Lock(Date.distantPast)

    /// How many cookies a jar keeps; past a limit, expired cookies go first, then the least recently used.
    public struct Limits: Sendable, Hashable {
        /// The most cookies for one domain (RFC 6265bis §6.1 asks for at least 50).
        public var perDomain: Int
        /// The most cookies in all (at least 3,000).
        public var total: Int

        /// Creates limits.
        public init(perDomain: Int = 50, total: Int = 3_000) {
            self.perDomain = max(1, perDomain)
            self.total = max(1, total)
        }
    }

    /// Who reads a jar's cookies.
    public enum Reader: Sendable {
        /// An HTTP request: every cookie that matches.
        case http
        /// Something like a page's script (a web view's `document.cookie`): `HttpOnly` cookies are left out.
        case script
    }

    /// The longest an `Expires` or `Max-Age` keeps a cookie (RFC 6265bis §5.5): 400 days.
    public static let maximumLifetime: TimeInterval = 400 * 86_400
    /// The largest name and value together, in bytes (RFC 6265bis §5.6).
    public static let maximumSize = 4_096

    /// Creates a jar.
    /// - Parameters:
    ///   - storage: Where cookies are kept; in memory by default.
    ///   - publicSuffixes: The public suffix list; the system's (``PublicSuffixList/system``) by default. Without
    ///     one, cookies stay with the host that set them.
    ///   - limits: How many cookies are kept.
    ///   - now: The time, for expiry; the system clock by default (tests drive their own).
    public init(
        storage: any CookieStorage = MemoryCookieStorage(), publicSuffixes: PublicSuffixList? = .system,
        limits: Limits = Limits(), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.storage = storage
        self.publicSuffixes = publicSuffixes
        self.limits = limits
        self.now = now
    }

    // MARK: Receiving

    /// Reads `Set-Cookie` lines a server sent in answer to `url`, each on its own (they are never joined).
    /// - Parameters:
    ///   - lines: The lines' values.
    ///   - url: The URL that answered.
    public func receive(_ lines: some Sequence<String>, from url: URL) {
        guard let origin = RequestOrigin(url) else { return }
        changes.withLock { lastCreated in
            for line in lines {
                if let parsed = SetCookieLine(line) { store(parsed, from: origin, lastCreated: &lastCreated) }
            }
        }
    }

    /// Reads every `Set-Cookie` line of `response`; a transport that joined them (URLSession) is split again.
    /// - Parameter response: The answer's head; its ``ResponseHead/url`` is the URL that answered.
    public func receive(_ response: ResponseHead) {
        let lines = SetCookieLines.lines(of: response)
        if !lines.isEmpty { receive(lines, from: response.url) }
    }

    /// Keeps `cookie` as given (code of yours setting a cookie), replacing the one with its name, domain and path.
    /// - Parameter cookie: The cookie.
    public func set(_ cookie: Cookie) {
        changes.withLock { _ in
            var cookie = cookie
            cookie.lastAccessed = now()
            storage.store(cookie)
            evict(around: cookie, at: cookie.lastAccessed)
        }
    }

    /// The storage model (RFC 6265bis §5.7), for one parsed line from `origin`.
    private func store(_ line: SetCookieLine, from origin: RequestOrigin, lastCreated: inout Date) {
        let now = now()
        guard line.name.utf8.count + line.value.utf8.count <= Self.maximumSize else { return }
        // Max-Age wins over Expires; both are capped.
        var expires: Date?
        if let maxAge = line.maxAge {
            expires =
                maxAge <= 0 ? .distantPast : now.addingTimeInterval(min(TimeInterval(maxAge), Self.maximumLifetime))
        } else if let date = line.expires {
            expires = min(date, now.addingTimeInterval(Self.maximumLifetime))
        }
        // Domain: refused when it is a public suffix (unless it is the host itself, then host-only), or when the
        // host is not inside it.
        var domain = origin.host
        var isHostOnly = true
        if let attribute = line.domain {
            guard attribute.utf8.allSatisfy({ $0 < 0x80 }) else { return }
            // Without a list, fail closed: every Domain is a public suffix (the host's own makes a host-only cookie).
            let isPublicSuffix = publicSuffixes.map { $0.isPublicSuffix(attribute) } ?? true
            if isPublicSuffix {
                guard attribute == origin.host else { return }
            } else {
                guard Self.domainMatches(origin.host, attribute, hostIsAddress: origin.isAddress) else { return }
                domain = attribute
                isHostOnly = false
            }
        }
        let path = line.path ?? origin.defaultPath
        // Secure cookies come from secure origins only; SameSite=None needs Secure.
        if line.isSecure && !origin.isSecure { return }
        if line.sameSite == .none && !line.isSecure { return }
        // The prefixes' promises (RFC 6265bis §4.1.3), names matched without case.
        let folded = line.name.lowercased()
        if folded.hasPrefix("__secure-") && !line.isSecure { return }
        if folded.hasPrefix("__host-") && !(line.isSecure && line.domain == nil && path == "/") { return }
        // A nameless cookie must not pass for a prefixed one.
        if line.name.isEmpty {
            let value = line.value.lowercased()
            if value.hasPrefix("__secure-") || value.hasPrefix("__host-") { return }
        }
        var cookie = Cookie(
            name: line.name, value: line.value, domain: domain, isHostOnly: isHostOnly, path: path, expires: expires,
            isSecure: line.isSecure, isHTTPOnly: line.isHTTPOnly, sameSite: line.sameSite, created: now)
        let kept = storage.cookies()
        // An insecure origin cannot shadow a secure cookie of the same name (§5.7, "leave secure cookies alone").
        if !cookie.isSecure && !origin.isSecure,
            kept.contains(where: { other in
                other.name == cookie.name && other.isSecure
                    && (Self.domainMatches(other.domain, cookie.domain, hostIsAddress: false)
                        || Self.domainMatches(cookie.domain, other.domain, hostIsAddress: false))
                    && Self.pathMatches(cookie.path, other.path)
            })
        {
            return
        }
        if let old = kept.first(where: { $0.identity == cookie.identity }) {
            cookie.created = old.created
            storage.remove(old)
        } else {
            // A microsecond apart at least: the order of sending is the order of setting.
            cookie.created = max(now, lastCreated.addingTimeInterval(1e-6))
            lastCreated = cookie.created
        }
        guard !cookie.hasExpired(at: now) else { return }
        storage.store(cookie)
        evict(around: cookie, at: now)
    }

    /// Drops expired cookies, then the least recently used of `cookie`'s domain and of all, past ``limits``.
    private func evict(around cookie: Cookie, at now: Date) {
        var kept = storage.cookies()
        guard kept.count > min(limits.perDomain, limits.total) else { return }
        var sameDomain = kept.filter { $0.domain == cookie.domain }
        if sameDomain.count > limits.perDomain || kept.count > limits.total {
            for expired in kept where expired.hasExpired(at: now) { storage.remove(expired) }
            kept.removeAll { $0.hasExpired(at: now) }
            sameDomain.removeAll { $0.hasExpired(at: now) }
        }
        for old in Self.leastRecentlyUsed(sameDomain, beyond: limits.perDomain) { storage.remove(old) }
        kept = storage.cookies()
        for old in Self.leastRecentlyUsed(kept, beyond: limits.total) { storage.remove(old) }
    }

    private static func leastRecentlyUsed(_ cookies: [Cookie], beyond limit: Int) -> ArraySlice<Cookie> {
        guard cookies.count > limit else { return [] }
        return cookies.sorted { ($0.lastAccessed, $0.created) < ($1.lastAccessed, $1.created) }
            .prefix(cookies.count - limit)
    }

    // MARK: Sending

    /// The cookies that go with a request to `url`, in the order they are sent (longest path first, then oldest).
    /// - Parameters:
    ///   - url: The request's URL.
    ///   - reader: Who reads them: ``Reader/http`` (every cookie) by default, ``Reader/script`` without `HttpOnly`.
    public func cookies(for url: URL, readBy reader: Reader = .http) -> [Cookie] {
        guard let origin = RequestOrigin(url) else { return [] }
        let now = now()
        let matching = storage.cookies().filter { cookie in
            !cookie.hasExpired(at: now)
                && (cookie.isHostOnly
                    ? cookie.domain == origin.host
                    : Self.domainMatches(origin.host, cookie.domain, hostIsAddress: origin.isAddress))
                && Self.pathMatches(origin.path, cookie.path)
                && (!cookie.isSecure || origin.isSecure)
                && (reader == .http || !cookie.isHTTPOnly)
        }
        return matching.sorted { a, b in
            a.path.utf8.count != b.path.utf8.count ? a.path.utf8.count > b.path.utf8.count : a.created < b.created
        }
    }

    /// The `Cookie` header for a request to `url`, or `nil` when no cookie goes with it; the cookies' last use is now.
    /// - Parameter url: The request's URL.
    public func cookieHeader(for url: URL) -> String? {
        let cookies = cookies(for: url)
        guard !cookies.isEmpty else { return nil }
        storage.accessed(cookies, at: now())
        return cookies.map(\.pair).joined(separator: "; ")
    }

    /// Every cookie kept and not expired.
    public var all: [Cookie] {
        let now = now()
        return storage.cookies().filter { !$0.hasExpired(at: now) }
    }

    /// Forgets every cookie (a log-out).
    public func removeAll() {
        changes.withLock { _ in
            for cookie in storage.cookies() { storage.remove(cookie) }
        }
    }

    /// Forgets the cookies for which `shouldRemove` is `true`.
    /// - Parameter shouldRemove: Which to forget.
    public func removeAll(where shouldRemove: (Cookie) -> Bool) {
        changes.withLock { _ in
            for cookie in storage.cookies() where shouldRemove(cookie) { storage.remove(cookie) }
        }
    }

    // MARK: Matching (RFC 6265bis §5.1.3, §5.1.4)

    /// Whether `host` is `domain` or a name under it; an IP address matches only itself.
    static func domainMatches(_ host: String, _ domain: String, hostIsAddress: Bool) -> Bool {
        if host == domain { return true }
        guard !hostIsAddress, host.utf8.count > domain.utf8.count, host.hasSuffix(domain) else { return false }
        return host.utf8[host.utf8.index(host.utf8.endIndex, offsetBy: -domain.utf8.count - 1)] == UInt8(ascii: ".")
    }

    /// Whether `requestPath` is `cookiePath` or under it.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        if cookiePath.hasSuffix("/") { return true }
        return requestPath.utf8[requestPath.utf8.index(requestPath.utf8.startIndex, offsetBy: cookiePath.utf8.count)]
            == UInt8(ascii: "/")
    }
}

/// What the cookie rules read of a request's URL: its host lower-cased, whether it is an address, whether its scheme
/// is secure, its path as written and its default cookie path.
struct RequestOrigin {
    let host: String
    let isAddress: Bool
    let isSecure: Bool
    let path: String

    init?(_ url: URL) {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        isAddress = self.host.contains(":") || self.host.split(separator: ".").allSatisfy { $0.allSatisfy(\.isNumber) }
        let scheme = url.scheme?.lowercased()
        isSecure = scheme == "https" || scheme == "wss"
        let path = url.path(percentEncoded: true)
        self.path = path.isEmpty ? "/" : path
    }

    /// §5.1.4: the path up to its last `/`, or `/`.
    var defaultPath: String {
        guard path.hasPrefix("/"), let last = path.lastIndex(of: "/"), last != path.startIndex else { return "/" }
        return String(path[..<last])
    }
}
