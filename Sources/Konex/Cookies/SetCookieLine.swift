import Foundation

/// One `Set-Cookie` line, parsed by RFC 6265bis §5.6: the name, the value and the attributes a ``CookieJar`` reads,
/// each the last of its name in the line (§5.7). Nothing here judges the cookie: the jar's storage rules do.
struct SetCookieLine: Equatable {
    var name: String
    var value: String
    /// The last `Expires` that is a cookie date.
    var expires: Date?
    /// The last `Max-Age` that is a number, in seconds (negative and zero mean "expired").
    var maxAge: Int64?
    /// The last non-empty `Domain`, without a leading dot, lower-cased.
    var domain: String?
    /// The last `Path` that starts with `/`; a `Path` that does not resets it to the default path.
    var path: String?
    var isSecure = false
    var isHTTPOnly = false
    var sameSite: Cookie.SameSite = .unspecified

    /// The longest attribute value read (§5.6: a longer one is ignored).
    static let maximumAttributeValue = 1_024

    /// The line's cookie, or `nil` for a line RFC 6265bis ignores: a control character but a tab, or neither a name
    /// nor a value.
    init?(_ line: String) {
        // §5.6 step 1: CTLs but HTAB make the whole line ignored.
        guard !line.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else { return nil }
        var parts = line.split(separator: ";", maxSplits: .max, omittingEmptySubsequences: false)[...]
        let pair = parts.removeFirst()
        if let equals = pair.firstIndex(of: "=") {
            name = Self.trimmed(pair[..<equals])
            value = Self.trimmed(pair[pair.index(after: equals)...])
        } else {
            name = ""
            value = Self.trimmed(pair)
        }
        guard !name.isEmpty || !value.isEmpty else { return nil }
        for attribute in parts {
            let attributeName: String
            let attributeValue: String
            if let equals = attribute.firstIndex(of: "=") {
                attributeName = Self.trimmed(attribute[..<equals])
                attributeValue = Self.trimmed(attribute[attribute.index(after: equals)...])
            } else {
                attributeName = Self.trimmed(attribute)
                attributeValue = ""
            }
            guard attributeValue.utf8.count <= Self.maximumAttributeValue else { continue }
            read(attributeName.lowercased(), attributeValue)
        }
    }

    /// §5.6.1–§5.6.7: one attribute, each read as its section says.
    private mutating func read(_ attribute: String, _ text: String) {
        switch attribute {
        case "expires":
            if let date = CookieDate.parse(text) { expires = date }
        case "max-age":
            // A digit or `-` first, then digits only; anything else is not a Max-Age.
            var digits = text.utf8[...]
            let negative = digits.first == UInt8(ascii: "-")
            if negative { digits = digits.dropFirst() }
            guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
            else { return }
            // Any count of digits: a number past Int64 is as far as the jar's cap anyway.
            let magnitude = Int64(String(decoding: digits, as: UTF8.self)) ?? .max
            maxAge = negative ? -magnitude : magnitude
        case "domain":
            // An empty Domain is ignored (§5.6.3); a leading dot means nothing.
            guard !text.isEmpty else { return }
            let bare = text.hasPrefix(".") ? String(text.dropFirst()) : text
            domain = bare.lowercased()
        case "path":
            path = text.hasPrefix("/") ? text : nil
        case "secure":
            isSecure = true
        case "httponly":
            isHTTPOnly = true
        case "samesite":
            switch text.lowercased() {
            case "strict": sameSite = .strict
            case "lax": sameSite = .lax
            case "none": sameSite = .none
            default: sameSite = .unspecified
            }
        default:
            break
        }
    }

    /// Without leading and trailing spaces and tabs (WSP), as §5.6 trims names, values and attributes.
    private static func trimmed(_ text: Substring) -> String {
        let bytes = text.utf8
        guard let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }) else { return "" }
        let last = bytes.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })!
        return String(text[first...last])
    }
}
