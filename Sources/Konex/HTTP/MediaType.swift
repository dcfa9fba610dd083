import Foundation

/// Media-type matching for `Content-Type` checks: ASCII case-insensitive, parameters ignored, wildcards allowed.
///
/// Works on the UTF-8 bytes of the header and the patterns as they are, without allocating:
/// a validator made at the call site is made on every request, so nothing is parsed ahead.
enum MediaType {
    /// A `type/subtype` before any parameters: the bytes of each side, spaces still in; `nil` when the value is not of
    /// that shape (no `/`, two of them, or a blank side).
    private typealias Parts = (type: UnsafeBufferPointer<UInt8>, subtype: UnsafeBufferPointer<UInt8>)

    private static func parts(_ bytes: UnsafeBufferPointer<UInt8>) -> Parts? {
        var slash = -1
        var end = bytes.count
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ";") {
                end = index
                break
            }
            if byte == UInt8(ascii: "/") {
                if slash >= 0 { return nil }
                slash = index
            }
            index += 1
        }
        guard slash >= 0 else { return nil }
        let type = UnsafeBufferPointer(rebasing: bytes[0..<slash])
        let subtype = UnsafeBufferPointer(rebasing: bytes[(slash + 1)..<end])
        if isBlank(type) || isBlank(subtype) { return nil }
        return (type, subtype)
    }

    private static func isBlank(_ part: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < part.count {
            if part[index] != UInt8(ascii: " ") && part[index] != UInt8(ascii: "\t") { return false }
            index += 1
        }
        return true
    }

    /// Whether a pattern's side is `*` (spaces aside).
    private static func isWildcard(_ part: UnsafeBufferPointer<UInt8>) -> Bool {
        var stars = 0
        for byte in part where byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t") {
            guard byte == UInt8(ascii: "*") else { return false }
            stars += 1
        }
        return stars == 1
    }

    /// Whether `header` (e.g. `application/json; charset=utf-8`) is accepted by one of `patterns`
    /// (`application/json`, `text/*`, `*/*`); a pattern that is not a media type accepts nothing.
    static func matches(_ header: String, anyOf patterns: [String]) -> Bool {
        var header = header
        return header.withUTF8 { headerBytes in
            // Parsed at most once, and only when no pattern matches byte for byte.
            var parsedHeader: Parts??
            for var pattern in patterns {
                let accepted = pattern.withUTF8 { patternBytes in
                    guard let wanted = parts(patternBytes) else { return false }
                    // The usual answer is the pattern itself, maybe with parameters: one comparison of bytes, and the
                    // header is not parsed (it is the valid pattern up to its parameters).
                    if headerBytes.count >= patternBytes.count,
                        headerBytes.count == patternBytes.count || headerBytes[patternBytes.count] == UInt8(ascii: ";"),
                        memcmp(headerBytes.baseAddress!, patternBytes.baseAddress!, patternBytes.count) == 0
                    {
                        return true
                    }
                    if parsedHeader == nil { parsedHeader = parts(headerBytes) }
                    guard let given = parsedHeader! else { return false }
                    return (isWildcard(wanted.type) || equalIgnoringCaseAndSpaces(given.type, wanted.type))
                        && (isWildcard(wanted.subtype) || equalIgnoringCaseAndSpaces(given.subtype, wanted.subtype))
                }
                if accepted { return true }
            }
            return false
        }
    }

    /// Compares two tokens as written in headers: ASCII letters in any case, spaces and tabs skipped.
    private static func equalIgnoringCaseAndSpaces(
        _ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        var i = 0
        var j = 0
        while true {
            while i < left.count, left[i] == UInt8(ascii: " ") || left[i] == UInt8(ascii: "\t") { i += 1 }
            while j < right.count, right[j] == UInt8(ascii: " ") || right[j] == UInt8(ascii: "\t") { j += 1 }
            guard i < left.count, j < right.count else { return i == left.count && j == right.count }
            guard lowercased(left[i]) == lowercased(right[j]) else { return false }
            i += 1
            j += 1
        }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// The `charset` parameter of a `Content-Type`, lower-cased, if any.
    static func charset(of header: String) -> String? {
        for parameter in header.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            let name = pair[0].filter { $0 != " " && $0 != "\t" }.lowercased()
            if name == "charset" {
                return pair[1].filter { $0 != " " && $0 != "\t" && $0 != "\"" }.lowercased()
            }
        }
        return nil
    }
}
