import Foundation

extension JSONScanner.Cursor {
    /// Skips a string starting at its opening quote, checking escapes and UTF-8; returns its content bytes.
    mutating func skipString() throws -> Name {
        let opening = position
        position += 1
        let start = position
        var escaped = false
        while position < bytes.count {
            // Eight bytes at a time while none of them ends the string, escapes, or leaves plain ASCII; else up to
            // the first that does, which the byte-by-byte reading below judges.
            if position + 8 <= bytes.count {
                let word = UInt64(
                    littleEndian: UnsafeRawPointer(bytes.baseAddress! + position).loadUnaligned(as: UInt64.self))
                let special = Self.specialBytes(in: word)
                if special == 0 {
                    position += 8
                    continue
                }
                position += special.trailingZeroBitCount >> 3
            }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return (start..<(position - 1), escaped)
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
                try skipEscape()
            } else if byte < 0x20 {
                throw failure("unescaped control character 0x\(String(byte, radix: 16)) in a string")
            } else if byte < 0x80 {
                position += 1
            } else {
                try skipMultiByteCharacter()
            }
        }
        throw failure("unterminated string", at: opening)
    }

    /// A mask with the high bit set in the lowest byte of `word` (in memory order) that is a quote, a backslash, a
    /// control character or not ASCII. (Higher bytes may be flagged falsely, by a borrow from a flagged one: only the
    /// lowest is read.)
    @inline(__always) private static func specialBytes(in word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func zeroBytes(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
        let quote = zeroBytes(word ^ (ones &* 0x22))
        let backslash = zeroBytes(word ^ (ones &* 0x5C))
        let control = (word &- ones &* 0x20) & ~word & highs
        return quote | backslash | control | (word & highs)
    }

    /// Skips `\x` or `\uXXXX` (a high surrogate only with its low one).
    private mutating func skipEscape() throws {
        let escape = position
        guard position + 1 < bytes.count else { throw failure("unterminated escape") }
        switch bytes[position + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            position += 2
        case UInt8(ascii: "u"):
            let unit = try hexUnit()
            if (0xDC00...0xDFFF).contains(unit) {
                throw failure("a low surrogate \\u\(String(unit, radix: 16)) without a high one", at: escape)
            }
            if (0xD800...0xDBFF).contains(unit) {
                guard peek == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u"),
                    (0xDC00...0xDFFF).contains(try hexUnit())
                else { throw failure("a high surrogate \\u\(String(unit, radix: 16)) without a low one", at: escape) }
            }
        default:
            throw failure("invalid escape '\\\(Character(UnicodeScalar(bytes[position + 1])))'")
        }
    }

    /// With the cursor on `\u`, reads the four hex digits after it.
    private mutating func hexUnit() throws -> UInt16 {
        guard position + 6 <= bytes.count else { throw failure("unterminated \\u escape") }
        var unit: UInt16 = 0
        for offset in 2..<6 {
            let byte = bytes[position + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("\\u must be followed by four hex digits")
            }
            unit = unit << 4 | UInt16(digit)
        }
        position += 6
        return unit
    }

    /// Skips one well-formed UTF-8 sequence of two to four bytes.
    private mutating func skipMultiByteCharacter() throws {
        guard let length = UTF8Validation.sequenceLength(bytes, at: position) else {
            throw failure(
                bytes[position] >= 0xC2 && bytes[position] <= 0xF4
                    ? "invalid UTF-8 sequence in a string"
                    : "invalid UTF-8 byte 0x\(String(bytes[position], radix: 16)) in a string")
        }
        position += length
    }

    /// Skips a number, checking the JSON grammar and that it fits a `Double`.
    mutating func skipNumber() throws {
        let start = position
        if peek == UInt8(ascii: "-") { position += 1 }
        guard let first = peek, Self.isDigit(first) else { throw failure("expected a digit, found \(found)") }
        if first == UInt8(ascii: "0") {
            position += 1
            if let next = peek, Self.isDigit(next) { throw failure("a number with a leading zero", at: start) }
        } else {
            skipDigits()
        }
        // More digits than any finite Double has before its point, or an exponent, may overflow.
        var mayOverflow = position - start > 309
        if peek == UInt8(ascii: ".") {
            position += 1
            guard skipDigits() > 0 else { throw failure("expected a digit after '.', found \(found)") }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            position += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { position += 1 }
            guard skipDigits() > 0 else { throw failure("expected a digit in the exponent, found \(found)") }
            mayOverflow = true
        }
        if mayOverflow {
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            guard let value = Double(text), value.isFinite else {
                throw failure("the number \(text.prefix(40)) is beyond the range of Double", at: start)
            }
        }
    }

    @discardableResult
    private mutating func skipDigits() -> Int {
        let start = position
        while let byte = peek, Self.isDigit(byte) { position += 1 }
        return position - start
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Whether a member name read by ``skipString()`` is `key`, compared as Swift compares strings.
    func name(_ name: Name, equals key: [UInt8]) -> Bool {
        let raw = UnsafeBufferPointer(rebasing: bytes[name.range])
        if !name.escaped, raw.count == key.count,
            raw.isEmpty || key.withUnsafeBufferPointer({ memcmp($0.baseAddress!, raw.baseAddress!, raw.count) == 0 })
        {
            return true
        }
        // Unequal bytes can still be equal strings only through escapes or canonically equivalent Unicode, on
        // either side (KELVIN SIGN in a key path is the `K` of a document's name, as `JSONDecoder` compares them).
        if !name.escaped && raw.allSatisfy({ $0 < 0x80 }) && key.allSatisfy({ $0 < 0x80 }) { return false }
        // Checked by `skipString()`, so the escapes are whole.
        return JSONTape.unescaped(raw) == String(decoding: key, as: UTF8.self)
    }
}
