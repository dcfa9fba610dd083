import Foundation

/// The head of a request as a transport sends it: method, URL, header fields (repeats kept) and a timeout.
///
/// Konex's own value, named apart from SwiftNIO's `HTTPRequestHead` so files that import both read plainly. It reads
/// like `URLRequest` where components and transports look: `httpMethod`, `url`, `value(forHTTPHeaderField:)` in any
/// case, `setValue(_:forHTTPHeaderField:)`, `addValue(_:forHTTPHeaderField:)`, `allHTTPHeaderFields`,
/// `timeoutInterval`, `cachePolicy`.
/// ```swift
/// var head = RequestHead(method: .get, url: URL(string: "https://api.example.com/posts")!)
/// head.setValue("application/json", forHTTPHeaderField: "Accept")
/// ```
public struct RequestHead: Sendable {
    /// The method.
    public var method: HTTPMethod
    /// The URL.
    public var url: URL
    /// The header fields in order, repeats kept.
    public var headerFields: HTTPHeaders
    /// The longest the request may wait for data (URLSession's reading of `timeoutInterval`); `nil` for no limit.
    public var timeout: Duration?
    /// How a cache may answer: ``HTTPCache`` and URLSession read it; `.useProtocolCachePolicy` by default.
    public var cachePolicy: URLRequest.CachePolicy
    /// Whether cookies from the session's storage go with the request (URLSession's setting, which the cache's keys
    /// follow); `true` by default.
    public var httpShouldHandleCookies: Bool
    /// The Foundation request this head was made from, without its fields and body: what Konex does not model
    /// (cellular access, the network service type…) travels in it to URLSession.
    private var foundationSettings: URLRequest?

    /// Creates a head.
    /// - Parameters:
    ///   - method: The method.
    ///   - url: The URL.
    ///   - headerFields: The fields, repeats kept.
    ///   - timeout: The longest wait for data; `nil` for none.
    public init(method: HTTPMethod, url: URL, headerFields: HTTPHeaders = [:], timeout: Duration? = nil) {
        self.method = method
        self.url = url
        self.headerFields = headerFields
        self.timeout = timeout
        cachePolicy = .useProtocolCachePolicy
        httpShouldHandleCookies = true
        foundationSettings = nil
    }

    /// The head of a Foundation request (its body is not part of a head); the request's other settings are kept for
    /// ``urlRequest``.
    /// - Parameter request: The request; one without a URL gets `about:blank`.
    public init(_ request: URLRequest) {
        let fields = request.allHTTPHeaderFields ?? [:]
        self.init(
            method: HTTPMethod(request.httpMethod ?? "GET"), url: request.url ?? URL(string: "about:blank")!,
            headerFields: HTTPHeaders(keepingRepeats: fields.map { (name: $0.key, value: $0.value) }),
            timeout: Self.timeout(seconds: request.timeoutInterval))
        cachePolicy = request.cachePolicy
        httpShouldHandleCookies = request.httpShouldHandleCookies
        var settings = request
        for name in fields.keys { settings.setValue(nil, forHTTPHeaderField: name) }
        settings.httpBody = nil
        settings.httpBodyStream = nil
        foundationSettings = settings
    }

    static func timeout(seconds interval: TimeInterval) -> Duration? {
        interval > 0 && interval.isFinite ? Duration(clampedSeconds: interval, atMost: 86_400 * 365) : nil
    }

    /// The method's name, as `URLRequest` spells it.
    public var httpMethod: String {
        get { method.rawValue }
        set { method = HTTPMethod(newValue) }
    }

    /// The timeout in seconds, as `URLRequest` spells it; `.infinity` for none.
    public var timeoutInterval: TimeInterval {
        get { timeout?.seconds ?? .infinity }
        set { timeout = Self.timeout(seconds: newValue) }
    }

    /// The fields as a dictionary, as `URLRequest` gives them: repeats joined by `","`.
    public var allHTTPHeaderFields: [String: String]? {
        Dictionary(
            headerFields.joinedByName(separator: ",").values.map { ($0.name, $0.value) },
            uniquingKeysWith: { first, _ in first })
    }

    /// A field's value by name in any case; repeated fields come back joined by `","`, as `URLRequest` joins what
    /// `addValue(_:forHTTPHeaderField:)` added.
    /// - Parameter name: The field name.
    public func value(forHTTPHeaderField name: String) -> String? {
        headerFields.combinedValue(for: name, separator: ",")
    }

    /// Sets a field, replacing every field of that name; `nil` removes them.
    /// - Parameters:
    ///   - value: The value, or `nil`.
    ///   - name: The field name, in any case.
    public mutating func setValue(_ value: String?, forHTTPHeaderField name: String) {
        headerFields.replace(name, with: value)
    }

    /// Adds a field after those already there, keeping any of the same name (a repeat).
    /// - Parameters:
    ///   - value: The value.
    ///   - name: The field name.
    public mutating func addValue(_ value: String, forHTTPHeaderField name: String) {
        headerFields.append(name, value)
    }

    /// This head as a Foundation request without a body, with the settings of the Foundation request it was made from.
    public var urlRequest: URLRequest {
        var request = foundationSettings ?? URLRequest(url: url)
        if foundationSettings != nil { request.url = url }
        // GET is the default; setting it costs a bridge.
        if method != .get || foundationSettings != nil { request.httpMethod = method.rawValue }
        if let timeout { request.timeoutInterval = timeout.seconds }
        if cachePolicy != request.cachePolicy { request.cachePolicy = cachePolicy }
        if httpShouldHandleCookies != request.httpShouldHandleCookies {
            request.httpShouldHandleCookies = httpShouldHandleCookies
        }
        for (name, value) in headerFields { request.addValue(value, forHTTPHeaderField: name) }
        return request
    }
}
