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
    /// The method.
    public var method: HTTPMethod {
        didSet { detach() }
    }
    /// The URL.
    public var url: URL {
        didSet { detach() }
    }
    /// The header fields in order, repeats kept.
    public var headerFields: HTTPHeaders {
        // Read from the request only when asked: a transport over URLSession never asks.
        get { storedFields ?? origin.map(Self.fields(of:)) ?? [:] }
        set {
            storedFields = newValue
            origin = nil
        }
    }
    /// The longest the request may wait for data (URLSession's reading of `timeoutInterval`); `nil` for no limit.
    public var timeout: Duration? {
        didSet { detach() }
    }
    private var storedFields: HTTPHeaders?
    /// The request this head was read from, while unchanged, body included: handed to URLSession as it is.
    var origin: URLRequest?

    /// Creates a head.
    /// - Parameters:
    ///   - method: The method.
    ///   - url: The URL.
    ///   - headerFields: The fields, repeats kept.
    ///   - timeout: The longest wait for data; `nil` for none.
    public init(method: HTTPMethod, url: URL, headerFields: HTTPHeaders = [:], timeout: Duration? = nil) {
        self.method = method
        self.url = url
        storedFields = headerFields
        self.timeout = timeout
        origin = nil
    }

    /// The head of a Foundation request (its body is not part of a head).
    /// - Parameter request: The request; one without a URL gets `about:blank`.
    public init(_ request: URLRequest) {
        method = HTTPMethod(request.httpMethod ?? "GET")
        url = request.url ?? URL(string: "about:blank")!
        storedFields = nil
        let interval = request.timeoutInterval
        timeout = interval > 0 && interval.isFinite ? Duration(clampedSeconds: interval, atMost: 86_400 * 365) : nil
        origin = request
    }

    private static func fields(of request: URLRequest) -> HTTPHeaders {
        HTTPHeaders(keepingRepeats: (request.allHTTPHeaderFields ?? [:]).map { ($0.key, $0.value) })
    }

    /// Keeps the fields and lets the request go, before a change makes it stale.
    private mutating func detach() {
        guard let origin else { return }
        if storedFields == nil { storedFields = Self.fields(of: origin) }
        self.origin = nil
    }

    /// The method's name, as `URLRequest` spells it.
    public var httpMethod: String { method.rawValue }

    /// The timeout in seconds, as `URLRequest` spells it; `.infinity` for none.
    public var timeoutInterval: TimeInterval { timeout?.seconds ?? .infinity }

    /// A field's value by name in any case; repeated fields come back joined by `", "`.
    /// - Parameter name: The field name.
    public func value(forHTTPHeaderField name: String) -> String? {
        if let origin { return origin.value(forHTTPHeaderField: name) }
        return headerFields.combinedValue(for: name)
    }

    /// Sets a field, replacing every field of that name; `nil` removes them.
    /// - Parameters:
    ///   - value: The value, or `nil`.
    ///   - name: The field name, in any case.
    public mutating func setValue(_ value: String?, forHTTPHeaderField name: String) {
        var fields = headerFields.fields.filter { !HTTPHeaders.equal($0.name, name) }
        if let value { fields.append((name, value)) }
        headerFields = HTTPHeaders(keepingRepeats: fields.map { ($0.name, $0.value) })
    }

    /// This head as a Foundation request without a body: the request it was read from when unchanged (body and
    /// all), else a new one.
    public var urlRequest: URLRequest {
        if let origin { return origin }
        var request = URLRequest(url: url)
        request.httpMethod = method.rawValue
        if let timeout { request.timeoutInterval = timeout.seconds }
        for (name, value) in headerFields { request.addValue(value, forHTTPHeaderField: name) }
        return request
    }
}
