import Foundation
import Konex
import KonexTesting
import Testing

@Suite struct RequestMatcherTests {
    @Test(arguments: [
        ("/users/{id}", "/users/42", true),
        ("/users/{id}", "/users/", false),
        ("/users/{id}", "/users/42/posts", false),
        ("/users/{id}/posts/{post}", "/users/1/posts/2", true),
        ("/users", "/users", true),
        ("/users", "/users/", false),
    ])
    func pathTemplates(pattern: String, path: String, matches: Bool) {
        #expect(RequestMatcher.get(pattern).matches(request(url: "https://x.test\(path)")) == matches)
    }

    @Test func methodMustMatch() {
        let matcher = RequestMatcher.post("/a")
        #expect(!matcher.matches(request(url: "https://x.test/a")))
        #expect(matcher.mismatches(request(url: "https://x.test/a")) == ["method: expected POST, got GET"])
        #expect(RequestMatcher.any("/a").matches(request("PATCH", url: "https://x.test/a")))
    }

    @Test func querySubsetIsOrderInsensitive() {
        let matcher = RequestMatcher.get("/s").query(["b": "2", "a": "1"])
        #expect(matcher.matches(request(url: "https://x.test/s?b=2&c=3&a=1")))
        #expect(matcher.mismatches(request(url: "https://x.test/s?a=1")) == ["query item \"b\" is missing"])
    }

    @Test func exactQueryRejectsExtras() {
        let matcher = RequestMatcher.get("/s").query(["a": "1"], exact: true)
        #expect(matcher.matches(request(url: "https://x.test/s?a=1")))
        #expect(matcher.mismatches(request(url: "https://x.test/s?a=1&z=9")) == ["unexpected query item \"z\""])
    }

    @Test func queryValuesArePercentDecoded() {
        #expect(RequestMatcher.get("/s").query(["q": "a b&c"]).matches(request(url: "https://x.test/s?q=a%20b%26c")))
        #expect(
            RequestMatcher.get("/s").queryItem(named: "token").matches(request(url: "https://x.test/s?token=anything")))
    }

    @Test func headersAreCaseInsensitiveByName() {
        let matcher = RequestMatcher.get("/h").header("accept", "application/json")
        #expect(matcher.matches(request(url: "https://x.test/h", headers: ["Accept": "application/json"])))
        #expect(
            matcher.mismatches(request(url: "https://x.test/h")) == [
                "header accept: expected \"application/json\", got none"
            ])
    }

    @Test func bodyBytesAndSemanticJSON() {
        let bytes = RequestMatcher.post("/b").body(Data("abc".utf8))
        #expect(bytes.matches(request("POST", url: "https://x.test/b", body: Data("abc".utf8))))
        #expect(!bytes.matches(request("POST", url: "https://x.test/b", body: Data("abd".utf8))))
        let json = RequestMatcher.post("/b").body(json: ["a": 1, "b": ["x", "y"]])
        #expect(json.matches(request("POST", url: "https://x.test/b", body: Data(#"{ "b": ["x","y"], "a": 1 }"#.utf8))))
        #expect(!json.matches(request("POST", url: "https://x.test/b", body: Data(#"{"a": 2, "b": ["x","y"]}"#.utf8))))
        let encoded = RequestMatcher.post("/b").body(encoding: Post(id: 1, title: "t"))
        #expect(encoded.matches(request("POST", url: "https://x.test/b", body: Data(#"{"title":"t","id":1}"#.utf8))))
    }

    @Test func closurePredicatesAreNamedInDiagnostics() {
        let matcher = RequestMatcher.anything.matching("has a trace id") {
            $0.value(forHTTPHeaderField: "X-Trace") != nil
        }
        #expect(matcher.mismatches(request(url: "https://x.test/")) == ["condition \"has a trace id\" is false"])
    }
}
