import Foundation

/// The head of a request as a transport sends it: method, URL, header fields (repeats kept) and a timeout.
///
/// Konex's own value, named apart from SwiftNIO's `HTTPRequestHead` so files that import both read plainly. It reads
/// like `URLRequest` where a transport looks: `httpMethod`, `url`, `value(forHTTPHeaderField:)` in any case,
/// `setValue(_:forHTTPHeaderField:)`, `timeoutInterval`.
/// ```swift
/// var head = RequestHead(method: .get, url: URL(string: "https://api.example.com/posts")!)
/// head.setValue("application/json", forHTTPHeaderField: "Accept")
/// ```
public struct RequestHead: Sendable {
    /// The request this head was made from, while unchanged, body included: read only for what a transport asks,
    /// and handed to URLSession as it is.
    private(set) var origin: URLRequest?
    /// The parts, once the head is changed (or when it was made from parts).
    private var parts: Parts

    private struct Parts: Sendable {
        var method: HTTPMethod
        var url: URL
        var headerFields: HTTPHeaders
        var timeout: Duration?

        static let unused = Parts(method: .get, url: URL(fileURLWithPath: "/"), headerFields: [:], timeout: nil)
    }

    /// Creates a head.
    /// - Parameters:
    ///   - method: The method.
    ///   - url: The URL.
    ///   - headerFields: The fields, repeats kept.
    ///   - timeout: The longest wait for data; `nil` for none.
    public init(method: HTTPMethod, url: URL, headerFields: HTTPHeaders = [:], timeout: Duration? = nil) {
        parts = Parts(method: method, url: url, headerFields: headerFields, timeout: timeout)
        origin = nil
    }

    /// The head of a Foundation request (its body is not part of a head).
    /// - Parameter request: The request; one without a URL gets `about:blank`.
    public init(_ request: URLRequest) {
        origin = request
        parts = .unused
    }

    /// The method.
    public var method: HTTPMethod {
        get { origin.map { HTTPMethod($0.httpMethod ?? "GET") } ?? parts.method }
        set { detached { $0.method = newValue } }
    }

    /// The URL.
    public var url: URL {
        get { origin.map { $0.url ?? URL(string: "about:blank")! } ?? parts.url }
        set { detached { $0.url = newValue } }
    }

    /// The header fields in order, repeats kept.
    public var headerFields: HTTPHeaders {
        get { origin.map(Self.fields(of:)) ?? parts.headerFields }
        set { detached { $0.headerFields = newValue } }
    }

    /// The longest the request may wait for data (URLSession's reading of `timeoutInterval`); `nil` for no limit.
    public var timeout: Duration? {
        get { origin.map(Self.timeout(of:)) ?? parts.timeout }
        set { detached { $0.timeout = newValue } }
    }

    private static func fields(of request: URLRequest) -> HTTPHeaders {
        HTTPHeaders(keepingRepeats: (request.allHTTPHeaderFields ?? [:]).map { (name: $0.key, value: $0.value) })
    }

    private static func timeout(of request: URLRequest) -> Duration? {
        let interval = request.timeoutInterval
        return interval > 0 && interval.isFinite ? Duration(clampedSeconds: interval, atMost: 86_400 * 365) : nil
    }

    /// Applies `change` to the parts, first read from the request, which then no longer stands for the head.
    private mutating func detached(_ change: (inout Parts) -> Void) {
        if let origin {
            parts = Parts(
                method: HTTPMethod(origin.httpMethod ?? "GET"), url: origin.url ?? URL(string: "about:blank")!,
                headerFields: Self.fields(of: origin), timeout: Self.timeout(of: origin))
            self.origin = nil
        }
        change(&parts)
    }

    /// The method's name, as `URLRequest` spells it.
    public var httpMethod: String { origin?.httpMethod ?? parts.method.rawValue }

    /// The timeout in seconds, as `URLRequest` spells it; `.infinity` for none.
    public var timeoutInterval: TimeInterval { timeout?.seconds ?? .infinity }

    /// A field's value by name in any case; repeated fields come back joined by `", "`.
    /// - Parameter name: The field name.
    public func value(forHTTPHeaderField name: String) -> String? {
        if let origin { return origin.value(forHTTPHeaderField: name) }
        return parts.headerFields.combinedValue(for: name)
    }

    /// Sets a field, replacing every field of that name; `nil` removes them.
    /// - Parameters:
    ///   - value: The value, or `nil`.
    ///   - name: The field name, in any case.
    public mutating func setValue(_ value: String?, forHTTPHeaderField name: String) {
        detached { parts in
            var fields = parts.headerFields.fields.filter { !HTTPHeaders.equal($0.name, name) }
            if let value { fields.append((name, value)) }
            parts.headerFields = HTTPHeaders(keepingRepeats: fields)
        }
    }

    /// This head as a Foundation request without a body: the request it was made from when unchanged (body and
    /// all), else a new one.
    public var urlRequest: URLRequest {
        if let origin { return origin }
        var request = URLRequest(url: parts.url)
        request.httpMethod = parts.method.rawValue
        if let timeout = parts.timeout { request.timeoutInterval = timeout.seconds }
        for (name, value) in parts.headerFields { request.addValue(value, forHTTPHeaderField: name) }
        return request
    }
}
