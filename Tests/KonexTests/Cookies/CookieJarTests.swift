import Foundation
import Testing

@testable import Konex

/// The jar's rules (RFC 6265bis §5.7, §5.8.3), one by one, on a clock the test drives and a small public suffix list.
@Suite struct CookieJarTests {
    static let suffixes = PublicSuffixList(rules: "com\norg\nco.uk\ngithub.io\n*.ck\n!www.ck")

    /// A jar at a fixed time the test moves.
    final class Fixture: Sendable {
        let time = Lock(Date(timeIntervalSince1970: 1_800_000_000))
        let jar: CookieJar

        init(suffixes: PublicSuffixList? = CookieJarTests.suffixes, limits: CookieJar.Limits = .init()) {
            let time = time
            jar = CookieJar(publicSuffixes: suffixes, limits: limits, now: { time.value })
        }

        func advance(by seconds: TimeInterval) { time.withLock { $0 += seconds } }

        func set(_ lines: String..., from url: String) { jar.receive(lines, from: URL(string: url)!) }

        func sent(to url: String) -> [String] { jar.cookies(for: URL(string: url)!).map(\.pair) }
    }

    @Test func aHostOnlyCookieStaysWithItsHostAndADomainCookieReachesEverySubdomain() {
        let jar = Fixture()
        jar.set("host=1", "wide=2; Domain=example.com", from: "https://api.example.com/login")
        #expect(jar.sent(to: "https://api.example.com/") == ["host=1", "wide=2"])
        #expect(jar.sent(to: "https://www.example.com/") == ["wide=2"])
        #expect(jar.sent(to: "https://example.com/") == ["wide=2"])
        #expect(jar.sent(to: "https://deep.api.example.com/") == ["wide=2"])
        #expect(jar.sent(to: "https://notexample.com/") == [])
        #expect(jar.sent(to: "https://example.org/") == [])
    }

    @Test(arguments: [
        ("a=1; Domain=com", "https://api.example.com/"),  // a public suffix
        ("a=1; Domain=co.uk", "https://shop.example.co.uk/"),
        ("a=1; Domain=github.io", "https://me.github.io/"),
        ("a=1; Domain=anything.ck", "https://a.anything.ck/"),  // under a wildcard rule
        ("a=1; Domain=other.com", "https://api.example.com/"),  // a domain the host is not in
        ("a=1; Domain=api.example.com", "https://example.com/"),  // a subdomain of the host
        ("a=1; Domain=1.2.3", "http://10.1.2.3/"),  // an address matches only itself
    ])
    func aDomainThatIsAPublicSuffixOrDoesNotHoldTheHostIsRefused(line: String, url: String) {
        let jar = Fixture()
        jar.set(line, from: url)
        #expect(jar.jar.all.isEmpty, "\(line) from \(url) was kept")
    }

    @Test func aPublicSuffixThatIsTheHostItselfMakesAHostOnlyCookie() throws {
        let jar = Fixture()
        jar.set("a=1; Domain=github.io", from: "https://github.io/")
        let cookie = try #require(jar.jar.all.first)
        #expect(cookie.isHostOnly)
        #expect(jar.sent(to: "https://me.github.io/") == [])
        // An exception rule makes www.ck registrable: a cookie for it reaches its subdomains.
        jar.set("b=2; Domain=www.ck", from: "https://a.www.ck/")
        #expect(jar.sent(to: "https://b.www.ck/") == ["b=2"])
    }

    @Test func withoutAListEveryDomainAttributeButTheHostFailsClosed() {
        let jar = Fixture(suffixes: nil)
        jar.set(
            "wide=1; Domain=example.com", "self=2; Domain=api.example.com", "plain=3", from: "https://api.example.com/")
        #expect(jar.sent(to: "https://api.example.com/") == ["self=2", "plain=3"])
        #expect(jar.sent(to: "https://www.api.example.com/") == [])
        #expect(jar.jar.all.allSatisfy { $0.isHostOnly })
    }

    @Test func secureCookiesAreNeitherSetNorSentNorShadowedOverHTTP() {
        let jar = Fixture()
        jar.set("s=1; Secure", from: "http://example.com/")
        #expect(jar.jar.all.isEmpty, "a Secure cookie from http was kept")
        jar.set("s=1; Secure", from: "https://example.com/")
        #expect(jar.sent(to: "https://example.com/") == ["s=1"])
        #expect(jar.sent(to: "http://example.com/") == [])
        #expect(jar.sent(to: "wss://example.com/socket") == ["s=1"])
        // http cannot replace it, or set a cookie of its name over it.
        jar.set("s=evil", "s=evil; Path=/deeper", from: "http://example.com/")
        #expect(jar.sent(to: "https://example.com/deeper") == ["s=1"])
        jar.set("s=2; Secure", from: "https://example.com/")
        #expect(jar.sent(to: "https://example.com/") == ["s=2"])
    }

    @Test func theSecureAndHostPrefixesKeepTheirPromises() {
        let jar = Fixture()
        jar.set(
            "__Secure-a=1", "__Secure-b=2; Secure", "__secure-c=3", "__Host-d=4; Secure; Path=/",
            "__Host-e=5; Secure; Path=/; Domain=example.com", "__Host-f=6; Secure; Path=/app", "__Host-g=7; Path=/",
            "=__Host-h", from: "https://example.com/app/login")
        #expect(Set(jar.jar.all.map(\.name)) == ["__Secure-b", "__Host-d"])
    }

    @Test func maxAgeWinsOverExpiresAndCookiesExpireOnTheClock() {
        let jar = Fixture()
        jar.set(
            "short=1; Expires=Wed, 09 Jun 2100 10:18:14 GMT; Max-Age=60",
            "long=2; Max-Age=60; Expires=Wed, 09 Jun 2021 10:18:14 GMT", "session=3", from: "https://example.com/")
        #expect(jar.sent(to: "https://example.com/") == ["short=1", "long=2", "session=3"])
        jar.advance(by: 61)
        #expect(jar.sent(to: "https://example.com/") == ["session=3"])
        // Zero and negative Max-Age remove a cookie at once, as does an Expires in the past.
        jar.set("session=gone; Max-Age=0", from: "https://example.com/")
        #expect(jar.sent(to: "https://example.com/") == [])
    }

    @Test func lifetimesAreCappedAtFourHundredDays() throws {
        let jar = Fixture()
        jar.set(
            "a=1; Max-Age=999999999999999999999", "b=2; Expires=Fri, 01 Jan 9999 00:00:00 GMT", from: "https://x.com/")
        let now = jar.time.value
        for cookie in jar.jar.all {
            #expect(cookie.expires == now.addingTimeInterval(400 * 86_400), "\(cookie.name)")
        }
    }

    @Test func aCookieOverFourKilobytesIsRefusedAndOneAtTheLimitKept() {
        let jar = Fixture()
        jar.set("n=" + String(repeating: "v", count: 4_095), from: "https://example.com/")  // 4,096 bytes
        jar.set("m=" + String(repeating: "v", count: 4_096), from: "https://example.com/")
        #expect(jar.jar.all.map(\.name) == ["n"])
    }

    @Test func theLeastRecentlyUsedGoFirstPastEachLimit() {
        let jar = Fixture(limits: .init(perDomain: 3, total: 5))
        for index in 0..<3 {
            jar.set("a\(index)=1", from: "https://a.com/")
            jar.advance(by: 1)
        }
        // Sending a0 makes it recent: a1 is now the least recently used.
        _ = jar.jar.cookieHeader(for: URL(string: "https://a.com/")!)
        jar.advance(by: 1)
        _ = jar.jar.cookieHeader(for: URL(string: "https://a.com/")!)  // all three, at one time
        jar.set("a3=1", from: "https://a.com/")
        #expect(jar.jar.all.count == 3)
        for index in 0..<3 {
            jar.advance(by: 1)
            jar.set("b\(index)=1", from: "https://b.com/")
        }
        #expect(jar.jar.all.count == 5)
        #expect(jar.jar.all.filter { $0.domain == "b.com" }.count == 3, "the newest cookie's domain keeps its three")
    }

    @Test func cookiesGoLongestPathFirstThenOldestFirstAndAReplacementKeepsItsPlace() {
        let jar = Fixture()
        jar.set("first=1", from: "https://example.com/")
        jar.advance(by: 1)
        jar.set("second=1", "deep=1; Path=/a/b", "mid=1; Path=/a", from: "https://example.com/")
        jar.advance(by: 1)
        jar.set("first=2", from: "https://example.com/")
        #expect(jar.sent(to: "https://example.com/a/b/c") == ["deep=1", "mid=1", "first=2", "second=1"])
        #expect(jar.sent(to: "https://example.com/ab") == ["first=2", "second=1"])
        #expect(jar.sent(to: "https://example.com/a") == ["mid=1", "first=2", "second=1"])
    }

    @Test func theDefaultPathIsTheRequestsDirectory() {
        let jar = Fixture()
        jar.set("a=1", from: "https://example.com/account/login?next=/")
        jar.set("b=1; Path=relative", from: "https://example.com/account/settings/edit")
        #expect(jar.sent(to: "https://example.com/account/x") == ["a=1"])
        #expect(jar.sent(to: "https://example.com/account/settings/x") == ["b=1", "a=1"])
        #expect(jar.sent(to: "https://example.com/") == [])
    }

    @Test func httpOnlyCookiesAreKeptButNeverGivenToAScript() {
        let jar = Fixture()
        jar.set("sid=1; HttpOnly", "theme=dark", from: "https://example.com/")
        let url = URL(string: "https://example.com/")!
        #expect(jar.jar.cookies(for: url).map(\.name) == ["sid", "theme"])
        #expect(jar.jar.cookies(for: url, readBy: .script).map(\.name) == ["theme"])
    }

    @Test func sameSiteIsRecordedAndNoneNeedsSecure() {
        let jar = Fixture()
        jar.set(
            "a=1; SameSite=Strict", "b=1; SameSite=lax", "c=1; SameSite=None", "d=1; SameSite=None; Secure",
            "e=1; SameSite=sideways", from: "https://example.com/")
        let kept = Dictionary(uniqueKeysWithValues: jar.jar.all.map { ($0.name, $0.sameSite) })
        #expect(kept == ["a": .strict, "b": .lax, "d": .none, "e": .unspecified])
    }

    @Test func joinedLinesAreSplitAtEachCommaThatStartsACookie() {
        #expect(
            SetCookieLines.split("a=1; Expires=Wed, 09 Jun 2100 10:18:14 GMT, b=2; Path=/, c=3")
                == ["a=1; Expires=Wed, 09 Jun 2100 10:18:14 GMT", "b=2; Path=/", "c=3"])
        #expect(SetCookieLines.split("a=1") == ["a=1"])
        #expect(SetCookieLines.split("a=1, , b=2") == ["a=1", "b=2"])
    }

    @Test func theDescriptionNeverShowsAValue() {
        let cookie = Cookie(name: "sid", value: "secret-value", domain: "Example.com", isSecure: true)
        #expect(!cookie.description.contains("secret-value"))
        #expect(cookie.description.contains("example.com"))
    }
}
