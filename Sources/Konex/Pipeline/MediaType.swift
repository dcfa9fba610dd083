/// Media-type matching for `Content-Type` checks: ASCII case-insensitive, parameters ignored, wildcards allowed.
///
/// Works on UTF-8 bytes without Foundation: this runs on every validated response.
struct MediaType: Sendable, Hashable {
    /// `type/subtype`, lower-cased, without spaces or parameters: one buffer, sized once (a validator made at the call
    /// site parses its types on every request, and growing two arrays byte by byte cost more than the check itself).
    private let bytes: [UInt8]
    /// Where the `/` is in ``bytes``.
    private let slash: Int

    var type: ArraySlice<UInt8> { bytes[..<slash] }
    var subtype: ArraySlice<UInt8> { bytes[(slash + 1)...] }

    private static let wildcard = [UInt8(ascii: "*")]

    /// Parses `type/subtype[; parameters]`; `nil` when it is not of that shape.
    init?(_ value: String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(value.utf8.count)
        var slash = -1
        for byte in value.utf8 {
            if byte == UInt8(ascii: ";") { break }
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { continue }
            if byte == UInt8(ascii: "/") {
                if slash >= 0 { return nil }
                slash = bytes.count
            }
            bytes.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte)
        }
        guard slash > 0, slash < bytes.count - 1 else { return nil }
        self.bytes = bytes
        self.slash = slash
    }

    /// Whether the `Content-Type` header value is accepted by one of `patterns`, without allocating.
    static func header(_ header: String, matchesAnyOf patterns: [MediaType]) -> Bool {
        var header = header
        return header.withUTF8 { bytes in
            // Bounds of type and subtype, skipping spaces and stopping at parameters.
            var slash = -1
            var end = bytes.count
            for index in 0..<bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: ";") {
                    end = index
                    break
                }
                if byte == UInt8(ascii: "/") {
                    if slash >= 0 { return false }
                    slash = index
                }
            }
            guard slash >= 0 else { return false }
            let type = UnsafeBufferPointer(rebasing: bytes[0..<slash])
            let subtype = UnsafeBufferPointer(rebasing: bytes[(slash + 1)..<end])
            let isBlank = { (part: UnsafeBufferPointer<UInt8>) in
                part.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            }
            if isBlank(type) || isBlank(subtype) { return false }
            return patterns.contains { pattern in
                (pattern.type.elementsEqual(wildcard) || equalIgnoringCaseAndSpaces(type, pattern.type))
                    && (pattern.subtype.elementsEqual(wildcard) || equalIgnoringCaseAndSpaces(subtype, pattern.subtype))
            }
        }
    }

    /// Compares raw header bytes (any case, spaces allowed) with a lower-cased token.
    private static func equalIgnoringCaseAndSpaces(_ raw: UnsafeBufferPointer<UInt8>, _ token: ArraySlice<UInt8>)
        -> Bool
    {
        var position = token.startIndex
        for byte in raw where byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t") {
            let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
            guard position < token.endIndex, token[position] == lower else { return false }
            position += 1
        }
        return position == token.endIndex && position > token.startIndex
    }

    /// Whether `header` (e.g. `application/json; charset=utf-8`) matches one of `patterns`, given as text.
    static func matches(_ header: String, anyOf patterns: [String]) -> Bool {
        Self.header(header, matchesAnyOf: patterns.compactMap(MediaType.init))
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
