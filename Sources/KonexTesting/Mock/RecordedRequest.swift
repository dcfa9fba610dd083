import Foundation
import Konex

/// A request a mock received, kept in its journal.
public struct RecordedRequest: Sendable {
    /// The request as received.
    public let sent: TransportRequest
    /// The request as received, as a Foundation request (made when read).
    public var request: URLRequest { sent.urlRequest }
    /// Its position among every request the mock received, starting at 0.
    public let sequenceNumber: Int

    /// The method.
    public var method: HTTPMethod { sent.method }
    /// The URL.
    public var url: URL? { sent.url }
    /// The URL's path.
    public var path: String { RequestMatcher.path(of: sent.url) }
    /// The query items, in order.
    public var queryItems: [(name: String, value: String)] { RequestMatcher.queryItems(of: url) }
    /// The body bytes, empty when there is none.
    public var body: Data { sent.httpBody ?? Data() }
    /// A header's value, matched case-insensitively.
    public func header(_ name: String) -> String? { sent.value(forHTTPHeaderField: name) }
    /// The body decoded from JSON.
    /// - Throws: `DecodingError` when it does not decode.
    public func decodedBody<T: Decodable>(as type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(type, from: body)
    }
}
