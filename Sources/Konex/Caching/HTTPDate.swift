import Foundation

/// HTTP dates (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and asctime forms recipients must accept.
///
/// Parsed by hand, byte by byte, to the grammar: no shared `DateFormatter` to guard, nothing locale-dependent, and
/// every number is a fixed count of digits, so no header can overflow the arithmetic (a year has four digits, at
/// most 9999). Names of days and months and `GMT` are matched without case (caches in the wild accept `gMT`);
/// anything else off the grammar (`UTC`, a missing comma, two spaces, a one-digit hour, `18-Aug-2050` in the
/// fixdate form) is not a date, which for `Expires` means already expired (RFC 9111 §5.3).
enum HTTPDate {
    /// The months' names in lower case, January first (cookie dates read them too).
    static let months: [[UInt8]] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ].map { Array($0.utf8) }
    private static let shortDays: [[UInt8]] = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map { Array($0.utf8) }
    private static let longDays: [[UInt8]] = [
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    ].map { Array($0.utf8) }

    /// The date, or `nil` for anything that is not one of the three forms.
    static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    /// The date in `bytes`, or `nil`; leading and trailing spaces or tabs are allowed (field values are trimmed).
    static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        let field = UnsafeBufferPointer(rebasing: bytes[start..<end])
        var imf = Reader(bytes: field)
        var rfc850 = Reader(bytes: field)
        var asctime = Reader(bytes: field)
        return imf.imfFixdate() ?? rfc850.rfc850() ?? asctime.asctime()
    }

    /// A cursor over the field's bytes that reads the grammar's pieces and gives up (`nil`) at the first mismatch.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        /// `Sun, 06 Nov 1994 08:49:37 GMT`
        mutating func imfFixdate() -> Date? {
            guard name(in: shortDays) != nil, byte(0x2C), byte(0x20), let day = digits(2), byte(0x20),
                let month = month(), byte(0x20), let year = digits(4), byte(0x20), let time = time(), byte(0x20),
                gmt(), atEnd
            else { return nil }
            return HTTPDate.date(year: year, month: month, day: day, time: time)
        }

        /// `Sunday, 06-Nov-94 08:49:37 GMT`; a two-digit year is taken within 50 years of 2000 (RFC 9110 §5.6.7).
        mutating func rfc850() -> Date? {
            guard name(in: longDays) != nil, byte(0x2C), byte(0x20), let day = digits(2), byte(0x2D),
                let month = month(), byte(0x2D), let shortYear = digits(2), byte(0x20), let time = time(),
                byte(0x20), gmt(), atEnd
            else { return nil }
            let year = shortYear < 70 ? 2_000 + shortYear : 1_900 + shortYear
            return HTTPDate.date(year: year, month: month, day: day, time: time)
        }

        /// `Sun Nov  6 08:49:37 1994`
        mutating func asctime() -> Date? {
            guard name(in: shortDays) != nil, byte(0x20), let month = month(), byte(0x20) else { return nil }
            let day: Int
            if byte(0x20) {
                guard let single = digits(1) else { return nil }
                day = single
            } else {
                guard let double = digits(2) else { return nil }
                day = double
            }
            guard byte(0x20), let time = time(), byte(0x20), let year = digits(4), atEnd else { return nil }
            return HTTPDate.date(year: year, month: month, day: day, time: time)
        }

        var atEnd: Bool { index == bytes.count }

        mutating func byte(_ expected: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == expected else { return false }
            index += 1
            return true
        }

        /// Exactly `count` ASCII digits.
        mutating func digits(_ count: Int) -> Int? {
            guard bytes.count - index >= count else { return nil }
            var value = 0
            for offset in 0..<count {
                let digit = bytes[index + offset] &- 0x30
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            index += count
            return value
        }

        /// One of `names`, without case; its position.
        mutating func name(in names: [[UInt8]]) -> Int? {
            for (position, name) in names.enumerated() where bytes.count - index >= name.count {
                var matches = true
                for offset in 0..<name.count where bytes[index + offset] | 0x20 != name[offset] {
                    matches = false
                    break
                }
                if matches {
                    index += name.count
                    return position
                }
            }
            return nil
        }

        mutating func month() -> Int? { name(in: HTTPDate.months).map { $0 + 1 } }

        mutating func gmt() -> Bool { name(in: [Array("gmt".utf8)]) != nil }

        /// `HH:MM:SS`, two digits each.
        mutating func time() -> (hour: Int, minute: Int, second: Int)? {
            guard let hour = digits(2), byte(0x3A), let minute = digits(2), byte(0x3A), let second = digits(2)
            else { return nil }
            return (hour, minute, second)
        }
    }

    private static func date(year: Int, month: Int, day: Int, time: (hour: Int, minute: Int, second: Int)) -> Date? {
        guard (1...31).contains(day), (0...23).contains(time.hour), (0...59).contains(time.minute),
            (0...60).contains(time.second)
        else { return nil }
        // Four digits at most: the arithmetic below stays far inside Int whatever the header said.
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + time.hour * 3_600 + time.minute * 60 + time.second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
