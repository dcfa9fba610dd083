import Foundation

/// An HTTP request method: the standard ones as static members, any other by its name.
///
/// ```swift
/// let method: HTTPMethod = .post
/// let purge = HTTPMethod("PURGE")
/// ```
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method's token as sent on the wire, e.g. `"GET"`.
    public let rawValue: String

    /// Creates a method from its token; methods are case-sensitive, so it is kept as given.
    /// - Parameter rawValue: The token, e.g. `"PURGE"`.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Creates a method from its token.
    /// - Parameter rawValue: The token, e.g. `"PURGE"`.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Creates a method from a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    /// `GET`
    public static let get = HTTPMethod("GET")
    /// `POST`
    public static let post = HTTPMethod("POST")
    /// `PUT`
    public static let put = HTTPMethod("PUT")
    /// `PATCH`
    public static let patch = HTTPMethod("PATCH")
    /// `DELETE`
    public static let delete = HTTPMethod("DELETE")
    /// `HEAD`
    public static let head = HTTPMethod("HEAD")
    /// `OPTIONS`
    public static let options = HTTPMethod("OPTIONS")
    /// `TRACE`
    public static let trace = HTTPMethod("TRACE")
    /// `CONNECT`
    public static let connect = HTTPMethod("CONNECT")

    /// Whether `parameters` travel in the query string (GET, HEAD, DELETE) rather than in a JSON body.
    public var encodesParametersInQuery: Bool { self == .get || self == .head || self == .delete }

    /// Whether the method may carry a body at all; Konex refuses a body on GET and HEAD.
    public var allowsBody: Bool { self != .get && self != .head }

    /// Whether repeating the request has the same effect as sending it once (RFC 9110 §9.2.2); retries rely on it.
    public var isIdempotent: Bool {
        [.get, .head, .options, .trace, .put, .delete].contains(self)
    }
}
