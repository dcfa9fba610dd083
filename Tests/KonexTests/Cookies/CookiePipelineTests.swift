import Foundation
import KonexTesting
import Testing

@testable import Konex

/// A client's cookie jar in the pipeline, over mocks: a login then an authenticated call in one test, each redirect
/// hop with its own origin's cookies, separate users kept apart, the cache keyed by the cookies sent.
@Suite struct CookiePipelineTests {
    struct LogIn: KonexRequest {
        var path: String { "login" }
        var method: HTTPMethod { .post }
    }

    static func jar() -> CookieJar { CookieJar(publicSuffixes: PublicSuffixList(rules: "test\ncom")) }

    @Test func aLoginThenAnAuthenticatedCallIsOneTest() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.post("/v1/login"), .status(204, headers: ["Set-Cookie": "session=abc; Path=/; HttpOnly; Secure"]))
        mock.stub(.get("/v1/me"), .json(["name": "Ada"]))
        let client = KonexClient.mocked(mock, baseURL: api, cookieJar: Self.jar())
        _ = try await client.request(LogIn()).response()
        _ = try await client.request("me").responseData()
        #expect(mock.requests.first?.header("Cookie") == nil)
        #expect(mock.requests.last?.header("Cookie") == "session=abc")
        // URLSession's own handling is off for requests a jar serves, so a cookie is never sent twice.
        #expect(mock.requests.last?.sent.httpShouldHandleCookies == false)
    }

    @Test func severalCookiesInOneMockedFieldArriveAsTheirLines() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(
            .get("/v1/login"),
            .status(204, headers: ["Set-Cookie": "a=1; Expires=Wed, 09 Jun 2100 10:18:14 GMT, b=2; Path=/"]))
        let jar = Self.jar()
        let response = try await KonexClient.mocked(mock, baseURL: api, cookieJar: jar).request("login").response()
        #expect(response.headers.values(for: "Set-Cookie").count == 2)
        #expect(Set(jar.all.map(\.name)) == ["a", "b"])
    }

    @Test func eachRedirectHopCarriesTheCookiesOfItsOwnOrigin() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(
            .get("/v1/start"),
            .status(302, headers: ["Location": "https://auth.test/authorize", "Set-Cookie": "flow=1; Path=/"]))
        mock.stub(
            .get("/authorize"),
            .status(302, headers: ["Location": "https://api.test/v1/done", "Set-Cookie": "auth=2; Path=/"]))
        mock.stub(.get("/v1/done"), .string("in"))
        let jar = Self.jar()
        jar.set(Cookie(name: "pref", value: "x", domain: "auth.test"))
        let client = KonexClient.mocked(mock, baseURL: api, cookieJar: jar)
        _ = try await client.request("start").withAdapter(.header("Cookie", "mine=1")).responseData()
        let sent = mock.requests.map { ($0.url?.host ?? "", $0.header("Cookie")) }
        #expect(sent.count == 3)
        // The caller's own Cookie first, then the jar's; the caller's stays with its origin, the jar's are per hop.
        #expect(sent[0] == ("api.test", "mine=1"))
        #expect(sent[1] == ("auth.test", "pref=x"))
        #expect(sent[2] == ("api.test", "flow=1"))
        #expect(jar.cookies(for: URL(string: "https://auth.test/")!).map(\.pair) == ["pref=x", "auth=2"])
    }

    @Test func twoClientsShareCookiesOnlyWhenGivenOneJar() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.post("/v1/login"), .status(204, headers: ["Set-Cookie": "session=ada"]))
        mock.stub(.get("/v1/me"), .string("me"))
        let adasJar = Self.jar()
        let ada = KonexClient.mocked(mock, baseURL: api, cookieJar: adasJar)
        let bob = KonexClient.mocked(mock, baseURL: api, cookieJar: Self.jar())
        let adaAgain = KonexClient.mocked(mock, baseURL: api, cookieJar: adasJar)
        let noJar = KonexClient.mocked(mock, baseURL: api)
        _ = try await ada.request(LogIn()).response()
        for client in [bob, adaAgain, noJar] { _ = try await client.request("me").responseData() }
        #expect(mock.requests.suffix(3).map { $0.header("Cookie") } == [nil, "session=ada", nil])
    }

    @Test func theCacheKeepsOneUsersAnswerFromAnother() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/feed"), .string("feed", headers: ["Cache-Control": "max-age=600"]))
        let jar = Self.jar()
        let cache = HTTPCache(storage: .memory(capacity: 1 << 20))
        let client = KonexClient(baseURL: api, transport: mock, interceptors: [cache], cookieJar: jar)
        jar.receive(["session=ada"], from: api)
        let first = try await client.request("feed").response()
        let again = try await client.request("feed").response()
        jar.receive(["session=bob"], from: api)
        let bobs = try await client.request("feed").response()
        #expect(first.source == .network)
        #expect(again.source == .cache)
        #expect(bobs.source == .network, "Bob was served Ada's stored answer")
        #expect(mock.requests.map { $0.header("Cookie") } == ["session=ada", "session=bob"])
    }

    @Test func aStoredAnswerSetsNoCookieAgain() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/feed"), .string("feed", headers: ["Cache-Control": "max-age=600", "Set-Cookie": "seen=1"]))
        let jar = Self.jar()
        let cache = HTTPCache(storage: .memory(capacity: 1 << 20))
        let client = KonexClient(baseURL: api, transport: mock, interceptors: [cache], cookieJar: jar)
        _ = try await client.request("feed").responseData()
        #expect(jar.all.map(\.name) == ["seen"])
        jar.removeAll()
        // The cookie went out with the first request's key, which had none: the second is a hit on that key.
        let hit = try await client.request("feed").response()
        #expect(hit.source == .cache)
        #expect(jar.all.isEmpty, "a stored answer set its cookie again")
    }

    @Test func aWebSocketHandshakeCarriesTheJarsCookiesAndKeepsWhatItsAnswerSets() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stubWebSocket(.get("/v1/live"), handshake: .accept(headers: ["Set-Cookie": "ws=1"]))
        let jar = Self.jar()
        jar.receive(["session=abc"], from: api)
        let socket = try await KonexClient.mocked(mock, baseURL: api, cookieJar: jar).request("live").webSocket()
        await socket.close()
        #expect(mock.webSocketSessions.last?.request.value(forHTTPHeaderField: "Cookie") == "session=abc")
        #expect(Set(jar.all.map(\.name)) == ["session", "ws"])
    }
}
