import Foundation

extension JSONTape {
    /// Decodes `type` from `data` as `decoder` would: on the tape when the tape can vouch for the answer, else (and
    /// for every error, so errors are always `JSONDecoder`'s own) with `decoder` itself.
    ///
    /// The tape is tried only for a plain `JSONDecoder` (not a subclass, which may decode its own way) whose key
    /// strategy is the default and that reads strict JSON; its date, data and float strategies do not matter, as
    /// the tape leaves those types to `decoder`. When the tape declines halfway, `init(from:)` runs a second time
    /// on `decoder`: a type whose decoding has side effects sees them twice on that (rare) path.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, with decoder: JSONDecoder) throws -> T {
        guard Self.mayRead(with: decoder) else { return try decoder.decode(type, from: data) }
        do {
            return try data.withUnsafeBytes { raw in
                try decodeOnTape(type, from: raw.bindMemory(to: UInt8.self), userInfo: decoder.userInfo)
            }
        } catch {
            return try decoder.decode(type, from: data)
        }
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

    /// The value on a tape of `bytes`; throws ``TapeDeclined`` (or whatever `init(from:)` threw) when the tape
    /// cannot vouch for it.
    static func decodeOnTape<T: Decodable>(
        _ type: T.Type, from bytes: UnsafeBufferPointer<UInt8>, userInfo: [CodingUserInfoKey: Any]
    ) throws -> T {
        guard !bytes.isEmpty, let nodes = nodes(of: bytes) else { throw TapeDeclined.shared }
        let tape = JSONTape(nodes: nodes, bytes: bytes, userInfo: userInfo)
        // A decoder or container kept by `init(from:)` must not read `bytes` after this returns.
        defer { tape.isOpen = false }
        let value = try tape.value(of: type, at: 0) { TapeDecoder(tape: tape, node: 0, parent: nil, key: nil) }
        if tape.declined { throw TapeDeclined.shared }
        return value
    }
}
