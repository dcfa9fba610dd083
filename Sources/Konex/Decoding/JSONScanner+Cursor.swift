import Foundation

extension JSONScanner {
    /// A position in a JSON document and the checks that move it: each `skip` consumes exactly one well-formed
    /// token or value, or throws.
    struct Cursor {
        /// A member name: its content bytes (between the quotes) and whether they hold escapes.
        typealias Name = (range: Range<Int>, escaped: Bool)

        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var peek: UInt8? { position < bytes.count ? bytes[position] : nil }
        var isAtEnd: Bool { position >= bytes.count }

        /// What is under the cursor, for messages.
        var found: String {
            switch peek {
            case nil: "the end of the data"
            case UInt8(ascii: "{"): "an object"
            case UInt8(ascii: "["): "an array"
            case UInt8(ascii: "\""): "a string"
            case UInt8(ascii: "t"), UInt8(ascii: "f"): "a Boolean"
            case UInt8(ascii: "n"): "null"
            case UInt8(ascii: "-"), .some(UInt8(ascii: "0")...UInt8(ascii: "9")): "a number"
            case UInt8(ascii: "}"): "'}'"
            case UInt8(ascii: "]"): "']'"
            case UInt8(ascii: ","): "','"
            case UInt8(ascii: ":"): "':'"
            case let byte?:
                byte >= 0x21 && byte < 0x7F
                    ? "'\(Character(UnicodeScalar(byte)))'" : "byte 0x\(String(byte, radix: 16))"
            }
        }

        func failure(_ what: String, at offset: Int? = nil) -> Failure {
            Failure(description: "malformed JSON at byte \(offset ?? position): \(what)", isSyntaxError: true)
        }

        mutating func skipByteOrderMark() {
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
        }

        mutating func skipWhitespace() {
            while position < bytes.count {
                switch bytes[position] {
                case 0x20, 0x0A, 0x0D, 0x09: position += 1
                default: return
                }
            }
        }

        mutating func expect(_ byte: UInt8) throws {
            skipWhitespace()
            guard peek == byte else { throw failure("expected '\(Character(UnicodeScalar(byte)))', found \(found)") }
            position += 1
        }

        func checkDepth(_ depth: Int) throws {
            if depth > JSONScanner.maximumDepth {
                throw failure("more than \(JSONScanner.maximumDepth) nested arrays and objects")
            }
        }

        /// Skips one value, checking every byte of it. Iterative, so a hostile nesting depth cannot overflow the
        /// stack; `depth` is how deep the value already sits.
        mutating func skipValue(depth: Int) throws {
            // One entry per open container: true for an object, false for an array.
            var open: [Bool] = []
            while true {
                skipWhitespace()
                switch peek {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    let isObject = peek == UInt8(ascii: "{")
                    try checkDepth(depth + open.count + 1)
                    position += 1
                    skipWhitespace()
                    if peek == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        position += 1
                        break
                    }
                    open.append(isObject)
                    if isObject { try skipMemberName() }
                    continue
                case UInt8(ascii: "\""): _ = try skipString()
                case UInt8(ascii: "t"): try skipLiteral("true")
                case UInt8(ascii: "f"): try skipLiteral("false")
                case UInt8(ascii: "n"): try skipLiteral("null")
                case UInt8(ascii: "-"), .some(UInt8(ascii: "0")...UInt8(ascii: "9")): try skipNumber()
                case nil: throw failure("unexpected end of data, expected a value")
                case UInt8(ascii: "]") where !open.isEmpty: throw failure("a trailing comma before ']'")
                default: throw failure("expected a value, found \(found)")
                }
                // A value ended: close the containers it completes, then move to the next member or element.
                while let isObject = open.last {
                    skipWhitespace()
                    if peek == UInt8(ascii: ",") {
                        position += 1
                        if isObject { try skipMemberName() }
                        break
                    }
                    guard peek == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else {
                        let expected =
                            isObject ? "',' or '}' after an object member" : "',' or ']' after an array element"
                        throw failure("expected \(expected), found \(found)")
                    }
                    position += 1
                    open.removeLast()
                }
                if open.isEmpty { return }
            }
        }

        /// Skips `"name":`, returning the name.
        @discardableResult
        mutating func skipMemberName() throws -> Name {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else {
                if peek == UInt8(ascii: "}") { throw failure("a trailing comma before '}'") }
                throw failure("expected a member name, found \(found)")
            }
            let name = try skipString()
            try expect(UInt8(ascii: ":"))
            return name
        }

        mutating func skipLiteral(_ literal: StaticString) throws {
            let count = literal.utf8CodeUnitCount
            guard position + count <= bytes.count,
                memcmp(bytes.baseAddress! + position, literal.utf8Start, count) == 0
            else { throw failure("expected \(literal), found \(found)") }
            position += count
        }
    }
}
