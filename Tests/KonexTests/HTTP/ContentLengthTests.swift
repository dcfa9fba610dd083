import Testing

@testable import Konex

/// `Content-Length` as RFC 9110 §8.6 and the Fetch standard's "extract a length" read it, on what a hostile or broken
/// server sends: one length, or the same length repeated; anything else is never read by its leading digits.
@Suite struct ContentLengthTests {
    @Test(arguments: [
        ("0", Int64(0)), ("42", 42), (" 42\t", 42), ("42, 42", 42), ("42,42,\t42 ", 42), ("007", 7),
        ("999999999999999999", 999_999_999_999_999_999),
    ])
    func aLengthOrTheSameLengthRepeated(field: String, length: Int64) {
        #expect(ContentLength(field) == .length(length))
    }

    @Test(arguments: ["10, 4", "4,10", "42, 042, 43"])
    func differentLengthsConflict(field: String) {
        #expect(ContentLength(field) == .conflicting)
    }

    @Test(arguments: [
        "", " ", ",", "30,", ",30", "30, , 30", "30s", "0x20", "+30", "-1", "3 0", "1e3", "３０", "30\r", "30\n",
        "9999999999999999999", "99999999999999999999999999999999", "30;", "\"30\"",
    ])
    func anythingElseIsNotALength(field: String) {
        #expect(ContentLength(field) == .invalid)
    }
}
