import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// The decisions documented on `JSONScanner`, one row each.
@Suite struct JSONScannerTests {
    private func scan(_ text: String, _ path: String) throws -> String {
        try scan(Data(text.utf8), path)
    }

    private func scan(_ data: Data, _ path: String) throws -> String {
        String(decoding: data[try JSONScanner.range(of: JSONKeyPath(path), in: data)], as: UTF8.self)
    }

    @Test(arguments: [
        (#"{"a":1,"a":2}"#, "a", "1"),  // duplicate keys: the first, as JSONDecoder reads them
        (#"{"a":{"b":1},"a":{"b":2}}"#, "a.b", "1"),
        (#"{"a":-0}"#, "a", "-0"),
        (#"{"a":1.7976931348623157e308}"#, "a", "1.7976931348623157e308"),
        (#"{"a":1e-400}"#, "a", "1e-400"),  // underflows to 0, as JSONSerialization reads it
        (#"{"a":123456789012345678901234567890}"#, "a", "123456789012345678901234567890"),
        ("\u{FEFF}{\"a\":1}", "a", "1"),  // one UTF-8 byte order mark
        ("{\"a\":1} \n\t\r", "a", "1"),  // trailing whitespace
        (#"{"a":"\ud83d\ude00"}"#, "a", #""\ud83d\ude00""#),
        (#"{"a\u0062":1}"#, "ab", "1"),  // an escaped key
        (#"{"é":1}"#, "é", "1"),
        ("{\"e\u{301}\":1}", "é", "1"),  // canonically equivalent, as Swift compares keys
        (#"[[1,2],[3,[4,5]]]"#, "1.1.0", "4"),
        (#"{"a":"\u0000"}"#, "a", #""\u0000""#),
    ])
    func accepts(document: String, path: String, value: String) throws {
        #expect(try scan(document, path) == value)
    }

    @Test(arguments: [
        (#"{"next":""x","data":{"a":1}}"#, "data", "expected ',' or '}'"),  // the reported case
        (#"{"a":1} x"#, "a", "unexpected 'x' after the JSON value"),
        (#"{"a":1}{"#, "a", "unexpected an object after the JSON value"),
        (#"{"a":1,"b":[1,]}"#, "a", "a trailing comma before ']'"),
        (#"{"a":1,}"#, "a", "a trailing comma before '}'"),
        (#"{"a":[1,2,]}"#, "a.0", "a trailing comma before ']'"),
        (#"{"a":01}"#, "a", "a number with a leading zero"),
        (#"{"a":1.}"#, "a", "expected a digit after '.'"),
        (#"{"a":.5}"#, "a", "expected a value, found '.'"),
        (#"{"a":+1}"#, "a", "expected a value, found '+'"),
        (#"{"a":1e400}"#, "a", "the number 1e400 is beyond the range of Double"),
        (#"{"b":-1E+400,"a":1}"#, "a", "the number -1E+400 is beyond the range of Double"),
        (#"{"a":"\ud800"}"#, "a", "a high surrogate \\ud800 without a low one"),
        (#"{"a":"\udc00"}"#, "a", "a low surrogate \\udc00 without a high one"),
        (#"{"a":"\ud800\u0041"}"#, "a", "without a low one"),
        (#"{"a":"\x"}"#, "a", "invalid escape '\\x'"),
        (#"{"a":"\u12"}"#, "a", "four hex digits"),
        ("{\"a\":\"\u{1}\"}", "a", "unescaped control character 0x1"),
        (#"{"a":tru}"#, "a", "expected true"),
        (#"{"a":nul,"b":1}"#, "b", "expected null"),
        (#"{"a":1"#, "a", "expected ',' or '}' after an object member, found the end of the data"),
        (#"{"a":"abc"#, "a", "unterminated string"),
        (#"{"a" 1}"#, "a", "expected ':'"),
        (#"{a:1}"#, "a", "expected a member name"),
        ("", "a", "unexpected end of data"),
        ("\u{FEFF}", "a", "unexpected end of data"),
    ])
    func refuses(document: String, path: String, reason: String) async throws {
        let failure = try await requireThrows(JSONScanner.Failure.self) { try scan(document, path) }
        #expect(failure.isSyntaxError)
        #expect(failure.description.contains(reason), "\(failure)")
    }

    @Test(
        arguments: [
            [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D],  // 0xFF is never UTF-8
            [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x22, 0x7D],  // a cut two-byte sequence
            [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x7D],  // an encoded surrogate
            [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC0, 0xAF, 0x22, 0x7D],  // an overlong '/'
            [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xF4, 0x90, 0x80, 0x80, 0x22, 0x7D],  // past U+10FFFF
            [0xFE, 0xFF, 0x00, 0x7B, 0x00, 0x7D],  // UTF-16: Konex reads UTF-8 JSON only
        ] as [[UInt8]])
    func refusesWhatIsNotUTF8(bytes: [UInt8]) async throws {
        let failure = try await requireThrows(JSONScanner.Failure.self) { try scan(Data(bytes), "a") }
        #expect(failure.isSyntaxError)
    }

    @Test func nestingUpToFoundationsLimitAndNoDeeper() async throws {
        func nested(_ depth: Int) -> String {
            "{\"a\":" + String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1) + "}"
        }
        #expect(try scan(nested(JSONScanner.maximumDepth), "a").count == 2 * (JSONScanner.maximumDepth - 1))
        let failure = try await requireThrows(JSONScanner.Failure.self) {
            try scan(nested(JSONScanner.maximumDepth + 1), "a")
        }
        #expect(failure.description.contains("more than 512 nested"))
        // Far deeper than any stack would survive if the skim recursed.
        #expect(throws: JSONScanner.Failure.self) { try scan(nested(200_000), "a") }
    }

    @Test func pathFailuresAreNotSyntaxErrors() async throws {
        let failure = try await requireThrows(JSONScanner.Failure.self) { try scan(#"{"a":{"b":1}}"#, "a.c") }
        #expect(!failure.isSyntaxError)
        #expect(failure.description == "key not found: \"c\" at a")
    }

    @Test func aBrokenDocumentIsADecodingErrorNamingTheByteAndThePath() async throws {
        let mock = MockTransport()
        mock.stub(.get("/x"), .string(#"{"next":""x","data":{"id":1}}"#))
        let client = KonexClient.mocked(mock, baseURL: URL(string: "https://api.test")!)
        let error = try await requireThrows(KonexError.self) {
            try await client.request("x").responseObject(of: [String: Int].self, atKeyPath: "data")
        }
        #expect(error.stage == .decoding)
        #expect(
            error.message
                == "malformed JSON at byte 10: expected ',' or '}' after an object member, found 'x' (reading the key path data)"
        )
    }
}
