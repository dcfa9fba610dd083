import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

@Suite struct HTTPHeadersTests {
    @Test(arguments: ["ETag", "etag", "ETAG", "eTaG"])
    func lookupIgnoresTheCaseOfTheName(name: String) {
        let headers: HTTPHeaders = ["etag": "\"v1\"", "Content-Type": "application/json"]
        #expect(headers[name] == "\"v1\"")
        #expect(headers["content-type"] == "application/json")
        #expect(headers["E-Tag"] == nil)
        #expect(headers["etagx"] == nil)
    }

    @Test func settingReplacesWhateverTheCaseAndNilRemoves() {
        var headers = HTTPHeaders([("X-Trace", "1")])
        headers["x-trace"] = "2"
        #expect(headers.count == 1)
        #expect(headers.fields.map(\.name) == ["x-trace"])
        #expect(headers["X-TRACE"] == "2")
        headers["X-Trace"] = nil
        #expect(headers.isEmpty)
    }

    @Test func equalityAndHashingIgnoreCaseAndOrder() {
        let a: HTTPHeaders = ["A": "1", "b": "2"]
        let b: HTTPHeaders = ["B": "2", "a": "1"]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != ["A": "1", "b": "3"])
        #expect(a.dictionary == ["A": "1", "b": "2"])
    }

    /// RFC 9110 §5.3: a field on several lines is one value, the lines joined with ", " in order. The dictionary
    /// every `[String: String]` API and the cache read loses no line and lets none win.
    @Test func theDictionaryCombinesRepeatedLinesInOrder() {
        let lines: [(name: String, value: String)] = [
            ("Cache-Control", "no-store"), ("Vary", "Foo"), ("cache-control", "max-age=3600"), ("Vary", "Bar"),
            ("Set-Cookie", "a=1; Path=/"), ("Set-Cookie", "b=2"), ("ETag", "\"x\""),
        ]
        let headers = HTTPHeaders(keepingRepeats: lines)
        let dictionary = headers.dictionary
        #expect(dictionary.count == 4)
        #expect(dictionary["Cache-Control"] == "no-store, max-age=3600")
        #expect(dictionary["Vary"] == "Foo, Bar")
        #expect(dictionary["ETag"] == "\"x\"")
        // Joined as Foundation joins it; each line is still there one by one.
        #expect(dictionary["Set-Cookie"] == "a=1; Path=/, b=2")
        #expect(headers.values(for: "set-cookie") == ["a=1; Path=/", "b=2"])
        #expect(headers.combinedValue(for: "CACHE-CONTROL") == "no-store, max-age=3600")
    }

    @Test func responsesAndErrorsExposeCaseInsensitiveHeaders() async throws {
        let mock = MockTransport()
        mock.stub(.get("/ok"), .string("x", headers: ["etag": "\"v2\"", "x-rate-limit": "10"]))
        mock.stub(.get("/limited"), .status(429, headers: ["retry-after": "3"]))
        let client = KonexClient.mocked(mock)
        let response = try await client.request("ok").response()
        #expect(response.headers["ETag"] == "\"v2\"")
        #expect(response.headers["X-Rate-Limit"] == "10")
        let error = try await requireThrows(KonexError.self) {
            try await client.request("limited").validate().response()
        }
        #expect(error.headers["Retry-After"] == "3")
    }
}

@Suite struct HTTPHeadersScaleTests {
    @Test func aHundredThousandFieldsAreReadInLinearTime() {
        // Through the subscript this was quadratic: 10¹⁰ comparisons, minutes for a hostile server's head.
        let many = (0..<100_000).map { ("X-Field-\($0)", "\($0)") } + [("x-field-7", "last")]
        let headers = HTTPHeaders(many)
        #expect(headers.count == 100_000)
        #expect(headers["X-FIELD-7"] == "last")
        #expect(headers == HTTPHeaders(many.reversed().reversed()))
    }
}
