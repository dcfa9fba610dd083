import Foundation

/// `startedDateTime` as tools write it: ISO 8601 with 1 to 9 fractional digits (Chrome 3, mitmproxy 6, Fiddler 7)
/// and `Z` or an offset. Internet Explorer 11 writes milliseconds without zero padding (`.59` is 59 ms).
enum LenientDate {
    static func parse(_ text: String, unpaddedMilliseconds: Bool = false) -> Date? {
        let bytes = Array(text.utf8)
        func digits(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for index in range {
                guard bytes[index] >= 0x30, bytes[index] <= 0x39 else { return nil }
                value = value * 10 + Int(bytes[index] - 0x30)
            }
            return value
        }
        guard bytes.count >= 19, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54 || bytes[10] == 0x20,
            bytes[13] == 0x3A, bytes[16] == 0x3A, let year = digits(0..<4), let month = digits(5..<7),
            let day = digits(8..<10), let hour = digits(11..<13), let minute = digits(14..<16),
            let second = digits(17..<19)
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == 0x2E {
            let start = index + 1
            index = start
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            // Digits past the ninth (nanoseconds) carry nothing a Date keeps, and would overflow the sum.
            let count = Swift.min(index - start, 9)
            guard index > start, let value = digits(start..<(start + count)) else { return nil }
            fraction =
                unpaddedMilliseconds && count < 3 ? Double(value) / 1_000 : Double(value) / pow(10, Double(count))
        }
        var offset = 0
        if index < bytes.count {
            switch bytes[index] {
            case 0x5A: index += 1
            case 0x2B, 0x2D:
                guard let hours = digits((index + 1)..<(index + 3)) else { return nil }
                var minutes = 0
                var next = index + 3
                if next < bytes.count, bytes[next] == 0x3A { next += 1 }
                if let value = digits(next..<(next + 2)) {
                    minutes = value
                    next += 2
                }
                offset = (hours * 3_600 + minutes * 60) * (bytes[index] == 0x2D ? -1 : 1)
                index = next
            default: return nil
            }
        }
        guard index == bytes.count else { return nil }
        var components = DateComponents()
        (components.year, components.month, components.day) = (year, month, day)
        (components.hour, components.minute, components.second) = (hour, minute, second)
        components.timeZone = TimeZone(secondsFromGMT: 0)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        guard let whole = calendar.date(from: components) else { return nil }
        return whole.addingTimeInterval(fraction - TimeInterval(offset))
    }

    /// The strict form Konex writes (recording, and rewriting what it read leniently): UTC, milliseconds, `Z`.
    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
