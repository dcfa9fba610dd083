import Foundation

/// How ``Parameters`` become a query string or an `application/x-www-form-urlencoded` body.
///
/// Keys are sorted so the same parameters always produce the same bytes (stable caches, readable fixtures);
/// every byte outside RFC 3986's unreserved set is percent-encoded, so `&`, `=`, `+`, spaces and unicode
/// survive the trip. Nested objects use brackets (`filter[open]=true`); arrays follow ``arrayEncoding``.
///
/// ```swift
/// let client = KonexClient(baseURL: url, urlEncoding: URLEncoding(arrayEncoding: .brackets))
/// ```
public struct URLEncoding: Sendable, Hashable {
    /// How array parameters are written.
    public enum ArrayEncoding: Sendable, Hashable {
        /// `tags=a&tags=b`: what most servers (Flask, Go, Spring, Express) read as a list. The default.
        case repeatedKey
        /// `tags[]=a&tags[]=b`: Rails and PHP.
        case brackets
        /// `tags[0]=a&tags[1]=b`
        case indexed
        /// `tags=a,b`
        case commaSeparated
    }

    /// How Boolean parameters are written.
    public enum BoolEncoding: Sendable, Hashable {
        /// `true` / `false`. The default.
        case literal
        /// `1` / `0`
        case numeric
    }

    /// How arrays are written.
    public var arrayEncoding: ArrayEncoding
    /// How Booleans are written.
    public var boolEncoding: BoolEncoding

    /// Creates an encoding.
    /// - Parameters:
    ///   - arrayEncoding: How arrays are written; `.repeatedKey` by default.
    ///   - boolEncoding: How Booleans are written; `.literal` by default.
    public init(arrayEncoding: ArrayEncoding = .repeatedKey, boolEncoding: BoolEncoding = .literal) {
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
    }

    /// The default: repeated keys for arrays, `true`/`false` for Booleans.
    public static let `default` = URLEncoding()

    /// The unencoded name/value pairs, in the order they are sent.
    /// - Parameter parameters: The parameters to flatten.
    /// - Returns: One pair per value; `null` values produce a name with an empty value.
    public func pairs(for parameters: Parameters) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for key in parameters.keys.sorted() {
            append(parameters[key]!, name: key, to: &pairs)
        }
        return pairs
    }

    /// The percent-encoded query (or form body) for `parameters`, without a leading `?`.
    /// - Parameter parameters: The parameters to encode.
    /// - Returns: For example `page=2&q=swift%20%26%20more`.
    public func percentEncodedQuery(_ parameters: Parameters) -> String {
        var output = ""
        for pair in pairs(for: parameters) {
            if !output.isEmpty { output += "&" }
            output += URLEncoding.percentEncode(pair.name)
            output += "="
            output += URLEncoding.percentEncode(pair.value)
        }
        return output
    }

    private func append(_ value: JSON, name: String, to pairs: inout [(name: String, value: String)]) {
        switch value {
        case .null: pairs.append((name, ""))
        case .bool(let flag):
            pairs.append((name, boolEncoding == .literal ? (flag ? "true" : "false") : (flag ? "1" : "0")))
        case .int(let number): pairs.append((name, String(number)))
        case .double(let number): pairs.append((name, URLEncoding.format(number)))
        case .string(let text): pairs.append((name, text))
        case .object(let members):
            for key in members.keys.sorted() { append(members[key]!, name: "\(name)[\(key)]", to: &pairs) }
        case .array(let elements):
            switch arrayEncoding {
            case .repeatedKey: for element in elements { append(element, name: name, to: &pairs) }
            case .brackets: for element in elements { append(element, name: name + "[]", to: &pairs) }
            case .indexed:
                for (index, element) in elements.enumerated() { append(element, name: "\(name)[\(index)]", to: &pairs) }
            case .commaSeparated:
                var flat: [(name: String, value: String)] = []
                for element in elements { append(element, name: name, to: &flat) }
                pairs.append((name, flat.map(\.value).joined(separator: ",")))
            }
        }
    }

    /// Doubles print without a trailing `.0` when whole, so `2.0` reads as `2` to a server.
    static func format(_ number: Double) -> String {
        if number.isFinite, number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return String(number)
    }

    /// Percent-encodes every byte outside RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`).
    /// - Parameter string: The raw text.
    /// - Returns: The encoded text, e.g. `a%20b%26c`.
    public static func percentEncode(_ string: String) -> String {
        let utf8 = string.utf8
        if utf8.allSatisfy(isUnreserved) { return string }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3)
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        for byte in utf8 {
            if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
