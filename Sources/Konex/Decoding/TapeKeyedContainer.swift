import Foundation

/// An object's members on a ``JSONTape``, found by name.
///
/// Names are plain ASCII (the tape holds no other), so a byte comparison is Swift's string comparison, and no
/// name repeats. A key that is not ASCII could still equal a name under Unicode equivalence, so a miss on one
/// declines rather than answers.
struct TapeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: TapeDecoder
    let count: Int
    /// The node after the object's last member.
    let end: Int

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        let tape = decoder.tape
        guard tape.isOpen else { return [] }
        var keys: [Key] = []
        keys.reserveCapacity(count)
        var member = decoder.node + 1
        while member < end {
            if case .string(let range, _) = tape.nodes[member],
                let key = Key(
                    stringValue: String(decoding: UnsafeBufferPointer(rebasing: tape.bytes[range]), as: UTF8.self))
            {
                keys.append(key)
            }
            member = tape.next(after: member + 1)
        }
        return keys
    }

    /// Up to this many members, a lookup scans the object from its start: cheaper than keeping the place of the last
    /// one found (a write to the decoder each time), which pays off only for larger objects.
    static var scannedWhole: Int { 8 }

    /// The node of `key`'s value, or `nil` when the object has no such member.
    private func valueNode(_ key: Key) throws -> Int? {
        let tape = decoder.tape
        guard tape.isOpen else { throw tape.decline() }
        var name = key.stringValue
        let decoder = decoder
        let found: Int?
        if count <= Self.scannedWhole {
            found = name.withUTF8 { tape.member(named: $0, inObjectAt: decoder.node) }
        } else {
            found = name.withUTF8 { tape.member(named: $0, inObjectAt: decoder.node, after: decoder.lastMember) }
            if let found { decoder.lastMember = found }
        }
        if found == nil, name.utf8.contains(where: { $0 >= 0x80 }) { throw tape.decline() }
        return found
    }

    private func requiredValueNode(_ key: Key) throws -> Int {
        guard let node = try valueNode(key) else { throw decoder.tape.decline() }
        return node
    }

    func contains(_ key: Key) -> Bool { (try? valueNode(key)) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = decoder.tape.nodes[try requiredValueNode(key)] { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try decoder.tape.bool(at: try requiredValueNode(key))
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try decoder.tape.string(at: try requiredValueNode(key))
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try decoder.tape.double(at: try requiredValueNode(key))
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try decoder.tape.float(at: try requiredValueNode(key))
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(forKey: key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(forKey: key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(forKey: key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(forKey: key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(forKey: key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(forKey: key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(forKey: key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(forKey: key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(forKey: key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(forKey: key) }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { throw decoder.tape.decline() }
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { throw decoder.tape.decline() }

    private func integer<Integer: FixedWidthInteger>(forKey key: Key) throws -> Integer {
        try decoder.tape.integer(at: try requiredValueNode(key))
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decode(type, at: try requiredValueNode(key), key: key)
    }

    // An optional member in one lookup: the protocol's defaults ask `contains`, then `decodeNil`, then `decode`,
    // three searches of the object for one value. Missing or null is `nil`, as in those defaults.

    /// The node of `key`'s value, or `nil` when the object has no such member or it is `null`.
    private func presentValueNode(_ key: Key) throws -> Int? {
        guard let node = try valueNode(key) else { return nil }
        if case .null = decoder.tape.nodes[node] { return nil }
        return node
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try presentValueNode(key).map { try decoder.tape.bool(at: $0) }
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try presentValueNode(key).map { try decoder.tape.string(at: $0) }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try presentValueNode(key).map { try decoder.tape.double(at: $0) }
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try presentValueNode(key).map { try decoder.tape.float(at: $0) }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try integerIfPresent(forKey: key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try integerIfPresent(forKey: key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try integerIfPresent(forKey: key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try integerIfPresent(forKey: key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try integerIfPresent(forKey: key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try integerIfPresent(forKey: key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try integerIfPresent(forKey: key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try integerIfPresent(forKey: key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try integerIfPresent(forKey: key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try integerIfPresent(forKey: key) }

    private func integerIfPresent<Integer: FixedWidthInteger>(forKey key: Key) throws -> Integer? {
        try presentValueNode(key).map { try decoder.tape.integer(at: $0) }
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try presentValueNode(key).map { try decoder.decode(type, at: $0, key: key) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try decoder.child(at: try requiredValueNode(key), key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(at: try requiredValueNode(key), key: key).unkeyedContainer()
    }

    // `JSONDecoder`'s super decoders have quirks of their own (a missing key is a null value): left to it.
    func superDecoder() throws -> any Decoder { throw decoder.tape.decline() }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw decoder.tape.decline() }
}
