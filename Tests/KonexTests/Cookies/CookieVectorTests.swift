import Foundation
import TestSupport
import Testing

@testable import Konex

/// The cookie test vectors beside the repository (`../shared/cookie-tests`, SOURCES.md says where they are from):
/// the IETF httpstate working group's parser cases, and the public suffix list's own checks.
@Suite struct CookieVectorTests {
    struct ParserCase: Decodable, Sendable, CustomTestStringConvertible {
        let test: String
        let received: [String]
        let sentTo: String?
        let sent: [Pair]

        struct Pair: Decodable, Sendable, Equatable, CustomStringConvertible {
            let name: String
            let value: String
            var description: String { "\(name)=\(value)" }
        }

        enum CodingKeys: String, CodingKey {
            case test, received, sent
            case sentTo = "sent-to"
        }

        var testDescription: String { test }
    }

    /// Why Konex sends something else than a case expects, each difference named (issue 54). The cases were written
    /// for RFC 6265 in 2011; Konex follows RFC 6265bis, and today's date.
    enum Difference: String {
        /// RFC 6265bis §5.6 step 3: a line without `=`, or with nothing before it, sets a cookie named "" (RFC 6265
        /// ignored it), sent as its value alone (§5.8.3).
        case namelessCookie = "RFC 6265bis §5.6: a nameless cookie"
        /// SOURCES.md: the case's `Expires` (7 Aug 2019) has since passed, so the cookie is expired on arrival
        /// (RFC 6265bis §5.7) and is judged by today's date.
        case expiredSince = "its Expires date has passed since the case was written"
        /// RFC 6265bis §5.6 step 1: a line with a control character other than a tab (NUL, CR) is ignored whole;
        /// the case (disabled upstream) expects the cookie cut at the character.
        case controlCharacter = "RFC 6265bis §5.6 step 1: a control character ignores the line"
        /// RFC 6265bis §5.1.4, §5.8.3: paths are compared as written, so `/f%6Fo/` is not `/foo/` (the case is
        /// disabled upstream too).
        case pathAsWritten = "RFC 6265bis §5.1.4: paths compared as written"
    }

    static let differences: [String: (why: Difference, sent: [ParserCase.Pair])] = [
        "0004": (.namelessCookie, [.init(name: "", value: "foo")]),
        "0021": (
            .namelessCookie, [.init(name: "a", value: "b"), .init(name: "", value: "x"), .init(name: "c", value: "d")]
        ),
        "0023": (.namelessCookie, [.init(name: "", value: "foo")]),
        "0024": (.namelessCookie, [.init(name: "", value: "foo")]),
        "0025": (.namelessCookie, [.init(name: "", value: "foo")]),
        "0026": (.namelessCookie, [.init(name: "", value: "foo")]),
        "0027": (.namelessCookie, [.init(name: "", value: "bar")]),
        "0028": (.namelessCookie, [.init(name: "", value: "foo")]),
        "CHROMIUM0009": (.namelessCookie, [.init(name: "", value: "BLAHHH")]),
        "CHROMIUM0010": (.namelessCookie, [.init(name: "", value: #""BLA\"HHH""#)]),
        "CHROMIUM0012": (.namelessCookie, [.init(name: "", value: "ABC")]),
        "MOZILLA0012": (
            .namelessCookie, [.init(name: "test", value: #""fubar! = foo"#), .init(name: "", value: "five")]
        ),
        "MOZILLA0014": (.namelessCookie, [.init(name: "", value: "six")]),
        "MOZILLA0015": (.namelessCookie, [.init(name: "", value: "seven")]),
        "MOZILLA0016": (.namelessCookie, [.init(name: "", value: "eight")]),
        "MOZILLA0017": (.namelessCookie, [.init(name: "", value: "eight"), .init(name: "test", value: "six")]),
        "NAME0017": (.namelessCookie, [.init(name: "", value: "a=bar")]),
        "NAME0023": (.namelessCookie, [.init(name: "", value: "foo")]),
        "NAME0025": (.namelessCookie, [.init(name: "", value: "==a=bar")]),
        "NAME0028": (.namelessCookie, [.init(name: "", value: "a")]),
        "NAME0031": (.namelessCookie, [.init(name: "", value: #""foo"#)]),
        "NAME0032": (.namelessCookie, [.init(name: "", value: #""foo\"bar"#)]),
        "NAME0033": (.namelessCookie, [.init(name: "", value: "aaa")]),
        "0002": (.expiredSince, []),
        "COMMA0006": (.expiredSince, []),
        "COMMA0007": (.expiredSince, []),
        "DISABLED_CHROMIUM0022": (.controlCharacter, []),
        "DISABLED_CHROMIUM0023": (.controlCharacter, []),
        "DISABLED_PATH0029": (.pathAsWritten, []),
    ]

    static let parserCases: [ParserCase] = {
        guard let directory = CookieVectors.directory,
            let data = try? Data(contentsOf: directory.appendingPathComponent("parser.json"))
        else { return [] }
        return (try? JSONDecoder().decode([ParserCase].self, from: data)) ?? []
    }()

    @Test(.enabled(if: CookieVectors.directory != nil, CookieVectors.skipReason))
    func theVectorFilesAreRead() {
        #expect(Self.parserCases.count == 222)
        // Every named difference is a case of the file.
        #expect(Set(Self.differences.keys).isSubset(of: Self.parserCases.map(\.test)))
        #expect(Self.differences.count == 29)
    }

    @Test(.enabled(if: CookieVectors.directory != nil, CookieVectors.skipReason), arguments: parserCases)
    func parserCase(_ vector: ParserCase) throws {
        let jar = CookieJar()
        let setter = try #require(URL(string: "http://home.example.org:8888/cookie-parser?\(vector.test.lowercased())"))
        jar.receive(vector.received, from: setter)
        let target = try #require(
            URL(
                string: vector.sentTo ?? "/cookie-parser-result?\(vector.test.lowercased())",
                relativeTo: setter)?.absoluteURL)
        let sent = jar.cookies(for: target).map { ParserCase.Pair(name: $0.name, value: $0.value) }
        if let difference = Self.differences[vector.test] {
            #expect(sent == difference.sent, "\(difference.why.rawValue): \(vector.received) → \(target)")
        } else {
            #expect(sent == vector.sent, "\(vector.received) → \(target)")
        }
    }
}

extension CookieVectorTests {
    /// One `checkPublicSuffix(domain, registrable)` line of the list's own tests.
    struct SuffixCheck: Sendable, CustomTestStringConvertible {
        let domain: String
        let registrable: String?
        var testDescription: String { "\(domain) → \(registrable ?? "null")" }
    }

    static let suffixChecks: [SuffixCheck] = {
        guard let directory = CookieVectors.directory,
            let text = try? String(
                contentsOf: directory.appendingPathComponent("test_psl.txt"), encoding: .utf8)
        else { return [] }
        return text.split(separator: "\n").compactMap { line in
            // checkPublicSuffix('a.b.example.com', 'example.com'); — a null domain has nothing to check.
            guard line.hasPrefix("checkPublicSuffix(") else { return nil }
            let arguments = line.dropFirst("checkPublicSuffix(".count).split(separator: ",").map {
                $0.trimmingCharacters(in: CharacterSet(charactersIn: " ');"))
            }
            guard arguments.count == 2, arguments[0] != "null" else { return nil }
            return SuffixCheck(domain: arguments[0], registrable: arguments[1] == "null" ? nil : arguments[1])
        }
    }()

    @Test(.enabled(if: CookieVectors.directory != nil, CookieVectors.skipReason))
    func theSystemListIsThere() throws {
        // scripts/test installs Debian's publicsuffix package; without it a jar fails closed (JarTests).
        #expect(PublicSuffixList.system != nil, "no \(PublicSuffixList.systemPath): apt-get install publicsuffix")
        #expect(Self.suffixChecks.count == 77)  // 78 lines, less the null input
    }

    @Test(.enabled(if: CookieVectors.directory != nil, CookieVectors.skipReason), arguments: suffixChecks)
    func publicSuffixCheck(_ check: SuffixCheck) throws {
        let list = try #require(PublicSuffixList.system)
        #expect(list.registrableDomain(of: check.domain) == check.registrable)
    }
}

enum CookieVectors {
    static let directory = SharedData.directory("cookie-tests")

    static let skipReason: Comment =
        "../shared/cookie-tests (the cookie test vectors) is not beside this checkout; the vector tests need it"
}
