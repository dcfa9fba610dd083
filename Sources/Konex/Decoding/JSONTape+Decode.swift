import Foundation

extension JSONTape {
    /// Decodes `type` from `data`, or from the value at `keyPath` in it, as `decoder` would: on the tape when the
    /// tape can vouch for the answer, else (and for every error, so errors are always `JSONDecoder`'s own, or
    /// ``JSONScanner``'s for a path that leads nowhere) with `decoder` itself.
    ///
    /// The tape is tried only for a plain `JSONDecoder` (not a subclass, which may decode its own way) whose key
    /// strategy is the default and that reads strict JSON; its date and data strategies are applied as `decoder`
    /// applies them (a `formatted` date strategy is left to it). When the tape declines halfway, `init(from:)` runs a second time
    /// on `decoder`: a type whose decoding has side effects sees them twice on that (rare) path.
    static func decode<T: Decodable>(
        _ type: T.Type, from data: Data, at keyPath: JSONKeyPath? = nil, with decoder: JSONDecoder
    ) throws -> T {
        if mayRead(with: decoder) {
            do {
                return try data.withUnsafeBytes { raw in
                    try decodeOnTape(
                        type, from: raw.bindMemory(to: UInt8.self), at: keyPath, settings: decoder)
                }
            } catch {
                // `decoder` decides, below.
            }
        }
        guard let keyPath else { return try decoder.decode(type, from: data) }
        return try decoder.decode(type, from: data[try JSONScanner.range(of: keyPath, in: data)])
    }

    /// Whether `decoder`'s settings are ones the tape reads the same way.
    private static func mayRead(with decoder: JSONDecoder) -> Bool {
        // Apple platforms before 2023 decode through JSONSerialization, whose numbers (NSNumber, NSDecimalNumber)
        // the tape does not copy: there `JSONDecoder` always decides. From then on it is swift-foundation's, the one
        // the tape is tested against here.
        guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *) else { return false }
        guard ObjectIdentifier(Swift.type(of: decoder)) == ObjectIdentifier(JSONDecoder.self),
            case .useDefaultKeys = decoder.keyDecodingStrategy
        else { return false }
        return !decoder.allowsJSON5 && !decoder.assumesTopLevelDictionary
    }

    /// The value on a tape of `bytes` (at `keyPath`, when given); throws ``TapeDeclined`` (or whatever
    /// `init(from:)` threw) when the tape cannot vouch for it.
    static func decodeOnTape<T: Decodable>(
        _ type: T.Type, from bytes: UnsafeBufferPointer<UInt8>, at keyPath: JSONKeyPath? = nil,
        settings: JSONDecoder? = nil
    ) throws -> T {
        guard !bytes.isEmpty, let nodes = nodes(of: bytes) else { throw TapeDeclined.shared }
        let tape = JSONTape(nodes: nodes, bytes: bytes, settings: settings)
        // A decoder or container kept by `init(from:)` must not read `bytes` after this returns.
        defer { tape.isOpen = false }
        var root = 0
        if let keyPath {
            guard let found = tape.node(at: keyPath) else { throw TapeDeclined.shared }
            root = found
        }
        let value = try tape.value(of: type, at: root) { TapeDecoder(tape: tape, node: root, parent: nil, key: nil) }
        if tape.declined { throw TapeDeclined.shared }
        return value
    }

    /// The node at `path`, or `nil` when the path leads nowhere (``JSONScanner`` then says why).
    func node(at path: JSONKeyPath) -> Int? {
        var node = 0
        for component in path.parsed {
            switch (component, nodes[node]) {
            case (.key(let key), .object):
                var name = key
                guard let member = name.withUTF8({ member(named: $0, inObjectAt: node) }) else { return nil }
                node = member
            case (.index(let index), .array(let count, _)):
                guard index < count else { return nil }
                node += 1
                for _ in 0..<index { node = next(after: node) }
            default:
                return nil
            }
        }
        return node
    }

    /// The value node of the member `name` of the object at `object`, or `nil` when it has none. Names on the tape
    /// are plain ASCII, so comparing bytes is comparing strings, for a `name` in ASCII.
    ///
    /// The search starts after the value node `previous` (the member found last in this object, or the object
    /// itself) and wraps around: a model's keys usually come in the document's order, so each is found at the first
    /// look, where a search from the start made decoding an object quadratic in its members.
    func member(named name: UnsafeBufferPointer<UInt8>, inObjectAt object: Int, after previous: Int? = nil) -> Int? {
        guard case .object(_, let end) = nodes[object] else { return nil }
        let first = object + 1
        var start = first
        if let previous {
            let after = next(after: previous)
            if after > object && after < end { start = after }
        }
        if let found = member(named: name, from: start, to: end) { return found }
        return start == first ? nil : member(named: name, from: first, to: start)
    }

    /// The value node of the member `name` among the members from `start` up to `end`.
    private func member(named name: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int? {
        var member = start
        while member < end {
            if case .string(let range, _) = nodes[member], range.count == name.count,
                name.isEmpty || memcmp(name.baseAddress!, bytes.baseAddress! + range.lowerBound, name.count) == 0
            {
                return member + 1
            }
            member = next(after: member + 1)
        }
        return nil
    }
}
