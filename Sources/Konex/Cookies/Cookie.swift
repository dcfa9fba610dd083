import Foundation

/// One cookie as a ``CookieJar`` keeps it: what a server's `Set-Cookie` line set, after RFC 6265bis's storage rules.
///
/// Two cookies are the same cookie when their ``name``, ``domain``, ``isHostOnly`` and ``path`` are equal: a newer
/// one replaces the older and keeps its ``created`` date, so the order cookies are sent in does not change.
/// ```swift
/// let jar = CookieJar()
/// jar.receive(["session=abc; Path=/; HttpOnly"], from: URL(string: "https://api.example.com/login")!)
/// jar.cookies(for: URL(string: "https://api.example.com/me")!).map(\.name)   // ["session"]
/// ```
public struct Cookie: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The name; empty for a line with no `=` (RFC 6265bis §5.6: `Set-Cookie: token` is a cookie named "").
    public var name: String
    /// The value, as the server wrote it (never decoded).
    public var value: String
    /// The host it was set by (``isHostOnly``), or the domain it covers with every subdomain; lower-case, no dot first.
    public var domain: String
    /// Whether only ``domain`` itself gets it: a cookie set without a `Domain` attribute.
    public var isHostOnly: Bool
    /// The path it is sent under (and below).
    public var path: String
    /// When it expires; `nil` for a session cookie, which lives until its jar goes and is never written to a file.
    public var expires: Date?
    /// Whether it is sent only over `https` (and `wss`).
    public var isSecure: Bool
    /// Whether it is for HTTP alone: never handed to a script-like reader (see ``CookieJar/Reader/script``).
    public var isHTTPOnly: Bool
    /// Its `SameSite` attribute, recorded (an API client sends every request as a same-site one).
    public var sameSite: SameSite
    /// When it was first stored: of two cookies with paths of one length, the older is sent first.
    public var created: Date
    /// When it was last sent or stored: the jar evicts the least recently used first.
    public var lastAccessed: Date

    /// A cookie's `SameSite` attribute.
    public enum SameSite: String, Sendable, Hashable, Codable {
        /// No attribute, or a value RFC 6265bis does not name.
        case unspecified
        /// `SameSite=Strict`.
        case strict
        /// `SameSite=Lax`.
        case lax
        /// `SameSite=None` (kept only with `Secure`).
        case none
    }

    /// Creates a cookie, as a server's line would set it.
    /// - Parameters:
    ///   - name: The name.
    ///   - value: The value.
    ///   - domain: The host (for a host-only cookie) or the domain it covers.
    ///   - isHostOnly: Whether only `domain` itself gets it; `true` by default.
    ///   - path: The path; `/` by default.
    ///   - expires: When it expires; `nil` (a session cookie) by default.
    ///   - isSecure: Whether it goes over `https` only.
    ///   - isHTTPOnly: Whether scripts may not read it.
    ///   - sameSite: Its `SameSite` attribute.
    ///   - created: When it was first stored; now by default.
    public init(
        name: String, value: String, domain: String, isHostOnly: Bool = true, path: String = "/", expires: Date? = nil,
        isSecure: Bool = false, isHTTPOnly: Bool = false, sameSite: SameSite = .unspecified, created: Date = Date()
    ) {
        self.name = name
        self.value = value
        self.domain = domain.lowercased()
        self.isHostOnly = isHostOnly
        self.path = path
        self.expires = expires
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        self.created = created
        lastAccessed = created
    }

    /// Whether it is a session cookie: no `Expires` or `Max-Age`, so it ends with its jar.
    public var isSession: Bool { expires == nil }

    /// What makes two cookies the same cookie: a newer one with this identity replaces the older.
    var identity: Identity { Identity(name: name, domain: domain, isHostOnly: isHostOnly, path: path) }

    struct Identity: Hashable {
        let name: String
        let domain: String
        let isHostOnly: Bool
        let path: String
    }

    /// How it goes in a `Cookie` header: `name=value`, or the value alone for a nameless cookie (RFC 6265bis §5.8.3).
    var pair: String { name.isEmpty ? value : name + "=" + value }

    /// The name and value in bytes: RFC 6265bis §5.6 refuses a cookie over 4,096.
    var size: Int { name.utf8.count + value.utf8.count }

    /// Whether it has expired at `now`.
    func hasExpired(at now: Date) -> Bool { expires.map { $0 <= now } ?? false }

    /// `name=value` and its scope; the value is never shown (it is usually a credential).
    public var description: String {
        var text = "\(name)=… (\(isHostOnly ? "host " : "domain .")\(domain)\(path)"
        if let expires { text += ", expires \(expires)" }
        if isSecure { text += ", Secure" }
        if isHTTPOnly { text += ", HttpOnly" }
        if sameSite != .unspecified { text += ", SameSite=\(sameSite.rawValue)" }
        return text + ")"
    }
}
