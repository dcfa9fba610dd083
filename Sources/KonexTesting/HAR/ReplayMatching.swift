import Foundation
import Konex

/// Which parts of a request pick the recorded entry that answers it, when a HAR (or another recording) replays.
///
/// ```swift
/// let fixtures = try FixtureTransport(directory: dir, matching: .graphQL)                    // POST bodies as JSON
/// let fixtures = try FixtureTransport(directory: dir, matching: .default.ignoringQueryItems(["_", "ts"]))
/// ```
public struct ReplayMatching: Sendable, Hashable {
    /// A part of a request.
    public enum Part: Sendable, Hashable {
        case method, host, path, query, body
    }

    /// The parts compared.
    public var parts: Set<Part>
    /// Header names whose values must match too (e.g. `Accept`, `X-API-Version`).
    public var headers: [String]
    /// Query items left out of the comparison (cache busters, timestamps).
    public var ignoredQueryItems: Set<String>
    /// Whether bodies compare as JSON values (key order and spacing do not matter), else as bytes.
    public var bodyAsJSON: Bool

    /// Creates a matching.
    public init(
        parts: Set<Part>, headers: [String] = [], ignoredQueryItems: Set<String> = [], bodyAsJSON: Bool = true
    ) {
        self.parts = parts
        self.headers = headers
        self.ignoredQueryItems = ignoredQueryItems
        self.bodyAsJSON = bodyAsJSON
    }

    /// Method, path and query (values compared as a server decodes them). The default.
    public static let `default` = ReplayMatching(parts: [.method, .path, .query])
    /// Method and path only: any query, any body.
    public static let path = ReplayMatching(parts: [.method, .path])
    /// Method, host, path, query and the body as JSON: nothing is taken for anything else.
    public static let strict = ReplayMatching(parts: [.method, .host, .path, .query, .body])
    /// Method, path and the body as JSON: GraphQL and other APIs that POST every query to one URL.
    public static let graphQL = ReplayMatching(parts: [.method, .path, .body])

    /// The same matching, also ignoring the named query items.
    public func ignoringQueryItems(_ names: Set<String>) -> ReplayMatching {
        var copy = self
        copy.ignoredQueryItems.formUnion(names)
        return copy
    }

    /// The same matching, also comparing the named headers.
    public func comparingHeaders(_ names: String...) -> ReplayMatching {
        var copy = self
        copy.headers += names
        return copy
    }

    /// What entries that this matching cannot tell apart share (they answer in recorded order).
    func key(for entry: HAR.Entry, matcher: RequestMatcher) -> String {
        var key = matcher.description
        if parts.contains(.body) { key += " " + (entry.request.postData?.text ?? "") }
        return key
    }

    /// The matcher that picks `entry` under this matching.
    func matcher(for entry: HAR.Entry) -> RequestMatcher {
        let url = URL(string: entry.request.url)
        var matcher = RequestMatcher(
            method: parts.contains(.method) ? HTTPMethod(entry.request.method) : nil,
            path: parts.contains(.path) ? url.map(RequestMatcher.path(of:)) ?? "/" : nil)
        if parts.contains(.query) {
            // From the URL, decoded as a server decodes it (tools disagree on what `queryString` holds, and some
            // leave it empty); a redacted value matches any value.
            matcher.query = RequestMatcher.queryItems(of: url).map {
                ($0.name, $0.value == Redaction.placeholder ? nil : $0.value)
            }
            matcher.exactQuery = true
            matcher = matcher.ignoringQueryItems(ignoredQueryItems)
        }
        if parts.contains(.host), let host = url?.host {
            matcher = matcher.matching("host is \(host)") { $0.url.host == host }
        }
        for name in headers {
            if let value = entry.request.headers.first(where: { $0.name.caseInsensitiveCompare(name) == .orderedSame })
            {
                matcher = matcher.header(name, value.value)
            }
        }
        if parts.contains(.body) {
            let text = entry.request.postData?.text ?? ""
            let bytes =
                entry.request.postData?._encoding == "base64" ? Data(base64Encoded: text) ?? Data() : Data(text.utf8)
            if bodyAsJSON, !bytes.isEmpty, let json = try? JSONDecoder().decode(JSON.self, from: bytes) {
                matcher = matcher.body(json: json)
            } else {
                matcher = matcher.body(bytes)
            }
        }
        return matcher
    }
}
