import Foundation

/// Finds the bytes of the value at a key path in a JSON document without building the document, and refuses any
/// document that a full parse would refuse.
///
/// `responseObject(of:atKeyPath:)` hands only that slice to `JSONDecoder`, so unwrapping an envelope costs
/// one linear scan instead of a parse and a re-serialization. The scan checks the syntax of the whole document,
/// not only the slice it returns: a body cut short, or with a stray quote far from the path, is a failure, never a
/// value. The rules (RFC 8259, as strict as the strictest Foundation parser):
/// - One UTF-8 byte order mark at the start is skipped; other encodings are refused.
/// - Whitespace may follow the value; anything else after it is refused.
/// - Strings must be valid UTF-8 without raw control characters; escapes must be the JSON ones, and a `\u`
///   surrogate must come in a high–low pair.
/// - Numbers follow the JSON grammar (no leading zeros, no `+`, no `.5`); `-0` is a number; one beyond `Double`'s
///   range (`1e400`) is refused, as `JSONSerialization` refuses it.
/// - No trailing commas, although Foundation on Linux accepts them: Apple platforms before 2023 do not.
/// - Nesting deeper than 512 arrays and objects is refused, Foundation's own limit.
/// - When an object repeats a key on the path, the first occurrence is read, as `JSONDecoder` reads it.
enum JSONScanner {
    /// Why the path could not be followed, or why the document is not JSON.
    struct Failure: Error, Sendable, CustomStringConvertible {
        let description: String
        /// `true` when the document is not JSON; `false` when it is, but the path does not lead to a value.
        var isSyntaxError = false
    }

    /// `JSONSerialization`'s nesting limit.
    static let maximumDepth = 512

    /// The byte range (in `data`'s indices) of the value at `path`.
    /// - Throws: ``Failure`` when the document is not valid JSON or the path does not lead to a value.
    static func range(of path: JSONKeyPath, in data: Data) throws -> Range<Data.Index> {
        let local = try data.withUnsafeBytes { raw -> Range<Int> in
            var cursor = Cursor(bytes: raw.bindMemory(to: UInt8.self))
            cursor.skipByteOrderMark()
            cursor.skipWhitespace()
            let found = try cursor.value(at: path.parsed[...], walked: [], depth: 0)
            cursor.skipWhitespace()
            guard cursor.isAtEnd else { throw cursor.failure("unexpected \(cursor.found) after the JSON value") }
            return found
        }
        return (data.startIndex + local.lowerBound)..<(data.startIndex + local.upperBound)
    }

    static func location(_ walked: [String]) -> String {
        walked.isEmpty ? "the top level" : JSONKeyPath.render(walked)
    }
}

extension JSONScanner.Cursor {
    /// Reads the value under the cursor, following `path` into it, and returns the range of the value at its end.
    ///
    /// Every byte of the value is checked, including the members and elements after the one the path follows.
    mutating func value(at path: ArraySlice<JSONKeyPath.Component>, walked: [String], depth: Int) throws
        -> Range<Int>
    {
        guard let component = path.first else {
            let start = position
            try skipValue(depth: depth)
            return start..<position
        }
        let rest = path.dropFirst()
        switch component {
        case .key(let key):
            guard peek == UInt8(ascii: "{") else {
                let what = found
                try skipValue(depth: depth)  // a document that is not JSON says so first
                throw JSONScanner.Failure(
                    description: "expected an object at \(JSONScanner.location(walked)), found \(what)")
            }
            let keyBytes = Array(key.utf8)
            var found: Range<Int>?
            try members(depth: depth + 1) { cursor, name in
                if found == nil, cursor.name(name, equals: keyBytes) {
                    found = try cursor.value(at: rest, walked: walked + [key], depth: depth + 1)
                } else {
                    try cursor.skipValue(depth: depth + 1)
                }
            }
            guard let found else {
                throw JSONScanner.Failure(description: "key not found: \"\(key)\" at \(JSONScanner.location(walked))")
            }
            return found
        case .index(let index):
            guard peek == UInt8(ascii: "[") else {
                let what = found
                try skipValue(depth: depth)  // a document that is not JSON says so first
                throw JSONScanner.Failure(
                    description: "expected an array at \(JSONScanner.location(walked)), found \(what)")
            }
            var found: Range<Int>?
            try elements(depth: depth + 1) { cursor, current in
                if current == index {
                    found = try cursor.value(at: rest, walked: walked + ["[\(index)]"], depth: depth + 1)
                } else {
                    try cursor.skipValue(depth: depth + 1)
                }
            }
            guard let found else {
                throw JSONScanner.Failure(
                    description: "index \(index) out of range at \(JSONScanner.location(walked))")
            }
            return found
        }
    }

    /// With the cursor on `{`, reads every member: `body` gets the name's byte range and must read the value.
    private mutating func members(depth: Int, _ body: (inout Self, Name) throws -> Void) throws {
        try checkDepth(depth)
        position += 1
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            position += 1
            return
        }
        while true {
            let name = try skipMemberName()
            skipWhitespace()
            try body(&self, name)
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return
            default: throw failure("expected ',' or '}' after an object member, found \(found)")
            }
        }
    }

    /// With the cursor on `[`, reads every element: `body` gets the element's index and must read the value.
    private mutating func elements(depth: Int, _ body: (inout Self, Int) throws -> Void) throws {
        try checkDepth(depth)
        position += 1
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            position += 1
            return
        }
        var index = 0
        while true {
            skipWhitespace()
            if index > 0, peek == UInt8(ascii: "]") { throw failure("a trailing comma before ']'") }
            try body(&self, index)
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return
            default: throw failure("expected ',' or ']' after an array element, found \(found)")
            }
            index += 1
        }
    }
}
