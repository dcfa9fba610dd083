import Foundation
import Konex

/// Which requests a mock endpoint answers: method, path (exact or `/users/{id}`), query, headers, body, predicates.
///
/// ```swift
/// RequestMatcher.get("/users/{id}")
///     .query(["page": "2"])                 // subset by default; `exact: true` for exactly these items
///     .header("Accept", "application/json")
/// RequestMatcher.post("/posts").body(json: ["title": "Hello"])   // compared as JSON, not bytes
/// ```
public struct RequestMatcher: Sendable, CustomStringConvertible {
    struct Predicate: Sendable {
        let label: String
        let test: @Sendable (TransportRequest) -> Bool
    }

    enum BodyExpectation: Sendable {
        case bytes(Data)
        case json(JSON)
    }

    /// The method to match, or `nil` for any.
    public var method: HTTPMethod?
    /// The path pattern (`/users/{id}`), or `nil` for any path.
    public var path: String? {
        didSet { isTemplate = path?.utf8.contains(UInt8(ascii: "{")) ?? false }
    }
    private var isTemplate = false
    var query: [(name: String, value: String?)] = []
    var exactQuery = false
    /// Query items that never count (cache busters, timestamps): not required, and not "unexpected" either.
    var ignoredQueryItems: Set<String> = []
    var headers: [(name: String, value: String)] = []
    var body: BodyExpectation?
    var predicates: [Predicate] = []

    /// Creates a matcher.
    /// - Parameters:
    ///   - method: The method, or `nil` for any.
    ///   - path: A path such as `/users/42` or a template such as `/users/{id}`; `nil` for any path.
    public init(method: HTTPMethod? = nil, path: String? = nil) {
        self.method = method
        self.path = path
        isTemplate = path?.utf8.contains(UInt8(ascii: "{")) ?? false
    }

    /// Matches GET requests to `path`.
    public static func get(_ path: String) -> RequestMatcher { RequestMatcher(method: .get, path: path) }
    /// Matches POST requests to `path`.
    public static func post(_ path: String) -> RequestMatcher { RequestMatcher(method: .post, path: path) }
    /// Matches PUT requests to `path`.
    public static func put(_ path: String) -> RequestMatcher { RequestMatcher(method: .put, path: path) }
    /// Matches PATCH requests to `path`.
    public static func patch(_ path: String) -> RequestMatcher { RequestMatcher(method: .patch, path: path) }
    /// Matches DELETE requests to `path`.
    public static func delete(_ path: String) -> RequestMatcher { RequestMatcher(method: .delete, path: path) }
    /// Matches HEAD requests to `path`.
    public static func head(_ path: String) -> RequestMatcher { RequestMatcher(method: .head, path: path) }
    /// Matches any method on `path`.
    public static func any(_ path: String) -> RequestMatcher { RequestMatcher(path: path) }
    /// Matches every request.
    public static var anything: RequestMatcher { RequestMatcher() }

    /// Also requires these query items; other items are allowed unless `exact` is `true`. Order never matters.
    public func query(_ items: [String: String], exact: Bool = false) -> RequestMatcher {
        var copy = self
        copy.query += items.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        copy.exactQuery = exact
        return copy
    }

    /// Leaves the named query items out of the comparison (cache busters, timestamps).
    public func ignoringQueryItems(_ names: Set<String>) -> RequestMatcher {
        var copy = self
        copy.ignoredQueryItems.formUnion(names)
        copy.query.removeAll { names.contains($0.name) }
        return copy
    }

    /// Also requires a query item named `name`, with any value.
    public func queryItem(named name: String) -> RequestMatcher {
        var copy = self
        copy.query.append((name, nil))
        return copy
    }

    /// Also requires a header (name case-insensitive, value exact).
    public func header(_ name: String, _ value: String) -> RequestMatcher {
        var copy = self
        copy.headers.append((name, value))
        return copy
    }

    /// Also requires exactly these body bytes.
    public func body(_ data: Data) -> RequestMatcher {
        var copy = self
        copy.body = .bytes(data)
        return copy
    }

    /// Also requires a JSON body equal to `json` (key order and whitespace ignored).
    public func body(json: JSON) -> RequestMatcher {
        var copy = self
        copy.body = .json(json)
        return copy
    }

    /// Also requires a JSON body equal to `value` encoded as JSON.
    public func body(encoding value: some Encodable) -> RequestMatcher {
        let json = (try? JSONEncoder().encode(value)).flatMap { try? JSONDecoder().decode(JSON.self, from: $0) }
        return body(json: json ?? .null)
    }

    /// Matches requests whose call named `id` as its operation (`DataRequest.operation(_:)`; a generated
    /// OpenAPI client's `operationId`), whatever their method and path.
    /// ```swift
    /// mock.stub(.operation("getPost"), .json(post).delayed(by: .milliseconds(300)))
    /// ```
    public static func operation(_ id: String) -> RequestMatcher { RequestMatcher().operation(id) }

    /// Also requires the call to have named `id` as its operation.
    public func operation(_ id: String) -> RequestMatcher {
        matching("operation \(id)") { _ in KonexOperation.current == id }
    }

    /// Also requires `test` to return `true`; `label` names the condition in diagnostics.
    public func matching(_ label: String, _ test: @escaping @Sendable (TransportRequest) -> Bool) -> RequestMatcher {
        var copy = self
        copy.predicates.append(Predicate(label: label, test: test))
        return copy
    }

    /// Whether `request` matches.
    public func matches(_ request: TransportRequest) -> Bool { mismatches(request).isEmpty }

    /// Whether a Foundation request matches.
    public func matches(_ request: URLRequest) -> Bool { matches(TransportRequest(request)) }

    /// What differs between this matcher and a Foundation request; empty when it matches.
    public func mismatches(_ request: URLRequest) -> [String] { mismatches(TransportRequest(request)) }

    /// What differs between this matcher and `request`; empty when it matches.
    public func mismatches(_ request: TransportRequest) -> [String] {
        var problems: [String] = []
        let requestMethod = request.httpMethod
        if let method, method.rawValue != requestMethod {
            problems.append("method: expected \(method), got \(requestMethod)")
        }
        let url = request.url
        if let path, !(isTemplate ? Self.pathMatches(path, Self.path(of: url)) : path == Self.path(of: url)) {
            problems.append("path: expected \(path), got \(Self.path(of: url))")
        }
        if !query.isEmpty || exactQuery {
            let items = Self.queryItems(of: url)
            for (name, value) in query {
                let actual = items.filter { $0.name == name }.map(\.value)
                if actual.isEmpty {
                    problems.append("query item \"\(name)\" is missing")
                } else if let value, !actual.contains(value) {
                    problems.append(
                        "query item \"\(name)\": expected \"\(value)\", got \"\(actual.joined(separator: "\", \""))\"")
                }
            }
            if exactQuery {
                let expected = Set(query.map(\.name))
                for extra in Set(items.map(\.name)).subtracting(expected).subtracting(ignoredQueryItems).sorted() {
                    problems.append("unexpected query item \"\(extra)\"")
                }
            }
        }
        for (name, value) in headers {
            let actual = request.value(forHTTPHeaderField: name)
            if actual != value {
                problems.append("header \(name): expected \"\(value)\", got \(actual.map { "\"\($0)\"" } ?? "none")")
            }
        }
        if let body {
            let actual = request.httpBody ?? Data()
            switch body {
            case .bytes(let expected):
                if actual != expected {
                    problems.append("body: expected \(expected.count) bytes, got \(actual.count) different bytes")
                }
            case .json(let expected):
                let decoded = try? JSONDecoder().decode(JSON.self, from: actual)
                if decoded != expected {
                    problems.append(
                        "JSON body: expected \(Self.render(expected)), got \(String(decoding: actual.prefix(200), as: UTF8.self))"
                    )
                }
            }
        }
        for predicate in predicates where !predicate.test(request) {
            problems.append("condition \"\(predicate.label)\" is false")
        }
        return problems
    }

    public var description: String {
        var text = "\(method?.rawValue ?? "ANY") \(path ?? "*")"
        if !query.isEmpty {
            text +=
                (exactQuery ? " query exactly " : " query ")
                + query.map { "\($0.name)=\($0.value ?? "*")" }.joined(separator: "&")
        }
        for (name, value) in headers { text += " [\(name): \(value)]" }
        if body != nil { text += " with body" }
        for predicate in predicates { text += " where \(predicate.label)" }
        return text
    }

    /// The URL's path, percent-decoded; `/` when empty.
    static func path(of url: URL) -> String {
        // Decoding costs a pass and an allocation; most paths have nothing to decode. (`url.path` would also drop
        // a trailing slash.)
        let raw = url.path(percentEncoded: true)
        let path = raw.utf8.contains(UInt8(ascii: "%")) ? url.path(percentEncoded: false) : raw
        return path.isEmpty ? "/" : path
    }

    /// The query items as a server decodes them: `+` is a space, then percent-escapes are decoded (so `a+b`,
    /// `a%20b` and `a b` are the same value, and `%2B` is a plus).
    static func queryItems(of url: URL?) -> [(name: String, value: String)] {
        guard let query = url?.query(percentEncoded: true), !query.isEmpty else { return [] }
        func decode(_ part: Substring) -> String {
            let spaced = part.replacingOccurrences(of: "+", with: " ")
            return spaced.removingPercentEncoding ?? spaced
        }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    /// Segment-by-segment comparison; `{name}` matches one non-empty segment. Trailing slashes are not ignored.
    static func pathMatches(_ pattern: String, _ path: String) -> Bool {
        let expected = pattern.split(separator: "/", omittingEmptySubsequences: false)
        let actual = path.split(separator: "/", omittingEmptySubsequences: false)
        guard expected.count == actual.count else { return false }
        return zip(expected, actual).allSatisfy { want, got in
            (want.hasPrefix("{") && want.hasSuffix("}") && !got.isEmpty) || want == got
        }
    }

    private static func render(_ json: JSON) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(json)).map { String(decoding: $0, as: UTF8.self) } ?? "\(json)"
    }
}
