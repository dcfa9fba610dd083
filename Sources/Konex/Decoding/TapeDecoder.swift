import Foundation

/// A `Decoder` over a ``JSONTape``: one value of the document, and its single-value container.
///
/// It answers only where its answer is the one `JSONDecoder` would give; anywhere else it declines
/// (``JSONTape/decline()``), and the whole document goes to `JSONDecoder`. So it reads the primitives, the
/// containers, and `Date`, `Data` and `URL` by `JSONDecoder`'s rules for them, and declines `Decimal` (whose parse
/// is `JSONDecoder`'s own) and an integer written with a fraction or an exponent.
final class TapeDecoder: Decoder, SingleValueDecodingContainer {
    let tape: JSONTape
    /// The value's node in ``tape``.
    let node: Int
    /// The value node of the member a keyed container found last in this object: the next search starts after it.
    var lastMember: Int?
    /// The decoder of the container this value is in, and the value's key there, for ``codingPath``.
    private let parent: TapeDecoder?
    private let key: (any CodingKey)?

    init(tape: JSONTape, node: Int, parent: TapeDecoder?, key: (any CodingKey)?) {
        self.tape = tape
        self.node = node
        self.parent = parent
        self.key = key
    }

    var userInfo: [CodingUserInfoKey: Any] { tape.userInfo }

    /// Built only when asked for (rarely: errors go to `JSONDecoder`, which builds its own).
    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var decoder: TapeDecoder? = self
        while let current = decoder {
            if let key = current.key { path.append(key) }
            decoder = current.parent
        }
        return path.reversed()
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard tape.isOpen, case .object(let count, let next) = tape.nodes[node] else { throw tape.decline() }
        return KeyedDecodingContainer(TapeKeyedContainer<Key>(decoder: self, count: count, end: next))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard tape.isOpen, case .array(let count, _) = tape.nodes[node] else { throw tape.decline() }
        return TapeUnkeyedContainer(decoder: self, count: count)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: The value as a single value

    func decodeNil() -> Bool {
        guard tape.isOpen else { return false }
        if case .null = tape.nodes[node] { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try tape.bool(at: node) }
    func decode(_ type: String.Type) throws -> String { try tape.string(at: node) }
    func decode(_ type: Double.Type) throws -> Double { try tape.double(at: node) }
    func decode(_ type: Float.Type) throws -> Float { try tape.float(at: node) }
    func decode(_ type: Int.Type) throws -> Int { try tape.integer(at: node) }
    func decode(_ type: Int8.Type) throws -> Int8 { try tape.integer(at: node) }
    func decode(_ type: Int16.Type) throws -> Int16 { try tape.integer(at: node) }
    func decode(_ type: Int32.Type) throws -> Int32 { try tape.integer(at: node) }
    func decode(_ type: Int64.Type) throws -> Int64 { try tape.integer(at: node) }
    func decode(_ type: UInt.Type) throws -> UInt { try tape.integer(at: node) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try tape.integer(at: node) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try tape.integer(at: node) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try tape.integer(at: node) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try tape.integer(at: node) }
    // 128-bit integers are `JSONDecoder`'s to read (the standard library's default would throw a `typeMismatch` that
    // a model could catch, reading nil where `JSONDecoder` reads the number): declined, in every container.
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type) throws -> Int128 { throw tape.decline() }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type) throws -> UInt128 { throw tape.decline() }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try tape.value(of: type, at: node) { self }
    }

    /// The value at `node`, a member or element of this decoder's container, under `key`.
    func decode<T: Decodable>(_ type: T.Type, at node: Int, key: any CodingKey) throws -> T {
        try tape.value(of: type, at: node) { child(at: node, key: key) }
    }

    /// A decoder for the value at `node` under `key`, for nested containers.
    func child(at node: Int, key: any CodingKey) -> TapeDecoder {
        TapeDecoder(tape: tape, node: node, parent: self, key: key)
    }
}

extension TapeDecoder {
    /// This value as ``JSON``, read from the tape as `JSON.init(from:)` reads it from `JSONDecoder`: a number
    /// written as an integer is `.int`; one with a fraction or an exponent declines, as `JSONDecoder`'s answer to
    /// "is this an `Int64`" differs between platforms.
    func json() throws -> JSON { try tape.json(at: node) }
}

extension JSONTape {
    fileprivate func json(at node: Int) throws -> JSON {
        guard isOpen else { throw decline() }
        switch nodes[node] {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .string: return .string(try string(at: node))
        case .number: return .int(try integer(at: node) as Int64)
        case .array(let count, _):
            var elements: [JSON] = []
            elements.reserveCapacity(count)
            var element = node + 1
            for _ in 0..<count {
                elements.append(try json(at: element))
                element = next(after: element)
            }
            return .array(elements)
        case .object(let count, _):
            var members: [String: JSON] = [:]
            members.reserveCapacity(count)
            var member = node + 1
            for _ in 0..<count {
                members[try string(at: member)] = try json(at: member + 1)
                member = next(after: member + 1)
            }
            return .object(members)
        }
    }
}
