/// A JSON number's text read straight to the nearest `Double`, in integer arithmetic, for the numbers it can round
/// exactly: at most 19 significant digits and a decimal exponent within ±19 of them. Every other number (more digits,
/// a far exponent, a zero) is left to `strtod` through `Double(String)`, `JSONDecoder`'s own parse.
///
/// Why it is exact: the decimal is `m × 10^e` with `m < 2^64`. For `e ≥ 0` the product is formed whole in 128 bits;
/// for `e < 0`, `m × 2^s` is divided by `10^-e` (below 2^64) so that the quotient has 64 bits, and the remainder
/// says whether anything was cut off. Either way the 64 top bits and a sticky bit are rounded once, to nearest with
/// ties to even, as IEEE 754 and `strtod` round: the same `Double`, without building a `String` (about 2,000
/// instructions a number, 40 % of canada.json's decode).
enum DecimalToDouble {
    /// `10^0` … `10^19`, every power of ten a `UInt64` holds.
    private static let powersOfTen: [UInt64] = {
        var powers: [UInt64] = [1]
        for _ in 1...19 { powers.append(powers.last! &* 10) }
        return powers
    }()

    /// The `Double` nearest to the number `text` (JSON number grammar, checked by the scanner), or `nil` when this
    /// reading cannot promise it.
    static func value(of text: UnsafeBufferPointer<UInt8>) -> Double? {
        let count = text.count
        var index = 0
        let negative = text[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        // The integer part: "0", or digits from a non-zero one (JSON allows no other leading zero).
        var mantissa: UInt64 = 0
        let integerDigits = appendDigits(of: text, from: &index, to: &mantissa)
        var digits = mantissa == 0 ? 0 : integerDigits  // significant digits so far (the mantissa wraps past 19)
        var exponent = 0
        if index < count, text[index] == UInt8(ascii: ".") {
            index += 1
            if mantissa == 0 {
                // Zeros after the point and before the first other digit only move the point.
                while index < count, text[index] == UInt8(ascii: "0") {
                    exponent -= 1
                    index += 1
                }
            }
            let fractionDigits = appendDigits(of: text, from: &index, to: &mantissa)
            digits += fractionDigits
            exponent -= fractionDigits
        }
        guard digits <= 19 else { return nil }
        if index < count {  // `e` or `E`, then an optional sign and digits
            index += 1
            var exponentNegative = false
            if text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                exponentNegative = text[index] == UInt8(ascii: "-")
                index += 1
            }
            var written = 0
            while index < count {
                guard written < 1_000 else { return nil }
                written = written * 10 + Int(text[index] &- UInt8(ascii: "0"))
                index += 1
            }
            exponent += exponentNegative ? -written : written
        }
        // A zero is `JSONDecoder`'s to judge (it refuses some spellings of it).
        guard mantissa != 0, exponent >= -19, exponent <= 19 else { return nil }
        let magnitude = exponent >= 0 ? scaledUp(mantissa, by: exponent) : scaledDown(mantissa, by: -exponent)
        return negative ? -magnitude : magnitude
    }

    /// Appends the run of decimal digits at `index` to `mantissa` (wrapping past 19 digits: the caller counts them),
    /// moving `index` past them; returns how many there were.
    @inline(__always) private static func appendDigits(
        of text: UnsafeBufferPointer<UInt8>, from index: inout Int, to mantissa: inout UInt64
    ) -> Int {
        let start = index
        while index < text.count {
            let digit = text[index] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            mantissa = mantissa &* 10 &+ UInt64(digit)
            index += 1
        }
        return index - start
    }

    /// `mantissa × 10^exponent`, the product whole in 128 bits.
    private static func scaledUp(_ mantissa: UInt64, by exponent: Int) -> Double {
        let (high, low) = mantissa.multipliedFullWidth(by: powersOfTen[exponent])
        if high == 0 {
            if low <= 1 << 53 { return Double(low) }
            let shift = low.leadingZeroBitCount
            return rounded(low << shift, sticky: false, scale: -shift)
        }
        let shift = high.leadingZeroBitCount
        let top = shift == 0 ? high : high << shift | low >> (64 - shift)
        return rounded(top, sticky: low << shift != 0, scale: 64 - shift)
    }

    /// `mantissa ÷ 10^exponent`: `mantissa × 2^s` divided so the quotient has exactly 64 bits.
    private static func scaledDown(_ mantissa: UInt64, by exponent: Int) -> Double {
        let divisor = powersOfTen[exponent]
        let mantissaBits = 64 - mantissa.leadingZeroBitCount
        let divisorBits = 64 - divisor.leadingZeroBitCount
        // The quotient lies between 2^63 and 2^65 with this shift; one less when it reached 2^64.
        var shift = 64 + divisorBits - mantissaBits
        var numerator = shifted(mantissa, by: shift)
        if numerator.high >= divisor {
            shift -= 1
            numerator = shifted(mantissa, by: shift)
        }
        let (quotient, remainder) = divisor.dividingFullWidth(numerator)
        return rounded(quotient, sticky: remainder != 0, scale: -shift)
    }

    /// `value << shift` in 128 bits, for a shift of 1 to 127.
    private static func shifted(_ value: UInt64, by shift: Int) -> (high: UInt64, low: UInt64) {
        if shift >= 64 { return (value << (shift - 64), 0) }
        return (value >> (64 - shift), value << shift)
    }

    /// `(top + something below it) × 2^scale`, with `top`'s highest bit set and `sticky` saying whether that
    /// something is more than zero: rounded to 53 bits, to nearest, ties to even.
    private static func rounded(_ top: UInt64, sticky: Bool, scale: Int) -> Double {
        var significand = top >> 11
        let cut = top & 0x7FF
        if cut > 0x400 || (cut == 0x400 && (sticky || significand & 1 == 1)) { significand += 1 }
        // `significand` is at most 2^53, exactly a `Double`; the scaling by a power of two is exact.
        return Double(sign: .plus, exponent: scale + 11, significand: Double(significand))
    }
}
