import Foundation

/// Rewrites the outgoing request before it is sent: authentication headers, signing, tracing ids.
///
/// Adapters run in order (client, request, call site) before every attempt, so a retried request gets a fresh
/// token. Throwing fails the request with stage ``KonexError/Stage/adaptation``.
/// ```swift
/// client.request(GetProfile()).withAdapter(.bearer(token))
/// client.request(GetProfile()).withAdapter { request in
///     var request = request
///     request.setValue(try await tokens.current(), forHTTPHeaderField: "Authorization")
///     return request
/// }
/// ```
///
/// The parameter is `consuming`: an adapter that declares it so too
/// (`func adapt(_ request: consuming TransportRequest)`) owns the request and can change it in place instead of
/// copying it per header set. A plain `func adapt(_ request: TransportRequest)` conforms as well.
public protocol RequestAdapter: Sendable {
    /// Returns the request to send instead of `request`.
    /// - Parameter request: The request as built so far.
    /// - Returns: The adapted request.
    /// - Throws: Any error, to fail the request.
    func adapt(_ request: consuming TransportRequest) async throws -> TransportRequest
}

/// An adapter made from a closure.
public struct ClosureAdapter: RequestAdapter {
    let body: @Sendable (TransportRequest) async throws -> TransportRequest
    /// Creates an adapter from a closure.
    public init(_ body: @escaping @Sendable (TransportRequest) async throws -> TransportRequest) { self.body = body }
    public func adapt(_ request: TransportRequest) async throws -> TransportRequest { try await body(request) }
}

/// An adapter that sets one header.
public struct HeaderAdapter: RequestAdapter {
    /// The header's name.
    public let name: String
    /// The header's value.
    public let value: String
    /// Creates an adapter that sets `name: value` on every request.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
    public func adapt(_ request: consuming TransportRequest) async throws -> TransportRequest {
        var request = request
        request.setValue(value, forHTTPHeaderField: name)
        return request
    }
}

extension RequestAdapter where Self == ClosureAdapter {
    /// An adapter from a closure.
    public static func custom(_ body: @escaping @Sendable (TransportRequest) async throws -> TransportRequest)
        -> ClosureAdapter
    {
        ClosureAdapter(body)
    }
}

extension RequestAdapter where Self == HeaderAdapter {
    /// Sets a header on every request.
    public static func header(_ name: String, _ value: String) -> HeaderAdapter {
        HeaderAdapter(name: name, value: value)
    }
    /// `Authorization: Bearer <token>`.
    public static func bearer(_ token: String) -> HeaderAdapter {
        HeaderAdapter(name: "Authorization", value: "Bearer \(token)")
    }
    /// `Authorization: Basic <base64(user:password)>`.
    public static func basic(user: String, password: String) -> HeaderAdapter {
        HeaderAdapter(name: "Authorization", value: "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())
    }
    /// An API key in a header, `X-API-Key` by default.
    public static func apiKey(_ key: String, header: String = "X-API-Key") -> HeaderAdapter {
        HeaderAdapter(name: header, value: key)
    }
}
