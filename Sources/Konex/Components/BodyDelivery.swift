import Foundation

/// How the caller takes a response body: what an interceptor needs to know before it shares, stores or replays a
/// reply, since a body still arriving, or written to a file, has one reader and is not in memory.
///
/// An extensible set of static members, so new ways never break a `switch`.
/// ```swift
/// struct Audit: TransportInterceptor {
///     func intercept(_ request: TransportRequest, next: TransportNext) async throws -> TransportReply {
///         let reply = try await next(request)
///         if let body = reply.body.data { log(body.count) }  // a stream's bytes are still on their way
///         return reply
///     }
/// }
/// ```
public struct BodyDelivery: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// The whole body in memory (the `response…` terminals): the transport's reply holds it whole (`body.data`).
    public static let whole = BodyDelivery(rawValue: "whole")
    /// As it arrives (`stream()`): the body is still arriving when the reply comes back, and ends after it.
    public static let incremental = BodyDelivery(rawValue: "incremental")
    /// Into a file (`download(to:)`): the body is in a file when the reply comes back.
    public static let file = BodyDelivery(rawValue: "file")
}
