import Foundation

/// What a transport does when the server answers with a redirect.
public struct RedirectPolicy: Sendable {
    let decide: @Sendable (_ redirect: URLRequest, _ response: HTTPURLResponse, _ count: Int) -> URLRequest?

    /// Creates a policy from a closure; return the request to follow, or `nil` to stop and return the 3xx.
    /// - Parameter decide: Given the proposed request, the 3xx response, and how many redirects came before it.
    public init(_ decide: @escaping @Sendable (URLRequest, HTTPURLResponse, Int) -> URLRequest?) {
        self.decide = decide
    }

    /// What the policy answers for a redirect: the request to follow, or `nil` to return the 3xx. For transports that
    /// follow redirects themselves.
    /// - Parameters:
    ///   - request: The request the redirect proposes.
    ///   - response: The 3xx response.
    ///   - count: How many redirects came before this one.
    public func redirect(_ request: URLRequest, after response: HTTPURLResponse, count: Int) -> URLRequest? {
        decide(request, response, count)
    }

    /// Follows every redirect (the transport's own limit applies: URLSession's, or 20 for AsyncHTTPClientTransport).
    public static let follow = RedirectPolicy { request, _, _ in request }
    /// Never follows: the 3xx response is returned as is.
    public static let doNotFollow = RedirectPolicy { _, _, _ in nil }
    /// Follows at most `maximum` redirects, then returns the last 3xx response.
    public static func limit(_ maximum: Int) -> RedirectPolicy {
        RedirectPolicy { request, _, count in count < maximum ? request : nil }
    }
}
