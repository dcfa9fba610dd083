import Foundation

extension JSONTape {
    /// The value of type `T` at `node`: a primitive read from the tape, else `T(from:)` on the decoder `decoder` makes.
    ///
    /// Written without a `T?` on the way (a run-time metadata lookup per value where this code is not specialized)
    /// and with `unsafeBitCast` from a primitive only where `T` is that primitive.
    func value<T: Decodable>(of type: T.Type, at node: Int, decoder: () -> TapeDecoder) throws -> T {
        switch Primitive(type) {
        case .none: return try T(from: decoder())
        case .bool: return unsafeBitCast(try bool(at: node), to: T.self)
        case .string: return unsafeBitCast(try string(at: node), to: T.self)
        case .double: return unsafeBitCast(try double(at: node), to: T.self)
        case .int: return unsafeBitCast(try integer(at: node) as Int, to: T.self)
        case .int8: return unsafeBitCast(try integer(at: node) as Int8, to: T.self)
        case .int16: return unsafeBitCast(try integer(at: node) as Int16, to: T.self)
        case .int32: return unsafeBitCast(try integer(at: node) as Int32, to: T.self)
        case .int64: return unsafeBitCast(try integer(at: node) as Int64, to: T.self)
        case .uint: return unsafeBitCast(try integer(at: node) as UInt, to: T.self)
        case .uint8: return unsafeBitCast(try integer(at: node) as UInt8, to: T.self)
        case .uint16: return unsafeBitCast(try integer(at: node) as UInt16, to: T.self)
        case .uint32: return unsafeBitCast(try integer(at: node) as UInt32, to: T.self)
        case .uint64: return unsafeBitCast(try integer(at: node) as UInt64, to: T.self)
        case .float: return unsafeBitCast(try float(at: node), to: T.self)
        case .date: return unsafeBitCast(try date(at: node, decoder: decoder), to: T.self)
        case .data: return unsafeBitCast(try data(at: node, decoder: decoder), to: T.self)
        case .url: return unsafeBitCast(try url(at: node), to: T.self)
        case .doubles: return unsafeBitCast(try elements(at: node) { try double(at: $0) }, to: T.self)
        case .ints: return unsafeBitCast(try elements(at: node) { try integer(at: $0) as Int }, to: T.self)
        case .int64s: return unsafeBitCast(try elements(at: node) { try integer(at: $0) as Int64 }, to: T.self)
        case .strings: return unsafeBitCast(try elements(at: node) { try string(at: $0) }, to: T.self)
        case .declined: throw decline()
        }
    }

    /// An array of primitives read in one loop, its storage sized once: `Array.init(from:)` appends one element at
    /// a time through the generic `decode(_:)`, looking up the storage's metadata at each growth (a quarter of
    /// canada.json's decode went there).
    private func elements<Element>(at node: Int, _ read: (Int) throws -> Element) throws -> [Element] {
        guard isOpen, case .array(let count, _) = nodes[node] else { throw decline() }
        var elements: [Element] = []
        elements.reserveCapacity(count)
        var element = node + 1
        for _ in 0..<count {
            elements.append(try read(element))
            element = next(after: element)
        }
        return elements
    }

    func bool(at node: Int) throws -> Bool {
        guard isOpen, case .bool(let value) = nodes[node] else { throw decline() }
        return value
    }

    func string(at node: Int) throws -> String {
        guard isOpen, case .string(let range, let escaped) = nodes[node] else { throw decline() }
        let raw = UnsafeBufferPointer(rebasing: bytes[range])
        // Checked as UTF-8 by the scanner, so decoding cannot replace anything.
        return escaped ? Self.unescaped(raw) : String(decoding: raw, as: UTF8.self)
    }

    func double(at node: Int) throws -> Double {
        guard isOpen, case .number(let range) = nodes[node] else { throw decline() }
        let text = UnsafeBufferPointer(rebasing: bytes[range])
        if let plain = PlainInteger(text), plain.magnitude < 1 << 53, plain.magnitude != 0 || !plain.negative {
            return plain.negative ? -Double(plain.magnitude) : Double(plain.magnitude)
        }
        if let value = DecimalToDouble.value(of: text) { return value }
        return try Self.checked(Double(String(decoding: text, as: UTF8.self)), text: text) ?? { throw decline() }()
    }

    /// Read from the text as `JSONDecoder` reads it, straight to `Float` (not through `Double`, which could round
    /// twice).
    func float(at node: Int) throws -> Float {
        guard isOpen, case .number(let range) = nodes[node] else { throw decline() }
        let text = UnsafeBufferPointer(rebasing: bytes[range])
        return try Self.checked(Float(String(decoding: text, as: UTF8.self)), text: text) ?? { throw decline() }()
    }

    /// `value` when `JSONDecoder` would accept it: finite, and zero only when the text is zero written without an
    /// exponent. Both parsers round correctly (`strtod`, `strtof`), so a value that passes is the same value. A zero
    /// with an exponent (`0e1`, `-0.0e1`) is declined: `JSONDecoder` refuses those (its own bug, but its answer is
    /// the promise), and an underflow (`1e-400`) is its to judge as well.
    private static func checked<Value: BinaryFloatingPoint>(_ value: Value?, text: UnsafeBufferPointer<UInt8>) -> Value?
    {
        guard let value, value.isFinite else { return nil }
        if value == 0 {
            for byte in text {
                if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { return nil }
                if byte >= UInt8(ascii: "1") && byte <= UInt8(ascii: "9") { return nil }
            }
        }
        return value
    }

    /// A `Date` by the decoder's date strategy, as `JSONDecoder` applies it; `formatted` is left to it.
    func date(at node: Int, decoder: () -> TapeDecoder) throws -> Date {
        let strategy = dateStrategy
        if case .deferredToDate = strategy { return try Date(from: decoder()) }
        if case .secondsSince1970 = strategy { return Date(timeIntervalSince1970: try double(at: node)) }
        if case .millisecondsSince1970 = strategy { return Date(timeIntervalSince1970: try double(at: node) / 1000) }
        if case .iso8601 = strategy {
            guard let date = try? Date.ISO8601FormatStyle().parse(try string(at: node)) else { throw decline() }
            return date
        }
        if case .custom(let read) = strategy { return try read(decoder()) }
        throw decline()
    }

    /// `Data` by the decoder's data strategy, as `JSONDecoder` applies it.
    func data(at node: Int, decoder: () -> TapeDecoder) throws -> Data {
        let strategy = dataStrategy
        if case .base64 = strategy {
            guard let data = Data(base64Encoded: try string(at: node)) else { throw decline() }
            return data
        }
        if case .deferredToData = strategy { return try Data(from: decoder()) }
        if case .custom(let read) = strategy { return try read(decoder()) }
        throw decline()
    }

    func url(at node: Int) throws -> URL {
        guard let url = URL(string: try string(at: node)) else { throw decline() }
        return url
    }

    func integer<Integer: FixedWidthInteger>(at node: Int) throws -> Integer {
        // No `Integer(exactly:)` and no `Integer?` here: a decoder's keyed container is generic at run time, and
        // unspecialized each was a runtime call (the optional's metadata alone cost 450 instructions a number).
        guard isOpen, case .number(let range) = nodes[node],
            let plain = PlainInteger(UnsafeBufferPointer(rebasing: bytes[range])),
            plain.fits(bitWidth: Integer.bitWidth, signed: Integer.isSigned)
        else { throw decline() }
        return plain.negative
            ? Integer(truncatingIfNeeded: Int64(bitPattern: 0 &- plain.magnitude))
            : Integer(truncatingIfNeeded: plain.magnitude)
    }

    /// The text of a string's content with escapes, already checked by the scanner (a `\u` high surrogate comes
    /// with its low one).
    static func unescaped(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            // The run up to the next backslash is copied as it is.
            var end = index
            while end < raw.count, raw[end] != UInt8(ascii: "\\") { end += 1 }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: raw[index..<end]))
            guard end < raw.count else { break }
            let escape = raw[end + 1]
            index = end + 2
            switch escape {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = UInt32(hexUnit(raw, at: index))
                index += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    let low = UInt32(hexUnit(raw, at: index + 2))
                    index += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                // The scanner let through only whole scalars (a high surrogate with its low one).
                UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}") { output.append($0) }
            default: output.append(escape)  // `"`, `\` and `/` stand for themselves
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexUnit(_ raw: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt16 {
        var unit: UInt16 = 0
        for byte in raw[index..<(index + 4)] {
            let digit: UInt8 =
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
                default: byte - UInt8(ascii: "A") + 10
                }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }
}

/// The types the tape reads itself, and those it leaves to `JSONDecoder`.
enum Primitive {
    case none, bool, string, double, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float
    /// The types `JSONDecoder` decodes by rules of its own, copied here.
    case date, data, url
    /// Arrays of primitives, read in one loop.
    case doubles, ints, int64s, strings
    /// `Decimal`, whose parse is `JSONDecoder`'s own.
    case declined

    init(_ type: Any.Type) {
        switch ObjectIdentifier(type) {
        case ObjectIdentifier(String.self): self = .string
        case ObjectIdentifier(Int.self): self = .int
        case ObjectIdentifier(Bool.self): self = .bool
        case ObjectIdentifier(Double.self): self = .double
        case ObjectIdentifier(Int64.self): self = .int64
        case ObjectIdentifier(Int32.self): self = .int32
        case ObjectIdentifier(UInt.self): self = .uint
        case ObjectIdentifier(UInt64.self): self = .uint64
        case ObjectIdentifier(UInt32.self): self = .uint32
        case ObjectIdentifier(Int16.self): self = .int16
        case ObjectIdentifier(UInt16.self): self = .uint16
        case ObjectIdentifier(Int8.self): self = .int8
        case ObjectIdentifier(UInt8.self): self = .uint8
        case ObjectIdentifier(Float.self): self = .float
        case ObjectIdentifier(Date.self): self = .date
        case ObjectIdentifier(Data.self): self = .data
        case ObjectIdentifier(URL.self): self = .url
        case ObjectIdentifier([Double].self): self = .doubles
        case ObjectIdentifier([Int].self): self = .ints
        case ObjectIdentifier([Int64].self): self = .int64s
        case ObjectIdentifier([String].self): self = .strings
        case ObjectIdentifier(Decimal.self): self = .declined
        default: self = .none
        }
    }
}
