/// The `Set-Cookie` lines of a response, one cookie a line, however the transport handed them over.
///
/// A line must never be joined to another (RFC 9110 §5.3 exempts `Set-Cookie`), but Foundation's `HTTPURLResponse`
/// joins them with `", "`. Such a value is split again at each comma that is followed by `name=` before any `;`: a
/// cookie's value cannot hold a comma (RFC 6265 §4.1.1), so only an attribute's can (`Expires=Wed, 09 Jun 2027 …`),
/// and what follows that comma is no `name=`.
package enum SetCookieLines {
    /// The lines of `response`.
    package static func lines(of response: ResponseHead) -> [String] {
        let values = response.headerFields.values(for: "Set-Cookie")
        guard response.isReadFromFoundation else { return values }
        return values.flatMap(split)
    }

    /// A joined value split into its lines.
    package static func split(_ joined: String) -> [String] {
        guard joined.utf8.contains(UInt8(ascii: ",")) else { return joined.isEmpty ? [] : [joined] }
        let bytes = Array(joined.utf8)
        var lines: [String] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: ","), startsACookie(bytes, at: index + 1) {
                lines.append(trimmed(bytes[start..<index]))
                start = index + 1
            }
            index += 1
        }
        lines.append(trimmed(bytes[start...]))
        return lines.filter { !$0.isEmpty }
    }

    /// Whether `name=` (a token, then `=`) starts at `index`, after spaces and empty lines.
    private static func startsACookie(_ bytes: [UInt8], at index: Int) -> Bool {
        var index = index
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == UInt8(ascii: ",") {
            index += 1
        }
        let nameStart = index
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "="): return index > nameStart
            case UInt8(ascii: ";"), UInt8(ascii: ","), 0x20, 0x09: return false
            default: index += 1
            }
        }
        return false
    }

    /// Without spaces, tabs and the commas of empty lines at either end.
    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> String {
        let slice = bytes.drop { $0 == 0x20 || $0 == 0x09 || $0 == UInt8(ascii: ",") }
        let end =
            slice.lastIndex { $0 != 0x20 && $0 != 0x09 && $0 != UInt8(ascii: ",") }.map { $0 + 1 } ?? slice.startIndex
        return String(decoding: slice[..<end], as: UTF8.self)
    }
}
