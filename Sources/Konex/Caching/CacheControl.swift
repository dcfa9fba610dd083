import Foundation

/// The directives of a `Cache-Control` field (RFC 9111 §5.2), parsed leniently: names without case, values as
/// tokens or quoted strings, the first of a repeated directive wins, and anything unparseable is kept as text so
/// the caller can treat it as invalid.
struct CacheControl: Sendable {
    private var directives: [String: String?] = [:]

    /// The greatest delta-seconds a cache must represent (RFC 9111 §1.2.2); larger values are clamped to it.
    static let maximumSeconds = 2_147_483_648

    init(_ field: String?) {
        guard let field else { return }
        for part in Self.split(field) {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            let name: String
            var value: String?
            if let equals = trimmed.firstIndex(of: "=") {
                name = trimmed[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
                var raw = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                if raw.count >= 2, raw.hasPrefix("\""), raw.hasSuffix("\"") { raw = String(raw.dropFirst().dropLast()) }
                value = raw
            } else {
                name = trimmed.lowercased()
            }
            if directives[name] == nil { directives[name] = .some(value) }
        }
    }

    /// Splits at commas outside quoted strings.
    private static func split(_ field: String) -> [Substring] {
        var parts: [Substring] = []
        var start = field.startIndex
        var quoted = false
        var index = field.startIndex
        while index < field.endIndex {
            let character = field[index]
            if character == "\"" { quoted.toggle() }
            if character == ",", !quoted {
                parts.append(field[start..<index])
                start = field.index(after: index)
            }
            index = field.index(after: index)
        }
        parts.append(field[start...])
        return parts
    }

    /// Whether the directive is present, with or without a value.
    func has(_ name: String) -> Bool { directives[name] != nil }

    /// A delta-seconds directive: `nil` when absent, `.invalid` when present without a number.
    func seconds(_ name: String) -> Seconds? {
        guard let entry = directives[name] else { return nil }
        guard let text = entry, !text.isEmpty, text.allSatisfy(\.isASCIIDigit) else { return .invalid }
        // Longer than the clamp's digits, or larger than it: the clamp (RFC 9111 §1.2.2).
        guard text.count <= 10, let value = Int(text), value <= Self.maximumSeconds else {
            return .valid(Self.maximumSeconds)
        }
        return .valid(value)
    }

    enum Seconds: Equatable {
        case valid(Int)
        case invalid

        /// The number of seconds; an invalid value counts as 0 (the response is treated as stale, §4.2.1).
        var value: Int {
            if case .valid(let seconds) = self { return seconds }
            return 0
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
