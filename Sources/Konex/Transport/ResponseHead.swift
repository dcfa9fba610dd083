import Foundation

/// The head of a response as a transport reads it: status, header fields (repeats kept), and the URL it answers.
///
/// Konex's own value, so a transport over SwiftNIO or a test double makes one without Foundation's
/// `HTTPURLResponse` (which re-capitalises every field and costs microseconds on Linux). It reads like one:
/// `statusCode`, `value(forHTTPHeaderField:)` in any case, `url`; `httpURLResponse` makes one when asked.
/// ```swift
/// let head = ResponseHead(statusCode: 200, headerFields: ["Content-Type": "application/json"], url: request.url)
/// head.value(forHTTPHeaderField: "content-type")   // "application/json"
/// ```
public struct ResponseHead: Sendable {
    /// The status code.
    public var statusCode: Int {
        didSet { detach() }
    }
    /// The header fields in the order received, repeats kept.
    public var headerFields: HTTPHeaders {
        // Read from a Foundation response only when asked: the pipeline reads single fields.
        get { origin.map { HTTPHeaders($0) } ?? storedFields }
        set {
            storedFields = newValue
            origin = nil
        }
    }
    /// The URL of the request this answers.
    public var url: URL {
        didSet { detach() }
    }
    private var storedFields: HTTPHeaders
    /// The response this head was read from, while unchanged: handed back by ``httpURLResponse`` at no cost.
    private var origin: HTTPURLResponse?

    /// Keeps the fields and lets the response go, before a change makes it stale.
    private mutating func detach() {
        guard let origin else { return }
        storedFields = HTTPHeaders(origin)
        self.origin = nil
    }

    /// Creates a head.
    /// - Parameters:
    ///   - statusCode: The status code, as received (any three digits; Konex passes 999 through).
    ///   - headerFields: The fields, repeats kept.
    ///   - url: The URL of the request answered.
    public init(statusCode: Int, headerFields: HTTPHeaders = [:], url: URL) {
        self.statusCode = statusCode
        storedFields = headerFields
        self.url = url
        origin = nil
    }

    /// The head of a Foundation response (a transport over URLSession).
    /// - Parameter response: The response.
    public init(_ response: HTTPURLResponse) {
        statusCode = response.statusCode
        storedFields = [:]
        url = response.url ?? URL(fileURLWithPath: "/")
        origin = response
    }

    /// A field's value by name in any case; repeated fields come back joined by `", "`.
    /// - Parameter name: The field name.
    public func value(forHTTPHeaderField name: String) -> String? {
        if let origin { return origin.value(forHTTPHeaderField: name) }
        return storedFields.combinedValue(for: name)
    }

    /// The body's length as `Content-Length` announces it; `-1` when it does not.
    public var expectedContentLength: Int64 {
        value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) } ?? -1
    }

    /// The media type of `Content-Type`, lower-cased, without parameters (`"application/json"`); `nil` without one.
    public var mimeType: String? {
        guard let type = value(forHTTPHeaderField: "Content-Type") else { return nil }
        let essence = type.split(separator: ";", maxSplits: 1).first.map(String.init) ?? type
        let trimmed = essence.trimmingCharacters(in: .whitespaces).lowercased()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The `charset` parameter of `Content-Type` (`"utf-8"`); `nil` without one.
    public var textEncodingName: String? {
        value(forHTTPHeaderField: "Content-Type").flatMap(MediaType.charset(of:))
    }

    /// The fields as Foundation's `allHeaderFields` gives them: one entry a name, repeats joined by `", "`.
    // For closures written against `HTTPURLResponse` (`head.allHeaderFields["ETag"] as? String`).
    public var allHeaderFields: [AnyHashable: Any] {
        if let origin { return origin.allHeaderFields }
        var fields: [AnyHashable: Any] = [:]
        for (name, value) in foldedFields() { fields[name] = value }
        return fields
    }

    /// This head as Foundation's response, made when asked (repeated fields joined by `", "`); the response it was
    /// read from, when it was read from one.
    public var httpURLResponse: HTTPURLResponse {
        if let origin { return origin }
        let fields = foldedFields()
        // Only a status outside 0...999 makes Foundation fail; a head can hold any Int, so clamp what cannot exist.
        let status = (0...999).contains(statusCode) ? statusCode : 999
        return HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: fields)
            ?? HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:])!
    }

    /// One entry a name in any case, spelled as first written, repeats joined by `", "` (as Foundation keeps them).
    private func foldedFields() -> [String: String] {
        var fields: [String: String] = [:]
        fields.reserveCapacity(storedFields.count)
        var spelled: [String: String] = [:]  // folded name → the name as first written
        for (name, value) in storedFields {
            let folded = HTTPHeaders.folded(name)
            let key = spelled[folded] ?? name
            spelled[folded] = key
            fields[key] = fields[key].map { "\($0), \(value)" } ?? value
        }
        return fields
    }
}
