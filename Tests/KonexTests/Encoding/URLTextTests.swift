import Foundation
import Testing

@testable import Konex

/// Konex encodes request paths itself, so `URL(string:)` only sees valid RFC 3986 text on every Foundation version.
@Suite struct URLTextTests {
    @Test(arguments: [
        ("posts/1", "posts/1"),  // valid text is returned untouched
        ("a b", "a%20b"),
        ("a|b", "a%7Cb"),
        ("café/日本", "caf%C3%A9/%E6%97%A5%E6%9C%AC"),
        ("things:search@v1/$x;y=1,z(*)!'+&~", "things:search@v1/$x;y=1,z(*)!'+&~"),  // sub-delims, ":" and "@" stay
        ("a%2Fb", "a%2Fb"),  // already encoded
        ("100%", "100%25"),
        ("a%zz", "a%25zz"),
        ("a\"<>\\^`{}b", "a%22%3C%3E%5C%5E%60%7B%7Db"),
        ("[x]", "%5Bx%5D"),
        ("search?q=a b&tag=é", "search?q=a%20b&tag=%C3%A9"),
        ("p?next=/a?b", "p?next=/a?b"),  // "/" and "?" are allowed in a query
        ("p?a#frag ment", "p?a#frag%20ment"),
        ("p#a#b", "p#a%23b"),
        ("https://h.test:8080/a b?c d", "https://h.test:8080/a%20b?c%20d"),
        ("https://user@h.test", "https://user@h.test"),
    ])
    func encodesWhatRFC3986DoesNotAllow(text: String, expected: String) {
        #expect(String(URLText.encoded(text[...])) == expected)
    }

    @Test(arguments: ["a b", "a|b", "é", "100%", "[x]", "x?q=a b"])
    func requestPathsBecomeTheSameURLWhateverFoundationAccepts(path: String) throws {
        let url = try DataRequest.resolve(path, against: URL(string: "https://api.test/v1")!, method: .get)
        // What Foundation returns for already-valid text does not depend on its version.
        #expect(url.absoluteString == "https://api.test/v1/" + String(URLText.encoded(path[...])))
        #expect(URL(string: url.absoluteString) == url)
    }
}
