import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Cookies kept in a Foundation `HTTPCookieStorage`, so a ``CookieJar`` shares them with the rest of an app (the
/// shared storage is the one `URLSession.shared` and an app's other code read).
///
/// The jar still decides which cookies to keep and send; the storage is the record, so a cookie another part of the
/// app puts there is sent by Konex too. `HTTPCookie` keeps no creation date, so cookies read back from it are sent
/// longest path first, and in the storage's order within one length.
/// ```swift
/// let client = KonexClient(baseURL: api, cookieJar: CookieJar(storage: SystemCookieStorage(.shared)))
/// ```
public final class SystemCookieStorage: CookieStorage {
    // Sendable in both Foundations: Apple documents HTTPCookieStorage as thread-safe.
    private let storage: HTTPCookieStorage

    /// Keeps cookies in `storage`.
    /// - Parameter storage: The storage; `HTTPCookieStorage.shared` by default.
    public init(_ storage: HTTPCookieStorage = .shared) {
        self.storage = storage
    }

    public func cookies() -> [Cookie] { (storage.cookies ?? []).map(Self.cookie) }

    public func store(_ cookie: Cookie) {
        if let made = Self.httpCookie(cookie) { storage.setCookie(made) }
    }

    public func remove(_ cookie: Cookie) {
        for kept in storage.cookies ?? [] where Self.cookie(kept).identity == cookie.identity {
            storage.deleteCookie(kept)
        }
    }

    /// Foundation writes a domain cookie's domain with a leading dot, and a host-only cookie's without one.
    static func cookie(_ cookie: HTTPCookie) -> Cookie {
        let isHostOnly = !cookie.domain.hasPrefix(".")
        var sameSite = Cookie.SameSite.unspecified
        #if canImport(Darwin)
            switch cookie.sameSitePolicy {
            case HTTPCookieStringPolicy.sameSiteStrict?: sameSite = .strict
            case HTTPCookieStringPolicy.sameSiteLax?: sameSite = .lax
            default: break
            }
        #endif
        return Cookie(
            name: cookie.name, value: cookie.value,
            domain: isHostOnly ? cookie.domain : String(cookie.domain.dropFirst()), isHostOnly: isHostOnly,
            path: cookie.path, expires: cookie.isSessionOnly ? nil : cookie.expiresDate, isSecure: cookie.isSecure,
            isHTTPOnly: cookie.isHTTPOnly, sameSite: sameSite, created: Date(timeIntervalSince1970: 0))
    }

    static func httpCookie(_ cookie: Cookie) -> HTTPCookie? {
        var properties: [HTTPCookiePropertyKey: Any] = [
            .name: cookie.name, .value: cookie.value, .path: cookie.path,
            .domain: cookie.isHostOnly ? cookie.domain : "." + cookie.domain,
        ]
        if let expires = cookie.expires { properties[.expires] = expires }
        if cookie.isSecure { properties[.secure] = "TRUE" }
        if cookie.isHTTPOnly { properties[HTTPCookiePropertyKey("HttpOnly")] = "TRUE" }
        #if canImport(Darwin)
            switch cookie.sameSite {
            case .strict: properties[.sameSitePolicy] = HTTPCookieStringPolicy.sameSiteStrict.rawValue
            case .lax: properties[.sameSitePolicy] = HTTPCookieStringPolicy.sameSiteLax.rawValue
            case .none, .unspecified: break
            }
        #endif
        return HTTPCookie(properties: properties)
    }
}
