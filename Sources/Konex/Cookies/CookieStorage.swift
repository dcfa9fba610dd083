import Foundation

/// Where a ``CookieJar`` keeps its cookies: in memory (``MemoryCookieStorage``, the default), in a file
/// (``FileCookieStorage``), or in Foundation's `HTTPCookieStorage` (``SystemCookieStorage``).
///
/// The jar applies RFC 6265bis (which cookies to keep, which to send, which to evict); a storage only keeps what it is
/// given and answers what it holds. The jar calls it under a lock of its own, so one storage shared by two jars is
/// consistent only if the storage is. A storage of your own (a keychain, a database) implements three methods:
/// ```swift
/// final class KeychainCookies: CookieStorage {
///     func cookies() -> [Cookie] { … }              // everything kept
///     func store(_ cookie: Cookie) { … }            // add, or replace the one with its name, domain and path
///     func remove(_ cookie: Cookie) { … }           // by name, domain and path
/// }
/// ```
public protocol CookieStorage: AnyObject, Sendable {
    /// Every cookie kept, expired ones included (the jar drops those).
    func cookies() -> [Cookie]
    /// Keeps `cookie`, replacing a kept one with the same name, domain, host-only flag and path.
    func store(_ cookie: Cookie)
    /// Forgets the kept cookie with `cookie`'s name, domain, host-only flag and path, if there is one.
    func remove(_ cookie: Cookie)
    /// Notes that `cookies` were sent at `date`; storages that persist need not write for it (it only orders
    /// eviction). Does nothing by default.
    func accessed(_ cookies: [Cookie], at date: Date)
}

extension CookieStorage {
    public func accessed(_ cookies: [Cookie], at date: Date) {}
}

/// Cookies kept in memory, for as long as the storage lives: the default of a ``CookieJar``.
public final class MemoryCookieStorage: CookieStorage {
    private let kept = Lock<[Cookie.Identity: Cookie]>([:])

    /// Creates an empty storage.
    public init() {}

    public func cookies() -> [Cookie] { Array(kept.value.values) }
    public func store(_ cookie: Cookie) { kept.withLock { $0[cookie.identity] = cookie } }
    public func remove(_ cookie: Cookie) { _ = kept.withLock { $0.removeValue(forKey: cookie.identity) } }

    public func accessed(_ cookies: [Cookie], at date: Date) {
        kept.withLock { kept in
            for cookie in cookies { kept[cookie.identity]?.lastAccessed = date }
        }
    }
}
