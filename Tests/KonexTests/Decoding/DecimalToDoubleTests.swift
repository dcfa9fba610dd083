import Foundation
import KonexTesting
import Testing

@testable import Konex

/// Numbers read straight from their bytes: bit for bit `strtod`'s answer (through `Double(String)`, as `JSONDecoder`
/// reads them), or no answer at all.
@Suite struct DecimalToDoubleTests {
    private static func read(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { DecimalToDouble.value(of: $0) }
    }

    private static func expectSameAsStrtod(_ text: String, seed: UInt64? = nil) {
        guard let value = read(text) else { return }
        let expected = Double(text)!
        #expect(
            value.bitPattern == expected.bitPattern,
            "\(text): \(value) where strtod reads \(expected)\(seed.map { " (seed \($0))" } ?? "")")
    }

    @Test(arguments: [
        "0.1", "0.2", "0.3", "-65.613616999999977", "43.420273000000009", "1.5", "2.5", "1e19", "1e-19",
        "9007199254740993", "9007199254740995", "9007199254740993.0", "18014398509481987", "123456789012345678e1",
        "9999999999999999999", "9999999999999999999e19", "1.0000000000000001", "1.0000000000000002",
        "0.000000000000000001", "4503599627370496.5", "4503599627370497.5", "3.141592653589793",
        "2.718281828459045", "1e-5", "1E+5", "12.5e-3", "-0.5", "1234567890123456789e-19",
    ])
    func knownHardCasesMatchStrtod(text: String) {
        #expect(Self.read(text) != nil, "\(text) should be read here")
        Self.expectSameAsStrtod(text)
    }

    @Test(arguments: [
        "0", "-0", "0.0", "0e5", "1e20", "1e-20", "12345678901234567890", "1.7976931348623157e308",
        "4.9406564584124654e-324", "1e400", "0.00000000000000000000001",
    ])
    func numbersItCannotPromiseAreLeftToStrtod(text: String) {
        #expect(Self.read(text) == nil)
    }

    @Test func randomDecimalsMatchStrtodBitForBit() {
        let seed =
            ProcessInfo.processInfo.environment["KONEX_PROPERTY_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 1...UInt64.max)
        var random = SeededGenerator(seed: seed)
        var read = 0
        for _ in 0..<200_000 {
            let digits = Int.random(in: 1...19, using: &random)
            var text = (0..<digits).map { _ in String(Int.random(in: 0...9, using: &random)) }.joined()
            if text.first == "0" { text = "1" + text.dropFirst() }
            // A point somewhere inside (or none), and sometimes an exponent.
            let point = Int.random(in: 0...digits, using: &random)
            if point < digits { text.insert(".", at: text.index(text.startIndex, offsetBy: max(point, 1))) }
            if Bool.random(using: &random) { text += "e\(Int.random(in: -25...25, using: &random))" }
            if Bool.random(using: &random) { text = "-" + text }
            if Self.read(text) != nil { read += 1 }
            Self.expectSameAsStrtod(text, seed: seed)
        }
        #expect(read > 100_000, "seed \(seed): most of these are within reach")
    }

    @Test func halfwayNumbersRoundToEven() {
        // 2^53 + 1 and 2^53 + 3 lie halfway between two doubles: the even one wins, as strtod rounds.
        #expect(Self.read("9007199254740993") == 9_007_199_254_740_992)
        #expect(Self.read("9007199254740995") == 9_007_199_254_740_996)
        // Just above halfway: up.
        #expect(
            Self.read("9007199254740993.0000001") == nil
                || Self.read("9007199254740993.0000001") == 9_007_199_254_740_994)
    }
}
