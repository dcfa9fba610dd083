import Foundation

extension URLSessionTransport {
    /// Whether a session of `configuration` adds cookies from its storage and keeps the ones answers set.
    static func handlesCookies(_ configuration: URLSessionConfiguration) -> Bool {
        configuration.httpCookieStorage != nil && configuration.httpShouldSetCookies
    }

    /// The transport for requests that leave cookies to someone else (a ``CookieJar`` sets
    /// `httpShouldHandleCookies` to `false`): this one's configuration with no cookie storage.
    ///
    /// A request's `httpShouldHandleCookies` is not enough: FoundationNetworking reads only the session's
    /// configuration, so a jar's cookie was sent a second time from the session's storage, and kept there for every
    /// other client of the transport (CookieJarIntegrationTests found both).
    func withoutCookieStorage() -> URLSessionTransport {
        cookieless.withLock { made in
            if let made { return made }
            let configuration = session.configuration
            configuration.httpCookieStorage = nil
            configuration.httpShouldSetCookies = false
            configuration.httpCookieAcceptPolicy = .never
            let transport = derived(configuration: configuration, tls: appliedTLS)
            made = transport
            return transport
        }
    }
}
