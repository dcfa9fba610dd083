#if AsyncHTTPClient
    import Foundation
    import Konex
    import NIOHTTP1
    import Testing

    @testable import KonexAsyncHTTPClient

    /// NIO's response head as Konex's, with the `Content-Length` found on the way whatever its case.
    @Suite struct HeadConversionTests {
        static let url = URL(string: "http://127.0.0.1/small")!

        static func announced(_ fields: [(String, String)]) -> Int64? {
            var length: Int64?
            _ = AsyncHTTPClientTransport.head(
                status: .ok, headers: NIOHTTP1.HTTPHeaders(fields), url: url, contentLength: &length)
            return length
        }

        @Test(arguments: ["Content-Length", "content-length", "CONTENT-LENGTH", "content-Length", "Content-length"])
        func contentLengthIsFoundInAnyCase(name: String) {
            #expect(Self.announced([("Date", "x"), (name, "42")]) == 42)
        }

        @Test(arguments: ["Content_Length", "Content-Lengths", "Content-Lengt", "Xontent-Length", "Content Length"])
        func aNameThatOnlyLooksLikeItIsNotContentLength(name: String) {
            #expect(Self.announced([(name, "42")]) == nil)
        }

        @Test func theFirstOfRepeatedLengthsIsTheOneAnnounced() {
            #expect(Self.announced([("content-length", "7"), ("Content-Length", "9")]) == 7)
        }

        @Test func everyFieldIsKeptWithItsCaseAndRepeats() {
            let head = AsyncHTTPClientTransport.head(
                status: .ok,
                headers: NIOHTTP1.HTTPHeaders([("Set-Cookie", "a=1"), ("set-cookie", "b=2"), ("CONTENT-LENGTH", "3")]),
                url: Self.url)
            #expect(head.statusCode == 200)
            #expect(head.headerFields.values(for: "Set-Cookie") == ["a=1", "b=2"])
            #expect(head.headerFields.fields.map(\.name) == ["Set-Cookie", "set-cookie", "CONTENT-LENGTH"])
        }
    }
#endif
