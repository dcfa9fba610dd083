import Foundation

/// HTTP dates (RFC 9110 §5.6.7): IMF-fixdate, and the obsolete RFC 850 and asctime forms recipients must accept.
/// Parsed by hand: no shared DateFormatter to guard, and nothing locale-dependent.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The date, or `nil` for anything that is not one of the three forms.
    static func parse(_ text: String) -> Date? {
        var fields = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        // Drop the day name ("Sun", "Sunday"): it carries nothing the date does not.
        if let first = fields.first, Int(first) == nil, months.firstIndex(of: first.lowercased()) == nil {
            fields.removeFirst()
        }
        let day: Int?
        let month: Int?
        let year: Int?
        let time: String
        if fields.count == 3, fields[0].contains("-") {
            // RFC 850: 06-Nov-94 08:49:37 GMT
            let parts = fields[0].split(separator: "-").map(String.init)
            guard parts.count == 3, fields[2] == "GMT" else { return nil }
            day = Int(parts[0])
            month = monthIndex(parts[1])
            year = Int(parts[2]).map { $0 < 100 ? ($0 < 70 ? 2_000 + $0 : 1_900 + $0) : $0 }
            time = fields[1]
        } else if fields.count == 5, fields[4] == "GMT" {
            // IMF-fixdate: 06 Nov 1994 08:49:37 GMT
            day = Int(fields[0])
            month = monthIndex(fields[1])
            year = Int(fields[2])
            time = fields[3]
        } else if fields.count == 4 {
            // asctime: Nov  6 08:49:37 1994
            month = monthIndex(fields[0])
            day = Int(fields[1])
            time = fields[2]
            year = Int(fields[3])
        } else {
            return nil
        }
        let clock = time.split(separator: ":").compactMap { Int($0) }
        guard let day, let month, let year, clock.count == 3, (1...31).contains(day), (0...23).contains(clock[0]),
            (0...59).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + clock[0] * 3_600 + clock[1] * 60 + clock[2]
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func monthIndex(_ name: String) -> Int? {
        months.firstIndex(of: name.lowercased()).map { $0 + 1 }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
