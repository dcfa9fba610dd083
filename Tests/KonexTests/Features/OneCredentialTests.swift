import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// One notion of a credential: the client's `Redaction` decides what the cache keys accounts on, what a redirect to
/// another origin drops, what the coalescer never merges, and what every sink hides.
@Suite struct OneCredentialTests {
    /// Every spelling the redaction knows: the fixed names, names by meaning, and one the client's redaction adds.
    static let spellings = [
        "Authorization", "Proxy-Authorization", "Cookie", "X-API-Key", "PRIVATE-TOKEN", "X-Shopify-Access-Token",
        "apikey", "X-Goog-Api-Key", "x_access_token", "X-Tenant-Key", "Client-Secret", "X-Amz-Security-Token",
        "X-CSRF-Token", "Ocp-Apim-Subscription-Key", "X-Org-Passport",
    ]

    /// The client's own redaction: the default's meaning plus one name no meaning would find.
    static var redaction: Redaction {
        var redaction = Redaction.default
        redaction.headers.insert("x-org-passport")
        return redaction
    }

    @Test func theRedactionCallsEverySpellingACredential() {
        for name in Self.spellings { #expect(Self.redaction.isCredential(header: name), "\(name)") }
        for name in ["Accept", "Content-Type", "X-Request-Id", "User-Agent", "If-None-Match"] {
            #expect(!Self.redaction.isCredential(header: name), "\(name)")
        }
    }

    /// `/me` answered `private, max-age=600`: a second account (another value of the same header) is never served
    /// the first one's body.
    @Test(arguments: spellings)
    func theCacheKeepsAccountsApart(name: String) async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(
            MockEndpoint(
                .get("/v1/me"),
                responses: [
                    .string("account one", headers: ["Cache-Control": "private, max-age=600"]),
                    .string("account two", headers: ["Cache-Control": "private, max-age=600"]),
                ]))
        let cache = HTTPCache(storage: MemoryCacheStorage(), cookieStorage: nil)
        let client = KonexClient(baseURL: api, transport: mock, interceptors: [cache], redaction: Self.redaction)
        let one = try await client.request("me").withAdapter(.header(name, "value-one")).response()
        let again = try await client.request("me").withAdapter(.header(name, "value-one")).response()
        let two = try await client.request("me").withAdapter(.header(name, "value-two")).response()
        #expect(one.source == .network && again.source == .cache, "\(name)")
        #expect(two.source == .network, "\(name): the second account was served the first one's body")
        #expect(String(decoding: two.data, as: UTF8.self) == "account two", "\(name)")
    }

    @Test(arguments: spellings)
    func aRedirectToAnotherOriginDropsIt(name: String) async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/go"), .status(302, headers: ["Location": "https://elsewhere.test/landing"]))
        mock.stub(.get("/landing"), .string("landed"))
        let client = KonexClient(baseURL: api, transport: mock, redaction: Self.redaction)
        _ = try await client.request("go").withAdapter(.header(name, "secret-value")).response()
        let landed = try #require(mock.requests.last)
        #expect(landed.sent.url.host == "elsewhere.test")
        #expect(landed.header(name) == nil, "\(name) followed the redirect to another origin")
    }

    @Test(arguments: spellings)
    func theCoalescerNeverMergesTwoValues(name: String) {
        let coalescer = RequestCoalescer()
        var a = TransportRequest(head: RequestHead(method: .get, url: api))
        var b = a
        a.setValue("value-one", forHTTPHeaderField: name)
        b.setValue("value-two", forHTTPHeaderField: name)
        #expect(coalescer.key(for: a, client: nil) != coalescer.key(for: b, client: nil), "\(name)")
    }

    @Test(arguments: spellings)
    func everySinkHidesIt(name: String) async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/fail"), .status(500))
        let lines = Lock<[String]>([])
        let client = KonexClient(baseURL: api, transport: mock, redaction: Self.redaction)
        let request = client.request("fail").withAdapter(.header(name, "canary-value"))
            .withPlugin(LoggingPlugin(level: .headers) { line in lines.withLock { $0.append(line) } })
        let error = try await requireThrows(KonexError.self) { try await request.validate().responseData() }
        #expect(!error.debugDescription.contains("canary-value"), "\(name)")
        #expect(!lines.value.joined().contains("canary-value"), "\(name)")
        #expect(lines.value.joined().contains(Redaction.placeholder), "\(name)")
        #expect(!(try await request.cURLDescription()).contains("canary-value"), "\(name)")
    }
}
