import Foundation

/// A JSON value: what `parameters` are made of and what ``DataRequest/responseJSON(atKeyPath:)`` returns.
///
/// It is written as a literal, so parameters read naturally:
/// ```swift
/// let parameters: Parameters = ["q": "swift", "page": 2, "tags": ["a", "b"], "filter": ["open": true]]
/// ```
/// Integers are `Int64` on every platform, so an id such as 2⁶³−1 stays exact on watchOS, where `Int` has 32 bits.
public enum JSON: Sendable, Hashable {
    case null
    case bool(Bool)
    /// An integer, exact up to `Int64`'s range on every platform.
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    /// The member at `key` when this is an object, else `nil`.
    public subscript(key: String) -> JSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// An integer (the `Int` spelling of ``int(_:)``).
    public static func int(_ value: Int) -> JSON { .int(Int64(value)) }

    /// The element at `index` when this is an array and the index exists, else `nil`.
    public subscript(index: Int) -> JSON? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    /// The string, when this is a string.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The integer, when this is an integer that fits `Int` (on watchOS, 32 bits).
    public var intValue: Int? { if case .int(let value) = self { Int(exactly: value) } else { nil } }
    /// The integer, when this is an integer.
    public var int64Value: Int64? { if case .int(let value) = self { value } else { nil } }
    /// The number, when this is an integer or a double.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }
    /// The Boolean, when this is a Boolean.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The elements, when this is an array.
    public var arrayValue: [JSON]? { if case .array(let value) = self { value } else { nil } }
    /// The members, when this is an object.
    public var objectValue: [String: JSON]? { if case .object(let value) = self { value } else { nil } }
}

/// Request parameters: a JSON object sent as the query string (GET, HEAD, DELETE) or as a JSON body.
public typealias Parameters = [String: JSON]

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSON: Codable {
    public init(from decoder: any Decoder) throws {
        // On Konex's tape the tree is read directly: the chain of attempts below would decline at the first miss.
        if let tape = decoder as? TapeDecoder {
            self = try tape.json()
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSON].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
