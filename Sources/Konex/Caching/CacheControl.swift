import Foundation

/// The directives of a `Cache-Control` field (RFC 9111 §5.2), parsed leniently: names without case, values as
/// tokens or quoted strings, the first of a repeated directive wins, and anything unparseable is kept as text so
/// the caller can treat it as invalid.
struct CacheControl: Sendable, Hashable {
    private var directives: [String: String?] = [:]

    /// The greatest delta-seconds a cache must represent (RFC 9111 §1.2.2, 2^31); larger values are clamped to it.
    /// Where `Int` is 32 bits (arm64_32, the Apple Watch) it is `Int.max`, one second less: the literal alone did not
    /// compile there.
    static let maximumSeconds = Int(clamping: 2_147_483_648 as Int64)

    init(_ field: String?) {
        guard let field, !field.isEmpty else { return }
        // One pass over the bytes (Foundation's trimming is slow on Linux, and this runs on every cache hit).
        var bytes = Array(field.utf8)
        bytes.append(UInt8(ascii: ","))
        var start = 0
        var quoted = false
        var escaped = false
        for index in bytes.indices {
            let byte = bytes[index]
            if quoted {
                // A quoted-pair (`\"`, `\\`) never ends the string (RFC 9110 §5.6.4).
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    quoted = false
                }
            } else if byte == UInt8(ascii: "\"") {
                quoted = true
            }
            guard byte == UInt8(ascii: ","), !quoted || index == bytes.count - 1 else { continue }
            add(bytes[start..<index])
            start = index + 1
        }
    }

    private mutating func add(_ part: ArraySlice<UInt8>) {
        let part = Self.trimmed(part)
        guard !part.isEmpty else { return }
        let name: String
        var value: String?
        if let equals = part.firstIndex(of: UInt8(ascii: "=")) {
            name = String(decoding: Self.trimmed(part[..<equals]), as: UTF8.self).lowercased()
            var raw = Self.trimmed(part[(equals + 1)...])
            if raw.count >= 2, raw.first == UInt8(ascii: "\""), raw.last == UInt8(ascii: "\"") {
                raw = raw.dropFirst().dropLast()
                value = String(decoding: Self.unescaped(raw), as: UTF8.self)
            } else {
                value = String(decoding: raw, as: UTF8.self)
            }
        } else {
            name = String(decoding: part, as: UTF8.self).lowercased()
        }
        if directives[name] == nil { directives[name] = .some(value) }
    }

    /// A quoted string's content with each quoted-pair replaced by the character it escapes.
    private static func unescaped(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var escaped = false
        for byte in bytes {
            if !escaped, byte == UInt8(ascii: "\\") {
                escaped = true
                continue
            }
            escaped = false
            output.append(byte)
        }
        return output
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var bytes = bytes
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes.removeFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
        return bytes
    }

    /// Whether the directive is present, with or without a value.
    func has(_ name: String) -> Bool { directives[name] != nil }

    /// A delta-seconds directive: `nil` when absent, `.invalid` when present without a number.
    func seconds(_ name: String) -> Seconds? {
        guard let entry = directives[name] else { return nil }
        guard let text = entry, !text.isEmpty, text.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else {
            return .invalid
        }
        // Leading zeros carry nothing ("0060" is 60); more significant digits than the clamp has, or a larger
        // value, is the clamp (RFC 9111 §1.2.2). Never parsed into a type it could overflow.
        let significant = text.utf8.drop { $0 == UInt8(ascii: "0") }
        guard significant.count <= 10 else { return .valid(Self.maximumSeconds) }
        let value = significant.reduce(Int64(0)) { $0 * 10 + Int64($1 &- UInt8(ascii: "0")) }
        return .valid(Int(Swift.min(value, Int64(Self.maximumSeconds))))
    }

    enum Seconds: Hashable {
        case valid(Int)
        case invalid

        /// The number of seconds; an invalid value counts as 0 (the response is treated as stale, §4.2.1).
        var value: Int {
            if case .valid(let seconds) = self { return seconds }
            return 0
        }
    }
}
