import Foundation

/// The dates of a cookie's `Expires` attribute, read by RFC 6265bis §5.1.1's algorithm, which is far looser than
/// HTTP's: the tokens may come in any order and between any delimiters (`Wed, 09-Jun-2021 10:18:14 GMT`,
/// `09 Jun 2021 10:18:14`, `Jun 9 10:18:14 2021`), and a two-digit year is 1970–2069.
enum CookieDate {
    /// The date, or `nil` when a part is missing or out of range (the attribute is then ignored).
    static func parse(_ text: String) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in text.utf8.split(whereSeparator: isDelimiter) {
            let token = Array(token)
            if time == nil, let found = Self.time(token) {
                time = found
            } else if day == nil, let found = leadingNumber(token, digits: 1...2) {
                day = found
            } else if month == nil, let found = Self.month(token) {
                month = found
            } else if year == nil, let found = leadingNumber(token, digits: 2...4) {
                year = found
            }
        }
        guard let time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59,
            day <= daysIn(month: month, of: year)
        else { return nil }
        let days = HTTPDate.daysFromCivil(year: year, month: month, day: day)
        return Date(
            timeIntervalSince1970: TimeInterval(days * 86_400 + time.hour * 3_600 + time.minute * 60 + time.second))
    }

    /// `%x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E`.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte) || (0x5B...0x60).contains(byte)
            || (0x7B...0x7E).contains(byte)
    }

    /// `1*2DIGIT ":" 1*2DIGIT ":" 1*2DIGIT ( non-digit *OCTET )`.
    private static func time(_ token: [UInt8]) -> (hour: Int, minute: Int, second: Int)? {
        var index = 0
        var parts: [Int] = []
        for part in 0..<3 {
            if part > 0 {
                guard index < token.count, token[index] == UInt8(ascii: ":") else { return nil }
                index += 1
            }
            var value = 0
            var count = 0
            while index < token.count, count < 3, let digit = digit(token[index]) {
                value = value * 10 + digit
                count += 1
                index += 1
            }
            guard (1...2).contains(count) else { return nil }
            parts.append(value)
        }
        if index < token.count, digit(token[index]) != nil { return nil }
        return (parts[0], parts[1], parts[2])
    }

    /// A number of `digits` digits, then nothing or a non-digit and anything.
    private static func leadingNumber(_ token: [UInt8], digits: ClosedRange<Int>) -> Int? {
        var value = 0
        var count = 0
        for byte in token {
            guard let digit = digit(byte) else { break }
            count += 1
            guard count <= digits.upperBound else { return nil }
            value = value * 10 + digit
        }
        return digits.contains(count) ? value : nil
    }

    /// A token whose first three letters name a month, in any case.
    private static func month(_ token: [UInt8]) -> Int? {
        guard token.count >= 3 else { return nil }
        let prefix = token[0..<3].map { $0 | 0x20 }
        return HTTPDate.months.firstIndex { $0 == prefix }.map { $0 + 1 }
    }

    private static func digit(_ byte: UInt8) -> Int? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
    }

    private static func daysIn(month: Int, of year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
