import Konex
import KonexTesting

typealias JSONValue = JSON

/// Input generators for the property tests, over KonexTesting's seeded generator.
extension SeededGenerator {
    mutating func string(maxLength: Int = 12, alphabet: [Character]? = nil) -> String {
        let pool = alphabet ?? Array("aZ09 -._~&=+?#/%[]{}\"'\\:;,éß日☕\u{0}\r\n\t")
        return String((0..<Int.random(in: 0...maxLength, using: &self)).map { _ in pool.randomElement(using: &self)! })
    }

    mutating func bytes(maxLength: Int = 64) -> [UInt8] {
        (0..<Int.random(in: 0...maxLength, using: &self)).map { _ in UInt8.random(in: 0...255, using: &self) }
    }

    mutating func json(depth: Int = 3) -> JSONValue {
        switch Int.random(in: 0..<(depth > 0 ? 7 : 5), using: &self) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &self))
        case 2: return .int(Int.random(in: -1_000_000...1_000_000, using: &self))
        case 3: return .string(string())
        case 4: return .double(Double(Int.random(in: -1000...1000, using: &self)) / 8)
        case 5: return .array((0..<Int.random(in: 0...4, using: &self)).map { _ in json(depth: depth - 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &self) { members[string(maxLength: 6)] = json(depth: depth - 1) }
            return .object(members)
        }
    }
}
