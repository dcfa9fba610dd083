import Foundation
import Konex

/// A request a mock received, kept in its journal.
public struct RecordedRequest: Sendable {
    /// The request as received.
    public let request: URLRequest
    /// Its position among every request the mock received, starting at 0.
    public let sequenceNumber: Int

    /// The method.
    public var method: HTTPMethod { HTTPMethod(request.httpMethod ?? "GET") }
    /// The URL.
    public var url: URL? { request.url }
    /// The URL's path.
    public var path: String { url.map(RequestMatcher.path(of:)) ?? "" }
    /// The query items, in order.
    public var queryItems: [(name: String, value: String)] { RequestMatcher.queryItems(of: url) }
    /// The body bytes, empty when there is none.
    public var body: Data { request.httpBody ?? Data() }
    /// A header's value, matched case-insensitively.
    public func header(_ name: String) -> String? { request.value(forHTTPHeaderField: name) }
    /// The body decoded from JSON.
    /// - Throws: `DecodingError` when it does not decode.
    public func decodedBody<T: Decodable>(as type: T.Type, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(type, from: body)
    }
}
