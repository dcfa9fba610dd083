/// A JSON number written as a plain integer (an optional minus and at most 20 digits, no fraction or exponent) whose
/// magnitude fits in 64 bits: what the tape reads itself. Anything else is left to `JSONDecoder`'s rules.
struct PlainInteger {
    let negative: Bool
    let magnitude: UInt64

    /// The integer `text` writes, or `nil` when it is not a plain one.
    init?(_ text: UnsafeBufferPointer<UInt8>) {
        let negative = text.first == UInt8(ascii: "-")
        var index = negative ? 1 : 0
        guard index < text.count, text.count - index <= 20 else { return nil }
        var magnitude: UInt64 = 0
        while index < text.count {
            let digit = text[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times10, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(UInt64(digit))
            guard !overflow, !carry else { return nil }
            magnitude = sum
            index += 1
        }
        self.negative = negative
        self.magnitude = magnitude
    }

    /// Whether an integer type of `bitWidth` bits holds this value exactly; `-0` never fits (`JSONDecoder` reads it
    /// by its own rules).
    func fits(bitWidth: Int, signed: Bool) -> Bool {
        guard negative else {
            let valueBits = signed ? bitWidth - 1 : bitWidth
            return valueBits >= 64 || magnitude < 1 << valueBits
        }
        // Beyond 64 bits a magnitude above 2^63 is possible but not read here (the value is made from an `Int64`).
        return signed && magnitude != 0 && magnitude <= 1 << (Swift.min(bitWidth, 64) - 1)
    }
}
