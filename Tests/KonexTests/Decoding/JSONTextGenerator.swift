import Foundation
import KonexTesting

/// Writes random JSON text (not through an encoder, so whitespace, escapes and number forms vary as servers write
/// them) and remembers one path to a value inside it.
///
/// Sibling keys carry a tag of their depth and index written twice (`_12_12`) and no other digits, so no one-byte
/// corruption can turn one key into a sibling's: duplicate keys, which Foundation's parsers resolve differently,
/// stay out of the oracle's way.
struct JSONTextGenerator {
    var random: SeededGenerator

    /// A document whose top level is an object, and a path (dotted) to a value in it.
    mutating func document() -> (text: String, path: String) {
        var path: [String] = []
        let text = object(depth: 0, path: &path, choosing: true)
        return (whitespace() + text + whitespace(), path.joined(separator: "."))
    }

    private mutating func value(depth: Int, path: inout [String], choosing: Bool) -> String {
        let roll = Int.random(in: 0..<(depth < 4 ? 9 : 6), using: &random)
        switch roll {
        case 0: return "null"
        case 1: return Bool.random(using: &random) ? "true" : "false"
        case 2, 3: return number()
        case 4, 5: return "\"" + stringContent(allowDigits: true) + "\""
        case 6, 7: return object(depth: depth + 1, path: &path, choosing: choosing)
        default: return array(depth: depth + 1, path: &path, choosing: choosing)
        }
    }

    private mutating func object(depth: Int, path: inout [String], choosing: Bool) -> String {
        let count = Int.random(in: 0...5, using: &random)
        let chosen = choosing && count > 0 ? Int.random(in: 0..<count, using: &random) : -1
        var members: [String] = []
        for index in 0..<count {
            let tag = "_\(depth)\(index)_\(depth)\(index)"
            let (raw, decoded) = key()
            var inner: [String] = []
            let value = value(depth: depth, path: &inner, choosing: index == chosen)
            if index == chosen { path = [decoded + tag] + inner }
            members.append(whitespace() + "\"" + raw + tag + "\"" + whitespace() + ":" + whitespace() + value)
        }
        return "{" + members.joined(separator: whitespace() + ",") + whitespace() + "}"
    }

    private mutating func array(depth: Int, path: inout [String], choosing: Bool) -> String {
        let count = Int.random(in: 0...5, using: &random)
        let chosen = choosing && count > 0 ? Int.random(in: 0..<count, using: &random) : -1
        var elements: [String] = []
        for index in 0..<count {
            var inner: [String] = []
            let value = value(depth: depth, path: &inner, choosing: index == chosen)
            if index == chosen { path = ["\(index)"] + inner }
            elements.append(whitespace() + value)
        }
        return "[" + elements.joined(separator: whitespace() + ",") + whitespace() + "]"
    }

    /// A key without digits or dots: its raw JSON text and what it decodes to.
    private mutating func key() -> (raw: String, decoded: String) {
        let pieces: [(String, String)] = [
            ("a", "a"), ("Z", "Z"), ("é", "é"), ("日", "日"), ("😀", "😀"), (" ", " "), ("\\\"", "\""),
            ("\\\\", "\\"), ("\\n", "\n"), ("\\u00e9", "é"), ("\\uD83D\\uDE00", "😀"), ("\\/", "/"), ("_", "_"),
        ]
        var raw = ""
        var decoded = ""
        for _ in 0..<Int.random(in: 0...4, using: &random) {
            let piece = pieces.randomElement(using: &random)!
            raw += piece.0
            decoded += piece.1
        }
        return (raw, decoded)
    }

    private mutating func stringContent(allowDigits: Bool) -> String {
        let pieces = [
            "a", "Z", "0", "7", " ", "é", "ß", "日", "☕", "😀", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r",
            "\\t", "\\u0000", "\\u001f", "\\u00e9", "\\uD83D\\uDE00", "\\uDBFF\\uDFFF", ",", ":", "{", "]",
        ]
        return (0..<Int.random(in: 0...8, using: &random)).map { _ in pieces.randomElement(using: &random)! }
            .joined()
    }

    /// Every number form the grammar allows, near the edges too.
    private mutating func number() -> String {
        let sign = Bool.random(using: &random) ? "-" : ""
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return sign + "0"
        case 1: return sign + String(Int.random(in: 1...Int(Int32.max), using: &random))
        case 2: return sign + "\(Int.random(in: 0...999, using: &random)).\(Int.random(in: 0...99_999, using: &random))"
        case 3: return sign + "\(Int.random(in: 1...9, using: &random))e\(Int.random(in: -300...300, using: &random))"
        case 4:
            let mantissa = "\(Int.random(in: 0...9, using: &random)).\(Int.random(in: 1...999, using: &random))"
            let exponent = ["E+", "e-", "E", "e+"].randomElement(using: &random)!
            return sign + mantissa + exponent + "\(Int.random(in: 0...30, using: &random))"
        case 5: return sign + "0.0"
        case 6: return sign + "123456789012345678901234567890"
        default: return sign + "1.7976931348623157e308"
        }
    }

    private mutating func whitespace() -> String {
        switch Int.random(in: 0..<6, using: &random) {
        case 0: " "
        case 1: "\n  "
        case 2: "\t"
        case 3: "\r\n"
        default: ""
        }
    }
}
