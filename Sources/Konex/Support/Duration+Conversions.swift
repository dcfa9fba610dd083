import Foundation

// The one place a `Duration` turns into or out of a plain number, for every module of the package: numbers from a
// peer or a file never trap on the way in, and nothing overflows on the way out.
extension Duration {
    /// The duration in seconds (a `TimeInterval`, and how OpenTelemetry records durations).
    package var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Whole nanoseconds, saturating at `Int64.min` and `Int64.max` (NIO's deadlines take nanoseconds).
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (total, carried) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        return carried ? (whole < 0 ? .min : .max) : total
    }

    /// `seconds` as a duration: negative and NaN as zero, anything past `limit` (a hundred years unless given) as
    /// `limit`.
    /// - Parameters:
    ///   - seconds: A number of seconds from a peer, a file or a computation.
    ///   - limit: The longest duration it may give, in seconds.
    package init(clampedSeconds seconds: Double, atMost limit: Double = Self.longestWait) {
        let bounded = Swift.min(Swift.max(seconds.isNaN ? 0 : seconds, 0), limit)
        self = .microseconds(Int64((bounded * 1_000_000).rounded()))
    }

    /// A hundred years: longer than any wait a client means.
    package static let longestWait: Double = 100 * 365 * 86_400
}
