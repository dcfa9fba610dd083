import Foundation
import KonexTesting
import Testing

@testable import Konex

@Suite struct URLEncodingTests {
    static let cases: [(Parameters, String)] = [
        (["q": "a b"], "q=a%20b"),
        (["q": "a&b=c+d"], "q=a%26b%3Dc%2Bd"),
        (["q": "café ☕"], "q=caf%C3%A9%20%E2%98%95"),
        (["page": 2, "q": "swift"], "page=2&q=swift"),
        (["ratio": 0.5, "whole": 2.0], "ratio=0.5&whole=2"),
        (["on": true, "off": false], "off=false&on=true"),
        (["none": nil], "none="),
        (["filter": ["open": true, "tag": "x"]], "filter%5Bopen%5D=true&filter%5Btag%5D=x"),
        (["ids": [1, 2]], "ids=1&ids=2"),
    ]

    @Test(arguments: cases)
    func defaultEncoding(parameters: Parameters, expected: String) {
        #expect(URLEncoding.default.percentEncodedQuery(parameters) == expected)
    }

    @Test(arguments: [
        (URLEncoding.ArrayEncoding.repeatedKey, "ids=1&ids=2"),
        (.brackets, "ids%5B%5D=1&ids%5B%5D=2"),
        (.indexed, "ids%5B0%5D=1&ids%5B1%5D=2"),
        (.commaSeparated, "ids=1%2C2"),
    ])
    func arrayConventions(encoding: URLEncoding.ArrayEncoding, expected: String) {
        #expect(URLEncoding(arrayEncoding: encoding).percentEncodedQuery(["ids": [1, 2]]) == expected)
    }

    @Test func numericBooleans() {
        #expect(URLEncoding(boolEncoding: .numeric).percentEncodedQuery(["a": true, "b": false]) == "a=1&b=0")
    }

    @Test func getSendsParametersInQueryAndNoBody() async throws {
        struct Search: KonexRequest {
            let path = "/search"
            var parameters: Parameters? { ["q": "swift & more", "page": 2] }
        }
        let (client, mock) = makeClient {
            $0.stub(.get("/v1/search").query(["q": "swift & more", "page": "2"]), .status(204))
        }
        _ = try await client.request(Search()).response()
        let sent = try #require(mock.requests.first)
        #expect(sent.url?.absoluteString == "https://api.test/v1/search?page=2&q=swift%20%26%20more")
        #expect(sent.request.httpBody == nil)
    }

    @Test func postSendsParametersAsJSONBody() async throws {
        struct Create: KonexRequest {
            let path = "/posts"
            let method: HTTPMethod = .post
            var parameters: Parameters? { ["title": "Hello", "tags": ["a"]] }
        }
        let (client, mock) = makeClient {
            $0.stub(.post("/v1/posts").body(json: ["title": "Hello", "tags": ["a"]]), .status(201))
        }
        _ = try await client.request(Create()).validate().response()
        #expect(mock.requests.first?.header("Content-Type") == "application/json")
        #expect(mock.requests.first?.url?.query == nil)
    }

    @Test func deleteSendsParametersInQuery() async throws {
        struct Remove: KonexRequest {
            let path = "/posts/1"
            let method: HTTPMethod = .delete
            var parameters: Parameters? { ["soft": true] }
        }
        let (client, mock) = makeClient {
            $0.stub(.delete("/v1/posts/1").query(["soft": "true"], exact: true), .status(204))
        }
        _ = try await client.request(Remove()).validate().responseObject(of: Empty.self)
        #expect(mock.requestCount == 1)
    }
}

/// Item 11: a scheme exists only at the start, so a `://` later in the text never stops the encoding.
@Suite struct URLTextSchemeTests {
    @Test(arguments: [
        ("a b?next=https://x.y/", "a%20b?next=https://x.y/"),
        ("/search/a b?u=http://x", "/search/a%20b?u=http://x"),
        ("1http://x y", "1http://x%20y"),
        ("https://api.test/a b", "https://api.test/a%20b"),
        ("web+cal://host/a b", "web+cal://host/a%20b"),
    ])
    func onlyALeadingSchemeIsOne(text: String, expected: String) {
        #expect(String(URLText.encoded(Substring(text))) == expected)
    }
}
