import Foundation

/// An array's elements on a ``JSONTape``, in order.
struct TapeUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: TapeDecoder
    let elementCount: Int
    private(set) var currentIndex = 0
    /// The node of the element at ``currentIndex``.
    private var position: Int

    init(decoder: TapeDecoder, count: Int) {
        self.decoder = decoder
        self.elementCount = count
        self.position = decoder.node + 1
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elementCount }
    var isAtEnd: Bool { currentIndex >= elementCount }

    /// The current element's node, moving past it.
    private mutating func advance() throws -> Int {
        let tape = decoder.tape
        guard tape.isOpen, !isAtEnd else { throw tape.decline() }
        let node = position
        position = tape.next(after: node)
        currentIndex += 1
        return node
    }

    mutating func decodeNil() throws -> Bool {
        let tape = decoder.tape
        guard tape.isOpen, !isAtEnd else { throw tape.decline() }
        guard case .null = tape.nodes[position] else { return false }
        _ = try advance()
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try decoder.tape.bool(at: try advance()) }
    mutating func decode(_ type: String.Type) throws -> String { try decoder.tape.string(at: try advance()) }
    mutating func decode(_ type: Double.Type) throws -> Double { try decoder.tape.double(at: try advance()) }
    mutating func decode(_ type: Float.Type) throws -> Float { try decoder.tape.float(at: try advance()) }
    mutating func decode(_ type: Int.Type) throws -> Int { try decoder.tape.integer(at: try advance()) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try decoder.tape.integer(at: try advance()) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try decoder.tape.integer(at: try advance()) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try decoder.tape.integer(at: try advance()) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try decoder.tape.integer(at: try advance()) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try decoder.tape.integer(at: try advance()) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.tape.integer(at: try advance()) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.tape.integer(at: try advance()) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.tape.integer(at: try advance()) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.tape.integer(at: try advance()) }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    mutating func decode(_ type: Int128.Type) throws -> Int128 { throw decoder.tape.decline() }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { throw decoder.tape.decline() }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let key = IndexKey(currentIndex)
        return try decoder.decode(type, at: try advance(), key: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let key = IndexKey(currentIndex)
        return try decoder.child(at: try advance(), key: key).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let key = IndexKey(currentIndex)
        return try decoder.child(at: try advance(), key: key).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { throw decoder.tape.decline() }
}

/// An array element's place in a coding path, spelled as `JSONDecoder` spells it ("Index 2").
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }

    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}
