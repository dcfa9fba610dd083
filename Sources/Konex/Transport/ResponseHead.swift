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
    /// What a head holds, behind one reference: the pipeline hands a head through every component, and a copy is
    /// then one retain, not one per field.
    private final class Storage: Sendable {
        let statusCode: Int
        let fields: HTTPHeaders
        let url: URL
        /// The response this head was read from, while unchanged: handed back by ``httpURLResponse`` at no cost.
        let origin: HTTPURLResponse?
        let resend: String?

        init(statusCode: Int, fields: HTTPHeaders, url: URL, origin: HTTPURLResponse?, resend: String? = nil) {
            self.statusCode = statusCode
            self.fields = fields
            self.url = url
            self.origin = origin
            self.resend = resend
        }
    }

    private var storage: Storage

    /// The status code.
    public var statusCode: Int {
        get { storage.statusCode }
        set {
            storage = Storage(
                statusCode: newValue, fields: headerFields, url: url, origin: nil, resend: transportResend)
        }
    }
    /// The header fields in the order received, repeats kept.
    public var headerFields: HTTPHeaders {
        // Read from a Foundation response only when asked: the pipeline reads single fields.
        get { storage.origin.map { HTTPHeaders($0) } ?? storage.fields }
        set {
            storage = Storage(statusCode: statusCode, fields: newValue, url: url, origin: nil, resend: transportResend)
        }
    }
    /// The URL of the request this answers.
    public var url: URL {
        get { storage.url }
        set {
            storage = Storage(
                statusCode: statusCode, fields: headerFields, url: newValue, origin: nil, resend: transportResend)
        }
    }
    /// Why the transport sent this request a second time on its own, when it did: `AsyncHTTPClientTransport` sends an
    /// idempotent request again, once, when the kept-alive connection it took turns out closed. Konex then names the
    /// resend in what plugins see (``ReceivedResponse/transportResend``), tells instruments (a ``RetryEvent`` from ``TransportResend``) and
    /// counts it in the client's retry budget. `nil` for a request sent once.
    public var transportResend: String? {
        get { storage.resend }
        set {
            storage = Storage(
                statusCode: statusCode, fields: storedFields, url: url, origin: origin, resend: newValue)
        }
    }
    /// Whether ``transportResend`` says anything (read without copying the text).
    var isResent: Bool { storage.resend != nil }
    private var origin: HTTPURLResponse? { storage.origin }
    /// Whether the fields were read from a Foundation response, which joins repeated fields (`Set-Cookie` too).
    var isReadFromFoundation: Bool { storage.origin != nil }
    private var storedFields: HTTPHeaders { storage.fields }

    /// Creates a head.
    /// - Parameters:
    ///   - statusCode: The status code, as received (any three digits; Konex passes 999 through).
    ///   - headerFields: The fields, repeats kept.
    ///   - url: The URL of the request answered.
    public init(statusCode: Int, headerFields: HTTPHeaders = [:], url: URL) {
        storage = Storage(statusCode: statusCode, fields: headerFields, url: url, origin: nil)
    }

    /// The head of a Foundation response (a transport over URLSession).
    /// - Parameter response: The response.
    public init(_ response: HTTPURLResponse) {
        storage = Storage(
            statusCode: response.statusCode, fields: [:], url: response.url ?? URL(fileURLWithPath: "/"),
            origin: response)
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
