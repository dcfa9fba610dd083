import Foundation

/// Finds the bytes of the value at a key path in a JSON document without building the document.
///
/// `responseObject(ofType:atKeyPath:)` hands only that slice to `JSONDecoder`, so unwrapping an envelope costs
/// one skim over the bytes instead of a parse and a re-serialization. The skim only tracks strings and
/// nesting; `JSONDecoder` still validates the slice it decodes.
enum JSONScanner {
    /// Why the path could not be followed.
    struct Failure: Error, Sendable, CustomStringConvertible {
        let description: String
    }

    /// The byte range (in `data`'s indices) of the value at `path`.
    static func range(of path: JSONKeyPath, in data: Data) throws -> Range<Data.Index> {
        if path.parsed.isEmpty { return data.startIndex..<data.endIndex }
        let local = try data.withUnsafeBytes { raw -> Range<Int> in
            var cursor = Cursor(bytes: raw.bindMemory(to: UInt8.self))
            var walked: [String] = []
            for component in path.parsed {
                cursor.skipWhitespace()
                switch component {
                case .key(let key):
                    guard cursor.peek == UInt8(ascii: "{") else {
                        throw Failure(description: "expected an object at \(location(walked)), found \(cursor.found)")
                    }
                    guard try cursor.enterMember(named: Array(key.utf8)) else {
                        throw Failure(description: "key not found: \"\(key)\" at \(location(walked))")
                    }
                    walked.append(key)
                case .index(let index):
                    guard cursor.peek == UInt8(ascii: "[") else {
                        throw Failure(description: "expected an array at \(location(walked)), found \(cursor.found)")
                    }
                    guard try cursor.enterElement(at: index) else {
                        throw Failure(description: "index \(index) out of range at \(location(walked))")
                    }
                    walked.append("[\(index)]")
                }
            }
            cursor.skipWhitespace()
            let start = cursor.position
            try cursor.skipValue()
            return start..<cursor.position
        }
        return (data.startIndex + local.lowerBound)..<(data.startIndex + local.upperBound)
    }

    private static func location(_ walked: [String]) -> String {
        walked.isEmpty ? "the top level" : JSONKeyPath.render(walked)
    }

    private struct Cursor {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

        var found: String {
            switch peek {
            case nil: "the end of the data"
            case UInt8(ascii: "{"): "an object"
            case UInt8(ascii: "["): "an array"
            case UInt8(ascii: "\""): "a string"
            case UInt8(ascii: "t"), UInt8(ascii: "f"): "a Boolean"
            case UInt8(ascii: "n"): "null"
            default: "a number"
            }
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
            guard peek == byte else {
                throw Failure(
                    description: "malformed JSON at byte \(position): expected '\(Character(UnicodeScalar(byte)))'")
            }
            position += 1
        }

        /// Skips a string starting at its opening quote; returns the content range and whether it has escapes.
        mutating func skipString() throws -> (Range<Int>, escaped: Bool) {
            position += 1
            let start = position
            var escaped = false
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: "\""):
                    position += 1
                    return (start..<(position - 1), escaped)
                case UInt8(ascii: "\\"):
                    escaped = true
                    position += 2
                default:
                    position += 1
                }
            }
            throw Failure(description: "malformed JSON: unterminated string starting at byte \(start - 1)")
        }

        mutating func skipValue() throws {
            skipWhitespace()
            guard let first = peek else { throw Failure(description: "malformed JSON: unexpected end of data") }
            switch first {
            case UInt8(ascii: "\""):
                _ = try skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while position < bytes.count {
                    switch bytes[position] {
                    case UInt8(ascii: "\""):
                        _ = try skipString()
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            position += 1
                            return
                        }
                    default: break
                    }
                    position += 1
                }
                throw Failure(
                    description: "malformed JSON: unterminated \(first == UInt8(ascii: "{") ? "object" : "array")")
            default:
                let start = position
                while position < bytes.count {
                    switch bytes[position] {
                    case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D, 0x09:
                        if position == start { throw Failure(description: "malformed JSON at byte \(position)") }
                        return
                    default: position += 1
                    }
                }
                if position == start { throw Failure(description: "malformed JSON: unexpected end of data") }
            }
        }

        /// With the cursor on `{`, moves to the value of member `name`; `false` when there is none.
        mutating func enterMember(named name: [UInt8]) throws -> Bool {
            position += 1
            skipWhitespace()
            if peek == UInt8(ascii: "}") { return false }
            while true {
                skipWhitespace()
                guard peek == UInt8(ascii: "\"") else {
                    throw Failure(description: "malformed JSON at byte \(position): expected a member name")
                }
                let (range, escaped) = try skipString()
                try expect(UInt8(ascii: ":"))
                if matches(range, escaped: escaped, name) {
                    skipWhitespace()
                    return true
                }
                try skipValue()
                skipWhitespace()
                switch peek {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "}"): return false
                default: throw Failure(description: "malformed JSON at byte \(position): expected ',' or '}'")
                }
            }
        }

        /// With the cursor on `[`, moves to element `index`; `false` when the array is shorter.
        mutating func enterElement(at index: Int) throws -> Bool {
            position += 1
            skipWhitespace()
            if peek == UInt8(ascii: "]") { return false }
            var current = 0
            while true {
                skipWhitespace()
                if current == index { return true }
                try skipValue()
                skipWhitespace()
                switch peek {
                case UInt8(ascii: ","): position += 1
                case UInt8(ascii: "]"): return false
                default: throw Failure(description: "malformed JSON at byte \(position): expected ',' or ']'")
                }
                current += 1
            }
        }

        private func matches(_ range: Range<Int>, escaped: Bool, _ name: [UInt8]) -> Bool {
            if !escaped {
                guard range.count == name.count else { return false }
                if name.isEmpty { return true }
                return name.withUnsafeBufferPointer {
                    memcmp($0.baseAddress!, bytes.baseAddress! + range.lowerBound, range.count) == 0
                }
            }
            // Rare: a member name with escapes; let JSONDecoder unescape it.
            let quoted = Data([UInt8(ascii: "\"")] + Array(bytes[range]) + [UInt8(ascii: "\"")])
            guard let decoded = try? JSONDecoder().decode(String.self, from: quoted) else { return false }
            return Array(decoded.utf8) == name
        }
    }
}
