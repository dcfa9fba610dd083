import Foundation
import Testing

@testable import Konex

/// Every integer width at and just past its bounds: the tape reads exactly what the type holds, as `JSONDecoder`
/// does, and leaves the rest to it.
@Suite struct JSONTapeIntegerTests {
    struct Field<Value: Decodable & Equatable & Sendable>: Decodable, Equatable { var value: Value }

    /// A number in a keyed container (generic at run time, as in any model).
    /// - Parameters:
    ///   - past: The numbers one past each end, as text (no wider integer type is available on every platform).
    private static func check<Value: FixedWidthInteger & Decodable & Sendable>(
        _ type: Value.Type, past: (above: String, below: String)
    ) throws {
        let inside = [Value.min, Value.min + 1, Value.isSigned ? -1 : 0, 0, 1, Value.max - 1, Value.max]
        for number in inside {
            let text = #"{"value":\#(number)}"#
            let read = try Data(text.utf8).withUnsafeBytes {
                try JSONTape.decodeOnTape(Field<Value>.self, from: $0.bindMemory(to: UInt8.self))
            }
            #expect(read.value == number, "\(Value.self): \(text)")
            #expect(read == (try JSONDecoder().decode(Field<Value>.self, from: Data(text.utf8))))
        }
        // Past either end, and -0, the tape declines: JSONDecoder decides (it refuses the first two).
        for text in [past.above, past.below, "-0"] {
            #expect(throws: TapeDeclined.self, "\(Value.self): \(text)") {
                try Data(#"{"value":\#(text)}"#.utf8).withUnsafeBytes {
                    try JSONTape.decodeOnTape(Field<Value>.self, from: $0.bindMemory(to: UInt8.self))
                }
            }
        }
    }

    @Test func eachWidthReadsItsWholeRangeAndDeclinesPastIt() throws {
        try Self.check(Int8.self, past: ("128", "-129"))
        try Self.check(Int16.self, past: ("32768", "-32769"))
        try Self.check(Int32.self, past: ("2147483648", "-2147483649"))
        try Self.check(Int64.self, past: ("9223372036854775808", "-9223372036854775809"))
        try Self.check(Int.self, past: ("9223372036854775808", "-9223372036854775809"))
        try Self.check(UInt8.self, past: ("256", "-1"))
        try Self.check(UInt16.self, past: ("65536", "-1"))
        try Self.check(UInt32.self, past: ("4294967296", "-1"))
        try Self.check(UInt64.self, past: ("18446744073709551616", "-1"))
        try Self.check(UInt.self, past: ("18446744073709551616", "-1"))
    }

    /// A double written as an integer is read exactly up to 2^53, and its sign kept (`-0` stays negative zero).
    @Test func integersReadAsDoublesKeepValueAndSign() throws {
        for text in ["0", "-0", "1", "-1", "9007199254740991", "-9007199254740992", "9007199254740993"] {
            let json = Data(#"{"value":\#(text)}"#.utf8)
            let read = try json.withUnsafeBytes {
                try JSONTape.decodeOnTape(Field<Double>.self, from: $0.bindMemory(to: UInt8.self))
            }
            let expected = try JSONDecoder().decode(Field<Double>.self, from: json)
            #expect(read.value.bitPattern == expected.value.bitPattern, "\(text)")
        }
    }
}
