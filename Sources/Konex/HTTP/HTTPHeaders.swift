import Foundation

/// HTTP header fields: names kept as the server sent them, looked up without regard to case.
///
/// HTTP/2 and many servers send names in lower case; `headers["ETag"]` finds an `etag` field all the same.
/// ```swift
/// let response = try await client.request(GetPost(id: 1)).response(of: Post.self)
/// let tag = response.headers["ETag"]          // "etag", "ETag" or "ETAG" on the wire
/// for (name, value) in response.headers { print(name, value) }
/// ```
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// The fields in the order they were given, names as written.
    public private(set) var fields: [(name: String, value: String)]

    /// Creates headers from name–value pairs; a later field with the same name (in any case) replaces an earlier one.
    public init(_ fields: some Sequence<(String, String)>) {
        // An index of lower-cased names: a response with ten thousand fields is read in linear time, not
        // quadratic (a hostile server's headers took minutes through the subscript).
        var result: [(name: String, value: String)] = []
        var positions: [String: Int] = [:]
        for (name, value) in fields {
            let key = Self.folded(name)
            if let index = positions[key] {
                result[index] = (name, value)
            } else {
                positions[key] = result.count
                result.append((name, value))
            }
        }
        self.fields = result
    }

    /// Creates headers that keep every field as given, repeats included (`Set-Cookie`, `Vary`, `Link`…), as a
    /// transport reads them off the wire. The subscript finds the first; ``values(for:)`` finds them all.
    /// - Parameter fields: Name–value pairs in wire order.
    public init(keepingRepeats fields: some Sequence<(String, String)>) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    /// Creates headers that keep every field as given, repeats included: the form a transport in another module
    /// calls without a generic sequence (which, unspecialised across modules, costs a metadata lookup a field).
    /// - Parameter fields: Name–value pairs in wire order.
    public init(keepingRepeats fields: [(name: String, value: String)]) {
        self.fields = fields
    }

    /// Every value of the field named `name` in any case, in order.
    /// - Parameter name: The field name.
    public func values(for name: String) -> [String] {
        fields.lazy.filter { Self.equal($0.name, name) }.map(\.value)
    }

    /// The value of the field named `name` as HTTP combines repeats: values joined by `", "` (what
    /// `HTTPURLResponse.value(forHTTPHeaderField:)` returns); `nil` without such a field.
    /// - Parameter name: The field name, in any case.
    public func combinedValue(for name: String) -> String? { combinedValue(for: name, separator: ", ") }

    /// The value of the field named `name`, repeats joined by `separator`.
    func combinedValue(for name: String, separator: String) -> String? {
        // One field is the rule: joined only when a second turns up.
        guard let first = fields.firstIndex(where: { Self.equal($0.name, name) }) else { return nil }
        var found = fields[first].value
        for field in fields[(first + 1)...] where Self.equal(field.name, name) { found += separator + field.value }
        return found
    }

    /// Creates headers from a dictionary.
    public init(_ dictionary: [String: String]) { self.init(dictionary.map { ($0.key, $0.value) }) }

    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    /// The headers of a response, as Foundation reports them.
    public init(_ response: HTTPURLResponse) {
        self.init(
            response.allHeaderFields.lazy.compactMap { name, value in
                (name as? String).flatMap { name in (value as? String).map { (name, $0) } }
            })
    }

    /// The value of the field named `name` in any case; setting `nil` removes it.
    public subscript(name: String) -> String? {
        get { fields.first { Self.equal($0.name, name) }?.value }
        set {
            let index = fields.firstIndex { Self.equal($0.name, name) }
            switch (index, newValue) {
            case (let index?, let value?): fields[index] = (name, value)
            case (let index?, nil): fields.remove(at: index)
            case (nil, let value?): fields.append((name, value))
            case (nil, nil): break
            }
        }
    }

    /// Replaces every field named `name` (in any case) with one `name: value` at the end; `nil` removes them.
    mutating func replace(_ name: String, with value: String?) {
        fields.removeAll { Self.equal($0.name, name) }
        if let value { fields.append((name, value)) }
    }

    /// The fields one entry a name, keyed by the name in lower case: spelled as first written, a repeat's values
    /// joined in order by `separator`. Linear in the fields, however many repeat.
    func joinedByName(separator: String) -> [String: (name: String, value: String)] {
        var joined: [String: (name: String, value: String)] = [:]
        for (name, value) in fields {
            let key = Self.folded(name)
            // Appended in place: rebuilding the joined value on every repeat would copy it each time, quadratic in a
            // name repeated thousands of times.
            if let found = joined.index(forKey: key) {
                joined.values[found].value += separator
                joined.values[found].value += value
            } else {
                joined[key] = (name, value)
            }
        }
        return joined
    }

    /// Adds a field after the others, keeping any of the same name.
    mutating func append(_ name: String, _ value: String) { fields.append((name, value)) }

    /// The fields as a dictionary (for APIs that take `[String: String]`): one entry a name, spelled as first written,
    /// a repeated field's lines joined with `", "` in order, as RFC 9110 §5.3 combines them and as Foundation's
    /// `allHeaderFields` reports them. No line is lost, and no line wins over another: policy reads this value.
    /// `Set-Cookie` is joined too, as Foundation joins it (`HTTPCookie.cookies(withResponseHeaderFields:for:)` reads
    /// that form); read its lines one by one with ``values(for:)``.
    public var dictionary: [String: String] {
        var dictionary: [String: String] = [:]
        dictionary.reserveCapacity(fields.count)
        for (_, field) in joinedByName(separator: ", ") { dictionary[field.name] = field.value }
        return dictionary
    }

    /// How many fields there are.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    public func makeIterator() -> some IteratorProtocol<(name: String, value: String)> { fields.makeIterator() }

    public var description: String { fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n") }

    /// Equal when they hold the same fields, whatever the case of the names and the order.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        guard lhs.count == rhs.count else { return false }
        let right = Dictionary(rhs.fields.map { (folded($0.name), $0.value) }, uniquingKeysWith: { _, last in last })
        return lhs.fields.allSatisfy { right[folded($0.name)] == $0.value }
    }

    /// A name with ASCII letters in lower case, for comparing names as HTTP does.
    static func folded(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return name }
        return String(decoding: name.utf8.map(lowercased), as: UTF8.self)
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent, so equal headers hash alike.
        hasher.combine(fields.reduce(0) { $0 ^ $1.name.lowercased().hashValue ^ $1.value.hashValue &* 31 })
    }

    /// ASCII case-insensitive equality: header names are tokens, never other letters. (`package`: the transports in
    /// this package compare the names they read off the wire with it.)
    package static func equal(_ lhs: String, _ rhs: String) -> Bool {
        // Most names differ in length, which a native string knows without reading it; equal bytes need no folding.
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        if lhs == rhs { return true }
        // The bytes read where they lie: `UTF8View`'s iterators cost about 120 instructions a byte (1,786 for one
        // `Content-Length` in the AsyncHTTPClient transport's head).
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                for index in left.indices where lowercased(left[index]) != lowercased(right[index]) { return false }
                return true
            }
        }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
