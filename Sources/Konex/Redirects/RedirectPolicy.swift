import Foundation

/// Which redirects Konex follows, and how far.
///
/// Konex follows redirects itself, above the transport, with the same rules over every transport (the mocks and
/// fixtures included). The rules come first and cannot be turned off by a policy's closure:
/// - only `http` and `https` targets are followed (a Unix-socket origin only within its own socket); `file:`, `ftp:`,
///   `data:` and every other scheme are refused with a ``KonexError/Stage/redirect`` error;
/// - `https` to `http` is refused unless ``allowsInsecureDowngrade`` is set;
/// - when the origin (scheme, host or port) changes, `Authorization`, `Proxy-Authorization`, `Cookie` and every header
///   the client's ``Redaction`` holds secret (listed, or named like a credential: `X-Tenant-Key`) are dropped;
/// - a 303, and a 301 or 302 after a `POST`, becomes a `GET` (a `HEAD` stays one) without the body and its `Content-*`
///   fields; otherwise the method and body are kept, and a body that cannot be sent again (a stream) ends the chain
///   with the 3xx;
/// - a loop, or more than ``maximumRedirects`` hops, is a ``KonexError/Stage/redirect`` error.
///
/// Within those rules the policy's closure decides each hop: it gets the request the rules propose. The rules judge
/// only the hops that are followed: a hop the closure declines ends the chain with its 3xx, and so does every 3xx
/// under ``doNotFollow``, even one whose target a rule would refuse.
/// ```swift
/// let client = KonexClient(baseURL: api, redirectPolicy: .limit(3))
/// let strict = KonexClient(baseURL: api, redirectPolicy: .doNotFollow)   // every 3xx comes back as it is
/// ```
public struct RedirectPolicy: Sendable {
    let decide: @Sendable (_ redirect: TransportRequest, _ response: ResponseHead, _ count: Int) -> TransportRequest?
    /// The most hops followed before the chain fails as too long; 20 by default, as browsers and curl allow.
    public var maximumRedirects: Int
    /// Whether a redirect from `https` to `http` is followed (with the stripping of a change of origin); `false` by
    /// default, so nothing sent over TLS is sent again in the clear.
    public var allowsInsecureDowngrade: Bool
    /// Whether the policy is ``doNotFollow``: every 3xx is the answer, before any rule reads its `Location`.
    let followsNothing: Bool

    /// Creates a policy from a closure; return the request to follow, or `nil` to stop and return the 3xx.
    /// - Parameters:
    ///   - maximumRedirects: The most hops followed; 20 by default.
    ///   - allowsInsecureDowngrade: Whether `https` may redirect to `http`; `false` by default.
    ///   - decide: Given the request the rules propose, the 3xx response, and how many redirects came before it.
    public init(
        maximumRedirects: Int = 20, allowsInsecureDowngrade: Bool = false,
        _ decide: @escaping @Sendable (TransportRequest, ResponseHead, Int) -> TransportRequest?
    ) {
        self.maximumRedirects = max(0, maximumRedirects)
        self.allowsInsecureDowngrade = allowsInsecureDowngrade
        self.decide = decide
        followsNothing = false
    }

    private init(followingNothing: Void) {
        maximumRedirects = 0
        allowsInsecureDowngrade = false
        decide = { _, _, _ in nil }
        followsNothing = true
    }

    /// What the policy's closure answers for a redirect: the request to follow, or `nil` to return the 3xx.
    /// - Parameters:
    ///   - request: The request the redirect proposes.
    ///   - response: The 3xx response.
    ///   - count: How many redirects came before this one.
    public func redirect(_ request: TransportRequest, after response: ResponseHead, count: Int) -> TransportRequest? {
        decide(request, response, count)
    }

    /// Follows redirects within the rules, up to 20 hops.
    public static let follow = RedirectPolicy { request, _, _ in request }
    /// Never follows: every 3xx response is returned as it came, whatever its `Location` (another scheme, `https` to
    /// `http`, not a URL at all): the rules judge only the hops Konex follows.
    public static let doNotFollow = RedirectPolicy(followingNothing: ())
    /// Follows at most `maximum` redirects, then returns the last 3xx response.
    public static func limit(_ maximum: Int) -> RedirectPolicy {
        // The limit ends the chain quietly, so the hard cap must not fail it first.
        RedirectPolicy(maximumRedirects: Swift.max(20, maximum)) { request, _, count in
            count < maximum ? request : nil
        }
    }

    /// The same policy, also following `https` → `http` (credentials are still dropped on the change of origin).
    public func allowingInsecureDowngrade() -> RedirectPolicy {
        var policy = self
        policy.allowsInsecureDowngrade = true
        return policy
    }
}

/// One hop of a redirect chain: the URL that answered with a redirect, and its status.
public struct Redirect: Sendable, Hashable, CustomStringConvertible {
    /// The URL that redirected.
    public let url: URL
    /// The 3xx status it answered with.
    public let statusCode: Int

    /// Creates a hop.
    public init(url: URL, statusCode: Int) {
        self.url = url
        self.statusCode = statusCode
    }

    public var description: String { "\(statusCode) \(url.absoluteString)" }
}
