import Foundation
import Konex
import KonexTesting
import Testing

/// A client's cookie jar over a real socket, on the transport under test (URLSession, or AsyncHTTPClient with
/// `KONEX_TRANSPORT=ahc`) against httpbin: a login's session cookie comes back on the next request, once; a cookie for
/// another domain and a `Secure` cookie over `http` are refused; two clients on one transport keep their own.
@Suite(.enabled(if: Server.isAvailable, Server.skipReason))
struct CookieJarIntegrationTests {
    struct Cookies: Decodable { var cookies: [String: String] }

    static func client(jar: CookieJar?, transport: (any Transport)? = nil) -> KonexClient {
        KonexClient(baseURL: Server.url!, transport: transport ?? Live.transport(), cookieJar: jar)
    }

    @Test func aLoginsSessionCookieIsSentOnTheNextRequestsOnce() async throws {
        let jar = CookieJar()
        let client = Self.client(jar: jar)
        // httpbin sets the cookie in a 302 to /cookies: the redirect's hop already carries it.
        let login = try await client.request("/cookies/set?session=abc").validate().responseObject(of: Cookies.self)
        #expect(login.cookies == ["session": "abc"])
        let next = try await client.request("/cookies").validate().responseObject(of: Cookies.self)
        #expect(next.cookies == ["session": "abc"])
        let echo = try await client.request("/headers").validate().responseObject(of: [String: [String: String]].self)
        #expect(echo["headers"]?["Cookie"] == "session=abc", "sent twice, or not at all")
    }

    @Test func everyLineOfOneAnswerIsKeptWhateverTheTransportJoins() async throws {
        let jar = CookieJar()
        let client = Self.client(jar: jar)
        _ = try await client.request(
            "/response-headers?Set-Cookie=a%3D1&Set-Cookie=b%3D2%3B%20Expires%3DWed,%2009%20Jun%202100%2010:18:14%20GMT"
                + "&Set-Cookie=c%3D3"
        ).validate().response()
        #expect(Set(jar.all.map { "\($0.name)=\($0.value)" }) == ["a=1", "b=2", "c=3"])
        // Its Expires (the year 2100), read through the comma Foundation joins lines with, capped at 400 days.
        let expires = try #require(jar.all.first { $0.name == "b" }?.expires)
        #expect(abs(expires.timeIntervalSinceNow - CookieJar.maximumLifetime) < 600)
    }

    @Test func aCookieForAnotherDomainAndASecureCookieOverHTTPAreRefused() async throws {
        let jar = CookieJar()
        let client = Self.client(jar: jar)
        _ = try await client.request(
            "/response-headers?Set-Cookie=other%3D1%3B%20Domain%3Dexample.com&Set-Cookie=secure%3D1%3B%20Secure"
        ).validate()
            .response()
        #expect(jar.all.isEmpty, "\(jar.all)")
        // A Secure cookie the jar holds for this host is not sent over http.
        jar.set(Cookie(name: "vault", value: "1", domain: Server.url!.host!, isSecure: true))
        let sent = try await client.request("/cookies").validate().responseObject(of: Cookies.self)
        #expect(sent.cookies == [:])
    }

    @Test func twoClientsOnOneTransportKeepTheirOwnCookies() async throws {
        let transport = Live.transport()
        let withJar = Self.client(jar: CookieJar(), transport: transport)
        let withoutJar = Self.client(jar: nil, transport: transport)
        _ = try await withJar.request("/cookies/set?session=ada").validate().response()
        // Had the transport's own storage kept the cookie, the client without a jar would send it.
        let sent = try await withoutJar.request("/cookies").validate().responseObject(of: Cookies.self)
        #expect(sent.cookies == [:])
        let ada = try await withJar.request("/cookies").validate().responseObject(of: Cookies.self)
        #expect(ada.cookies == ["session": "ada"])
    }
}
