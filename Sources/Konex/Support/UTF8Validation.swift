/// Well-formed UTF-8, checked byte by byte (Unicode Table 3-7: no overlong forms, no surrogates, nothing past
/// U+10FFFF), for parsers that must refuse bad text rather than replace it.
package enum UTF8Validation {
    /// How long a sequence that starts with `lead` is, and the range its second byte must fall in; `nil` for a byte
    /// no sequence starts with.
    @inline(__always)
    static func shape(of lead: UInt8) -> (length: Int, second: ClosedRange<UInt8>)? {
        switch lead {
        case 0xC2...0xDF: (2, 0x80...0xBF)
        case 0xE0: (3, 0xA0...0xBF)
        case 0xED: (3, 0x80...0x9F)
        case 0xE1...0xEF: (3, 0x80...0xBF)
        case 0xF0: (4, 0x90...0xBF)
        case 0xF4: (4, 0x80...0x8F)
        case 0xF1...0xF3: (4, 0x80...0xBF)
        default: nil
        }
    }

    /// The length of the well-formed sequence that starts at `index` with a byte of 0x80 or more, or `nil`.
    @inline(__always)
    static func sequenceLength<Bytes: RandomAccessCollection>(_ bytes: Bytes, at index: Int) -> Int?
    where Bytes.Element == UInt8, Bytes.Index == Int {
        guard let (length, second) = shape(of: bytes[index]), index + length <= bytes.endIndex,
            second.contains(bytes[index + 1])
        else { return nil }
        for offset in 2..<length where !(0x80...0xBF).contains(bytes[index + offset]) { return nil }
        return length
    }

    /// Whether the bytes from `index` to the end are the start of a well-formed sequence cut short (which more bytes
    /// could finish).
    static func isUnfinishedSequence<Bytes: RandomAccessCollection>(_ bytes: Bytes, at index: Int) -> Bool
    where Bytes.Element == UInt8, Bytes.Index == Int {
        guard let (length, second) = shape(of: bytes[index]), index + length > bytes.endIndex else { return false }
        guard index + 1 < bytes.endIndex else { return true }
        guard second.contains(bytes[index + 1]) else { return false }
        return bytes[(index + 2)...].allSatisfy { (0x80...0xBF).contains($0) }
    }

    /// The offset (from the start of `bytes`) of the first byte that does not begin a well-formed sequence; `nil`
    /// when all of `bytes` is UTF-8.
    @inline(__always)
    static func firstInvalidOffset<Bytes: RandomAccessCollection>(_ bytes: Bytes) -> Int?
    where Bytes.Element == UInt8, Bytes.Index == Int {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] < 0x80 {
                index += 1
                continue
            }
            guard let length = sequenceLength(bytes, at: index) else { return index - bytes.startIndex }
            index += length
        }
        return nil
    }

    /// Text checked piece by piece as it arrives (a WebSocket message's fragments), so bytes that can no longer be
    /// UTF-8 are refused at once rather than when the last piece comes (RFC 6455 §8.1: fail fast).
    package struct Stream: Sendable {
        /// The start of a sequence the last piece ended in the middle of (at most 3 bytes).
        private var unfinished: [UInt8] = []

        package init() {}

        /// Whether the text so far ends on a whole character.
        package var isComplete: Bool { unfinished.isEmpty }

        /// Checks the next piece; `false` once the text so far cannot be UTF-8, whatever follows.
        package mutating func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
            let bytes = bytes.bindMemory(to: UInt8.self)
            var index = 0
            if !unfinished.isEmpty {
                // Finish the sequence the last piece cut, with as many bytes of this one as it lacks.
                let needed = shape(of: unfinished[0])!.length - unfinished.count
                let taken = min(needed, bytes.count)
                let joined = unfinished + bytes.prefix(taken)
                index = taken
                if taken < needed {
                    guard isUnfinishedSequence(joined, at: 0) else { return false }
                    unfinished = joined
                    return true
                }
                guard sequenceLength(joined, at: 0) != nil else { return false }
                unfinished = []
            }
            while index < bytes.count {
                // Eight ASCII bytes at a time: text is mostly ASCII.
                while index + 8 <= bytes.count,
                    UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self)
                        & 0x8080_8080_8080_8080 == 0
                {
                    index += 8
                }
                guard index < bytes.count else { break }
                if bytes[index] < 0x80 {
                    index += 1
                    continue
                }
                if let length = sequenceLength(bytes, at: index) {
                    index += length
                    continue
                }
                guard isUnfinishedSequence(bytes, at: index) else { return false }
                unfinished = Array(bytes[index...])
                return true
            }
            return true
        }
    }
}
