import Foundation

/// Transforms the response body before it is serialized: strip an XSSI prefix, unwrap an envelope, decrypt.
///
/// Processors run in order (client, request, call site) after validation. With none attached the body is
/// passed through untouched (never copied). Throwing fails the request with stage
/// ``KonexError/Stage/processing``.
/// ```swift
/// client.request(GetPosts()).process(.stripPrefix(")]}'\n")).process(.keyPath("data"))
/// ```
public protocol KonexResponseProcessor: Sendable {
    /// Returns the body to hand to the next processor or the serializer.
    /// - Parameters:
    ///   - data: The body so far.
    ///   - response: The HTTP response head.
    /// - Returns: The transformed body.
    func process(_ data: Data, response: ResponseHead) throws -> Data
}

/// Extracts the JSON value at a key path (e.g. `"data.items"`) as bytes, without re-serializing it.
public struct KeyPathProcessor: KonexResponseProcessor {
    let path: JSONKeyPath
    /// Creates a processor for a dotted key path; numeric components index arrays (`"items.0"`).
    public init(_ keyPath: String) { path = JSONKeyPath(keyPath) }
    public func process(_ data: Data, response: ResponseHead) throws -> Data {
        try data[JSONScanner.range(of: path, in: data)]
    }
}

/// Removes a fixed prefix when present, e.g. an anti-XSSI guard like `)]}'`.
public struct PrefixStripper: KonexResponseProcessor {
    let prefix: Data
    /// Creates a processor that strips `prefix` (and the whitespace right after it).
    public init(_ prefix: String) { self.prefix = Data(prefix.utf8) }
    public func process(_ data: Data, response: ResponseHead) throws -> Data {
        guard data.starts(with: prefix) else { return data }
        var rest = data.dropFirst(prefix.count)
        while let first = rest.first, first == 0x20 || first == 0x0A || first == 0x0D || first == 0x09 {
            rest = rest.dropFirst()
        }
        return Data(rest)
    }
}

/// A processor made from a closure.
public struct ClosureProcessor: KonexResponseProcessor {
    let body: @Sendable (Data, ResponseHead) throws -> Data
    /// Creates a processor from a closure.
    public init(_ body: @escaping @Sendable (Data, ResponseHead) throws -> Data) { self.body = body }
    public func process(_ data: Data, response: ResponseHead) throws -> Data { try body(data, response) }
}

extension KonexResponseProcessor where Self == KeyPathProcessor {
    /// Keeps only the JSON value at `keyPath`, e.g. `.keyPath("data")` to unwrap `{"data": …}`.
    public static func keyPath(_ keyPath: String) -> KeyPathProcessor { KeyPathProcessor(keyPath) }
}

extension KonexResponseProcessor where Self == PrefixStripper {
    /// Strips `prefix` when the body starts with it.
    public static func stripPrefix(_ prefix: String) -> PrefixStripper { PrefixStripper(prefix) }
}

extension KonexResponseProcessor where Self == ClosureProcessor {
    /// A processor from a closure.
    public static func custom(_ body: @escaping @Sendable (Data, ResponseHead) throws -> Data) -> ClosureProcessor {
        ClosureProcessor(body)
    }
}
