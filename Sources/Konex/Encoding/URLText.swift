/// Makes the text of a request path (or absolute URL) valid RFC 3986 before Foundation parses it, so the same
/// request string becomes the same URL on every platform.
///
/// Foundation disagrees with itself here: on Linux and on Apple platforms since iOS 17 / macOS 14, `URL(string:)`
/// quietly percent-encodes a space, `|` or `é`; before them it returns `nil`. Konex encodes first, so `URL(string:)`
/// only ever sees valid text:
/// - In the path, every byte outside `unreserved / sub-delims / ":" / "@" / "/"` is percent-encoded as UTF-8.
/// - In the query and the fragment, `"?"` is allowed as well (and `"/"`); everything else outside the set is encoded.
/// - A `%` followed by two hex digits is kept (the text is already encoded there); any other `%` becomes `%25`.
/// - The scheme and authority of an absolute URL are left as written.
///
/// `"/search/a b|c?q=é"` becomes `"/search/a%20b%7Cc?q=%C3%A9"`. Parameters are encoded separately, more strictly
/// (see ``URLEncoding``).
enum URLText {
    /// `text` with every byte that RFC 3986 does not allow where it stands percent-encoded; `text` itself (no copy)
    /// when it is valid already.
    static func encoded(_ text: Substring) -> Substring {
        let bytes = text.utf8
        var start = bytes.startIndex
        if let afterSeparator = schemeSeparatorEnd(in: bytes) {
            // Skip the scheme and the authority: only what follows the host is encoded.
            start =
                bytes[afterSeparator...].firstIndex {
                    $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
                } ?? bytes.endIndex
        }
        guard let first = firstInvalid(in: bytes, from: start) else { return text }
        var output = Array(bytes[..<first])
        output.reserveCapacity(bytes.count + 16)
        var part = part(before: first, in: bytes)
        var index = first
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "?"), part == .path { part = .query }
            if byte == UInt8(ascii: "#"), part != .fragment {
                part = .fragment
                output.append(byte)
            } else if isAllowed(byte, in: part) || (byte == UInt8(ascii: "%") && isEscape(bytes, at: index)) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0x0F)])
            }
            index = bytes.index(after: index)
        }
        return Substring(decoding: output, as: UTF8.self)
    }

    private enum Part { case path, query, fragment }

    /// Where the text after a leading `scheme "://"` starts, or `nil`. A scheme exists only at the very start
    /// (RFC 3986 §3.1: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"`), so a `://` inside a path or a query
    /// (`a b?next=https://x.y/`) is not one, and what stands before it is still encoded. A plain loop: the generic
    /// `firstRange(of:)` costs more than the rest of building a request, and this runs for every one.
    private static func schemeSeparatorEnd(in bytes: Substring.UTF8View) -> String.Index? {
        var index = bytes.startIndex
        guard index < bytes.endIndex, isLetter(bytes[index]) else { return nil }
        index = bytes.index(after: index)
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: ":") {
                let slash = bytes.index(after: index)
                guard slash < bytes.endIndex, bytes[slash] == UInt8(ascii: "/") else { return nil }
                let second = bytes.index(after: slash)
                guard second < bytes.endIndex, bytes[second] == UInt8(ascii: "/") else { return nil }
                return bytes.index(after: second)
            }
            guard
                isLetter(byte) || (byte &- UInt8(ascii: "0")) < 10 || byte == UInt8(ascii: "+")
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            else { return nil }
            index = bytes.index(after: index)
        }
        return nil
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) &- UInt8(ascii: "a") < 26 }

    private static let hex = Array("0123456789ABCDEF".utf8)

    /// The first byte that needs encoding, or `nil` (the common case, which then costs no allocation).
    private static func firstInvalid(in bytes: Substring.UTF8View, from start: String.Index) -> String.Index? {
        var part = Part.path
        var index = start
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "?"), part == .path {
                part = .query
            } else if byte == UInt8(ascii: "#"), part != .fragment {
                part = .fragment
            } else if !isAllowed(byte, in: part), !(byte == UInt8(ascii: "%") && isEscape(bytes, at: index)) {
                return index
            }
            index = bytes.index(after: index)
        }
        return nil
    }

    private static func part(before index: String.Index, in bytes: Substring.UTF8View) -> Part {
        if bytes[..<index].contains(UInt8(ascii: "#")) { return .fragment }
        return bytes[..<index].contains(UInt8(ascii: "?")) ? .query : .path
    }

    private static func isAllowed(_ byte: UInt8, in part: Part) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        // unreserved, sub-delims, and ":" "@" "/"
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "!"),
            UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="),
            UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"):
            return true
        case UInt8(ascii: "?"): return part != .path
        default: return false
        }
    }

    private static func isEscape(_ bytes: Substring.UTF8View, at index: String.Index) -> Bool {
        let digits = bytes[bytes.index(after: index)...].prefix(2)
        return digits.count == 2 && digits.allSatisfy(isHexDigit)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default: false
        }
    }
}
