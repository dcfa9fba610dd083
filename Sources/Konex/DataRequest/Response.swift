import Foundation

/// A decoded value together with everything about the exchange that produced it.
///
/// ```swift
/// let response = try await client.request(GetPost(id: 1)).response(of: Post.self)
/// print(response.value.title, response.statusCode, response.headers["ETag"] ?? "-", response.timing.total)
/// ```
/// A response is `Sendable` when its value is: a model decoded on the caller's actor (a main-actor app's own
/// `struct Post: Codable`) stays with that actor's code, as the value itself would.
public struct Response<Value> {
    /// The decoded value.
    public let value: Value
    /// The request as sent, after adapters.
    public let request: TransportRequest
    /// The HTTP response head.
    public let response: ResponseHead
    /// The body as received, before processors.
    public let data: Data
    /// Konex's own timing of the exchange.
    public let timing: RequestTiming
    /// Where the response came from: the network, or an ``HTTPCache`` (fresh, or revalidated with a 304).
    public let source: ResponseSource
    /// The redirects followed to reach `response`, first to last (URL and status of each hop); empty when the first
    /// answer was the last. `response.url` is where the chain ended.
    public let redirects: [Redirect]

    /// Creates a response.
    /// - Parameters:
    ///   - value: The decoded value.
    ///   - request: The request as sent.
    ///   - response: The final HTTP response.
    ///   - data: The body as received.
    ///   - timing: How long it took.
    ///   - source: The network or a cache.
    ///   - redirects: The redirects followed to reach `response`, first to last.
    public init(
        value: Value, request: TransportRequest, response: ResponseHead, data: Data, timing: RequestTiming,
        source: ResponseSource = .network, redirects: [Redirect] = []
    ) {
        self.value = value
        self.request = request
        self.response = response
        self.data = data
        self.timing = timing
        self.source = source
        self.redirects = redirects
    }

    /// The HTTP status code.
    public var statusCode: Int { response.statusCode }

    /// The response headers; `headers["ETag"]` finds the field whatever the case of its name.
    public var headers: HTTPHeaders { response.headerFields }

    /// A header's value, matched case-insensitively.
    public func value(forHTTPHeaderField name: String) -> String? { response.value(forHTTPHeaderField: name) }

    /// The standard reason phrase for the status code, e.g. `"not found"`.
    public var localizedStringForStatusCode: String { HTTPURLResponse.localizedString(forStatusCode: statusCode) }

    /// How long the exchange took, from the first attempt's start to the last attempt's end.
    public var duration: Duration { timing.total }

    /// The same response with its value transformed.
    public func map<T>(_ transform: (Value) throws -> T) rethrows -> Response<T> {
        Response<T>(
            value: try transform(value), request: request, response: response, data: data, timing: timing,
            source: source, redirects: redirects)
    }
}

extension Response: Sendable where Value: Sendable {}

extension Response {
    /// `value` with everything else about the answer it was made from.
    init(_ value: Value, of answer: ReceivedResponse) {
        self.init(
            value: value, request: answer.request, response: answer.response, data: answer.data,
            timing: answer.timing, source: answer.source, redirects: answer.redirects)
    }
}

/// A value that stands for "no body": `Empty`, and `Optional` (as `nil`).
public protocol EmptyDecodable {
    /// The value an empty body decodes to.
    static var emptyValue: Self { get }
}

/// The value of a response whose body does not matter: 204, 205, HEAD, an empty 200, or any body you ignore.
///
/// Decoding `Empty` never reads the body, so a `DELETE` answered with `{"deleted": true}` or with `OK` succeeds too.
/// ```swift
/// _ = try await client.request(DeletePost(id: 1)).validate().responseObject(of: Empty.self)
/// ```
public struct Empty: Codable, Sendable, Hashable, EmptyDecodable {
    /// The empty value.
    public static let emptyValue = Empty()
    /// Creates the empty value.
    public init() {}
}

extension Optional: EmptyDecodable {
    public static var emptyValue: Wrapped? { nil }
}
