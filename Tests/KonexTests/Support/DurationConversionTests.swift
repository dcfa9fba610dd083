import Foundation
import Testing

@testable import Konex

/// The package's one set of `Duration` conversions: absurd numbers in, no trap; huge durations out, no overflow.
@Suite struct DurationConversionTests {
    @Test func secondsFromAPeerAreClampedNeverTrapped() {
        #expect(Duration(clampedSeconds: 1.5) == .milliseconds(1_500))
        #expect(Duration(clampedSeconds: -3) == .zero)
        #expect(Duration(clampedSeconds: .nan) == .zero)
        #expect(Duration(clampedSeconds: .infinity) == .seconds(Int64(Duration.longestWait)))
        #expect(Duration(clampedSeconds: 1e300, atMost: 86_400) == .seconds(86_400))
    }

    @Test func nanosecondsSaturateBothWays() {
        #expect(Duration.milliseconds(1_500).nanoseconds == 1_500_000_000)
        #expect(Duration.seconds(Int64.max).nanoseconds == .max)
        #expect(Duration.seconds(Int64.min).nanoseconds == .min)
        #expect(Duration.seconds(-2).nanoseconds == -2_000_000_000)
    }

    @Test func secondsKeepTheFraction() {
        #expect(Duration.milliseconds(250).seconds == 0.25)
        #expect(Duration.seconds(-1).seconds == -1)
    }
}
