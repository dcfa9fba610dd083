/// Well-formed UTF-8, checked byte by byte (Unicode Table 3-7: no overlong forms, no surrogates, nothing past
/// U+10FFFF), for parsers that must refuse bad text rather than replace it.
enum UTF8Validation {
    /// The length of the well-formed sequence that starts at `index` with a byte of 0x80 or more, or `nil`.
    @inline(__always)
    static func sequenceLength<Bytes: RandomAccessCollection>(_ bytes: Bytes, at index: Int) -> Int?
    where Bytes.Element == UInt8, Bytes.Index == Int {
        let lead = bytes[index]
        let length: Int
        var second: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            second = 0xA0...0xBF
        case 0xED:
            length = 3
            second = 0x80...0x9F
        case 0xE1...0xEF: length = 3
        case 0xF0:
            length = 4
            second = 0x90...0xBF
        case 0xF4:
            length = 4
            second = 0x80...0x8F
        case 0xF1...0xF3: length = 4
        default: return nil
        }
        guard index + length <= bytes.endIndex, second.contains(bytes[index + 1]) else { return nil }
        for offset in 2..<length where !(0x80...0xBF).contains(bytes[index + offset]) { return nil }
        return length
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
}
