import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// RFC 9111 sections 3–5, one row per requirement that applies to a private cache or a shared one (`isShared`), run
/// the same way as the directive table: store a first response, move the wall clock, ask again. RELIABILITY.md lists
/// the same rows with their sections.
extension HTTPCacheDirectiveTests {
    static let future = "Thu, 18 Aug 2050 02:01:18"
    static let specRows: [Row] = [
        // §5.3 Expires: an invalid date means already expired; the three forms, any case, are valid.
        Row(
            name: "§5.3 Expires with UTC is invalid", headers: ["Expires": future + " UTC"], after: 1, source: .network,
            body: "v2", calls: 2),
        Row(
            name: "§5.3 Expires with AEST is invalid", headers: ["Expires": future + " AEST"], after: 1,
            source: .network, body: "v2", calls: 2),
        Row(
            name: "§5.3 Expires with a two-digit year is invalid", headers: ["Expires": "Thu, 18 Aug 50 02:01:18 GMT"],
            after: 1, source: .network, body: "v2", calls: 2),
        Row(
            name: "§5.3 Expires without the comma is invalid", headers: ["Expires": "Thu 18 Aug 2050 02:01:18 GMT"],
            after: 1, source: .network, body: "v2", calls: 2),
        Row(
            name: "§5.3 Expires with double spaces is invalid", headers: ["Expires": "Thu, 18  Aug  2050 02:01:18 GMT"],
            after: 1, source: .network, body: "v2", calls: 2),
        Row(
            name: "§5.3 Expires with date dashes is invalid", headers: ["Expires": "Thu, 18-Aug-2050 02:01:18 GMT"],
            after: 1, source: .network, body: "v2", calls: 2),
        Row(
            name: "§5.3 Expires with periods in the time is invalid",
            headers: ["Expires": "Thu, 18 Aug 2050 02.01.18 GMT"], after: 1, source: .network, body: "v2", calls: 2),
        Row(
            name: "§5.3 Expires with a one-digit hour is invalid", headers: ["Expires": "Thu, 18 Aug 2050 2:01:18 GMT"],
            after: 1, source: .network, body: "v2", calls: 2),
        Row(
            name: "§5.3 Expires in upper case with gMT is valid", headers: ["Expires": "THU, 18 AUG 2050 02:01:18 gMT"],
            after: 1, source: .cache, body: "v1", calls: 1),
        Row(
            name: "§5.3 Expires in RFC 850 form is valid", headers: ["Expires": "Thursday, 18-Aug-50 02:01:18 GMT"],
            after: 1, source: .cache, body: "v1", calls: 1),
        Row(
            name: "§5.3 Expires in asctime form is valid", headers: ["Expires": "Thu Aug  8 02:01:18 2050"], after: 1,
            source: .cache, body: "v1", calls: 1),
        Row(
            name: "§5.3 Expires of year 9999 is valid, not an overflow",
            headers: ["Expires": "Fri, 31 Dec 9999 23:59:59 GMT"], after: 1, source: .cache, body: "v1", calls: 1),
        // Numbers from a hostile peer: out of range is ignored or clamped, never a trap.
        Row(
            name: "§5.6.7 a Date of year 999999999999 is ignored",
            headers: ["Date": "Thu, 01 Jan 999999999999 00:00:00 GMT", "Cache-Control": "max-age=60"], after: 30,
            source: .cache, body: "v1", calls: 1),
        Row(
            name: "§1.2.2 delta-seconds with leading zeros", headers: ["Cache-Control": "max-age=0000000000000060"],
            after: 30, source: .cache, body: "v1", calls: 1),
        Row(
            name: "§1.2.2 delta-seconds with leading zeros still expire",
            headers: ["Cache-Control": "max-age=0000000000000060"], after: 61, source: .network, body: "v2", calls: 2),
        Row(
            name: "§5.1 an absurd Age is clamped: stale",
            headers: ["Cache-Control": "max-age=60", "Age": "99999999999999999999999"], after: 1, source: .network,
            body: "v2", calls: 2),
        // §5.2 quoted strings: a quoted-pair never ends the string.
        Row(
            name: "§5.2 an escaped quote inside a quoted value",
            headers: ["Cache-Control": #"ext="a\",max-age=0", max-age=60"#], after: 30, source: .cache, body: "v1",
            calls: 1),
        Row(
            name: "§5.2 max-age inside a quoted string is ignored",
            headers: ["Cache-Control": #"ext="max-age=100", max-age=1"#], after: 30, source: .network, body: "v2",
            calls: 2),
        // §5.2.2.8 proxy-revalidate binds shared caches only.
        Row(
            name: "§5.2.2.8 proxy-revalidate: a private cache may serve stale",
            headers: ["Cache-Control": "max-age=60, proxy-revalidate"], after: 70,
            asked: ["Cache-Control": "max-stale=60"], source: .cache, body: "v1", calls: 1),
        Row(
            name: "§5.2.2.8 proxy-revalidate: a shared cache may not",
            headers: ["Cache-Control": "max-age=60, proxy-revalidate"], after: 70,
            asked: ["Cache-Control": "max-stale=60"], shared: true, source: .network, body: "v2", calls: 2),
        Row(
            name: "§5.2.2.2 must-revalidate: no cache may serve stale",
            headers: ["Cache-Control": "max-age=60, must-revalidate"], after: 70,
            asked: ["Cache-Control": "max-stale=60"], source: .network, body: "v2", calls: 2),
        Row(
            name: "§5.2.2.10 s-maxage overrides max-age in a shared cache",
            headers: ["Cache-Control": "max-age=600, s-maxage=10"], after: 30, shared: true, source: .network,
            body: "v2", calls: 2),
        Row(
            name: "§4.2.1 max-age overrides Expires", headers: ["Cache-Control": "max-age=60", "Expires": "0"],
            after: 30, source: .cache, body: "v1", calls: 1),
        Row(
            name: "§4.2.2 no heuristic freshness without Last-Modified", headers: [:], after: 1, source: .network,
            body: "v2", calls: 2),
        Row(
            name: "§5.2.1.4 request no-cache with an unvalidatable response fetches",
            headers: ["Cache-Control": "max-age=60"], after: 1, asked: ["Cache-Control": "no-cache"], source: .network,
            body: "v2", calls: 2),
    ]

    @Test func deltaSecondsPastTwoToTheThirtyFirstAreTheClampAtAnyIntWidth() {
        // RFC 9111 §1.2.2: a value past 2^31 is 2^31. Parsed in Int64 and clamped to Int, so a 32-bit Int (arm64_32)
        // neither overflows reading ten digits nor fails to hold the clamp.
        for text in ["2147483648", "2147483649", "9999999999", "00000000009999999999", "99999999999999999999"] {
            #expect(
                CacheControl("max-age=\(text)").seconds("max-age") == .valid(CacheControl.maximumSeconds), "\(text)")
        }
        #expect(CacheControl("max-age=2147483647").seconds("max-age") == .valid(2_147_483_647))
    }

    @Test(arguments: specRows)
    func specification(_ row: Row) async throws {
        try await directive(row)
    }
}

@Suite struct HTTPCacheSpecBehaviourTests {
    @Test func connectionListedAndHopByHopFieldsAndSetCookieAreNotStored() async throws {
        // §3.1: header fields named by Connection, and hop-by-hop fields, are not stored; Set-Cookie is not replayed.
        let bench = CacheBench()
        bench.serve([
            "Cache-Control": "max-age=60", "Connection": "X-Hop, close", "X-Hop": "1", "Keep-Alive": "timeout=5",
            "Set-Cookie": "sid=secret", "X-Kept": "yes",
        ])
        _ = try await bench.get()
        let hit = try await bench.get()
        #expect(hit.source == .cache)
        #expect(hit.headers["X-Hop"] == nil)
        #expect(hit.headers["Keep-Alive"] == nil)
        #expect(hit.headers["Connection"] == nil)
        #expect(hit.headers["Set-Cookie"] == nil)
        #expect(hit.headers["X-Kept"] == "yes")
    }

    @Test func aSetCookieOnA304ReachesItsCallerOnlyAndIsNeverStored() async throws {
        // Before: the 304's Set-Cookie was merged into the stored entry and replayed to every later caller.
        let bench = CacheBench()
        let notModified = MockResponse.status(
            304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=60", "Set-Cookie": "sid=from-304"])
        bench.serve(["Cache-Control": "max-age=0", "ETag": "\"v1\""], then: [notModified])
        _ = try await bench.get()
        let revalidated = try await bench.get()
        #expect(revalidated.source == .revalidated)
        #expect(revalidated.headers["Set-Cookie"] == "sid=from-304")
        let hit = try await bench.get()
        #expect(hit.source == .cache)
        #expect(hit.value == "v1")
        #expect(hit.headers["Set-Cookie"] == nil)
        #expect(bench.mock.requestCount == 2)
    }

    @Test func aCallersMatchingConditionalOnAFreshResponseIs304FromTheCache() async throws {
        // §4.3.2: a cache answers a conditional request itself when its fresh stored response matches.
        let bench = CacheBench()
        bench.serve(["Cache-Control": "max-age=60", "ETag": #"W/"a""#, "Last-Modified": httpDate(TestNow.start - 60)])
        _ = try await bench.get()
        let byTag = try await bench.get(["If-None-Match": #""x", "a""#])
        #expect(byTag.statusCode == 304)
        #expect(byTag.source == .cache)
        #expect(byTag.headers["ETag"] == #"W/"a""#)
        let byDate = try await bench.get(["If-Modified-Since": httpDate(TestNow.start)])
        #expect(byDate.statusCode == 304)
        #expect(bench.mock.requestCount == 1)
        // A validator that does not match goes to the origin.
        let other = try await bench.get(["If-None-Match": #""b""#])
        #expect(other.source == .network)
        #expect(bench.mock.requestCount == 2)
    }

    /// Trust pass 3, item 10: without `Last-Modified`, a caller's `If-Modified-Since` is compared with the stored
    /// `Date` (RFC 9111 §4.3.2).
    @Test func aCallersIfModifiedSinceWithoutLastModifiedIsComparedWithTheStoredDate() async throws {
        let bench = CacheBench()
        bench.serve(["Cache-Control": "max-age=600", "Date": httpDate(TestNow.start - 30)])
        _ = try await bench.get()
        let since = try await bench.get(["If-Modified-Since": httpDate(TestNow.start - 10)])
        #expect(since.statusCode == 304)
        #expect(since.source == .cache)
        #expect(bench.mock.requestCount == 1)
        // A date before the stored one is not matched: the origin decides.
        let earlier = try await bench.get(["If-Modified-Since": httpDate(TestNow.start - 3_600)])
        #expect(earlier.statusCode == 200)
        #expect(bench.mock.requestCount == 2)
    }

    @Test func secondVaryVariantDoesNotEvictTheFirst() async throws {
        // §4.1: a cache may keep one response per variant.
        let bench = CacheBench()
        let headers = ["Cache-Control": "max-age=60", "Vary": "Accept-Language"]
        bench.serve(headers, then: [.string("fr", headers: headers)])
        #expect(try await bench.get(["Accept-Language": "en"]).value == "v1")
        #expect(try await bench.get(["Accept-Language": "fr"]).value == "fr")
        let english = try await bench.get(["Accept-Language": "en"])
        let french = try await bench.get(["Accept-Language": "fr"])
        #expect(english.source == .cache)
        #expect(english.value == "v1")
        #expect(french.source == .cache)
        #expect(french.value == "fr")
        #expect(bench.mock.requestCount == 2)
    }

    @Test(arguments: [500, 404, 301, 410])
    func aFinalResponseWithExplicitFreshnessIsStored(status: Int) async throws {
        // §3: any final status may be stored when the response has explicit freshness.
        let bench = CacheBench()
        let headers = ["Cache-Control": "max-age=60", "Date": httpDate(bench.now.value), "Location": "/elsewhere"]
        bench.mock.stub(
            MockEndpoint(
                .get("/v1/doc"), responses: [.string("first", status: status, headers: headers), .string("v2")]))
        // A 301 is followed by the pipeline; this client answers with it, to see what the cache stored.
        let client = KonexClient(
            baseURL: api, transport: bench.mock, interceptors: [bench.cache], redirectPolicy: .doNotFollow)
        _ = try await client.request("doc").response()
        let second = try await client.request("doc").response()
        #expect(second.statusCode == status)
        #expect(second.source == .cache)
        #expect(bench.mock.requestCount == 1)
    }

    @Test func eachHopOfARedirectIsCachedOnItsOwn() async throws {
        // Redirects are followed outside the cache, so a stored 301 and its target are each reused.
        let bench = CacheBench()
        let fresh = ["Cache-Control": "max-age=60", "Date": httpDate(bench.now.value)]
        bench.mock.stub(.get("/v1/old"), .status(301, headers: fresh.merging(["Location": "/v1/new"]) { $1 }))
        bench.mock.stub(.get("/v1/new"), .string("there", headers: fresh))
        let first = try await bench.client.request("old").responseString()
        let second = try await bench.client.request("old").response()
        #expect(first == "there")
        #expect(second.value == Data("there".utf8))
        #expect(second.source == .cache)
        #expect(second.redirects == [Redirect(url: URL(string: "https://api.test/v1/old")!, statusCode: 301)])
        #expect(bench.mock.requests.map(\.url?.path) == ["/v1/old", "/v1/new"])
    }

    @Test func anUnsafeMethodInvalidatesItsLocationAndContentLocationOnTheSameHost() async throws {
        // §4.4
        let bench = CacheBench()
        let fresh = ["Cache-Control": "max-age=60"]
        for path in ["/v1/a", "/v1/b", "/v1/c"] {
            bench.mock.stub(
                MockEndpoint(.get(path), responses: [.string("old", headers: fresh), .string("new", headers: fresh)]))
        }
        bench.mock.stub(
            .post("/v1/doc"),
            .status(201, headers: ["Location": "/v1/a", "Content-Location": "https://api.test/v1/b"]))
        for path in ["a", "b", "c"] { _ = try await bench.client.request(path).response() }
        _ = try await bench.client.request(URLRequestPost.make()).response()
        #expect(try await bench.client.request("a").responseString() == "new")
        #expect(try await bench.client.request("b").responseString() == "new")
        #expect(try await bench.client.request("c").responseString() == "old")  // not named: still stored
    }

    @Test(arguments: [500, 502, 503, 504, 429])
    func anErrorDuringRevalidationKeepsTheOfflineCopy(status: Int) async throws {
        // Item 5: the server's trouble must not erase the stored response.
        let bench = CacheBench()
        bench.serve(["Cache-Control": "max-age=60", "ETag": #""a""#], then: [.status(status)])
        _ = try await bench.get()
        bench.now.advance(by: 120)
        let failed = try await bench.get()
        #expect(failed.statusCode == status)
        let offline = try await bench.get(policy: .returnCacheDataDontLoad)
        #expect(offline.value == "v1")
        #expect(offline.source == .cache)
    }

    @Test func aReloadAnsweredWithAnErrorKeepsTheOfflineCopy() async throws {
        let bench = CacheBench()
        bench.serve(["Cache-Control": "max-age=60"], then: [.status(503)])
        _ = try await bench.get()
        #expect(try await bench.get(policy: .reloadIgnoringLocalCacheData).statusCode == 503)
        #expect(try await bench.get(policy: .returnCacheDataDontLoad).value == "v1")
    }

    @Test func aFailedBackgroundRevalidationKeepsTheEntry() async throws {
        let bench = CacheBench()
        bench.serve(["Cache-Control": "max-age=60, stale-while-revalidate=600", "ETag": #""a""#], then: [.status(503)])
        _ = try await bench.get()
        bench.now.advance(by: 90)
        #expect(try await bench.get().source == .cache)
        await bench.cache.waitForBackgroundRevalidations()
        #expect(bench.mock.requestCount == 2)
        #expect(try await bench.get(policy: .returnCacheDataDontLoad).value == "v1")
    }

    @Test func a304ForAnotherValidatorRefreshesNothingAndFetchesInFull() async throws {
        // §4.3.4: a 304 selects stored responses by its validator.
        let bench = CacheBench()
        bench.serve(
            ["Cache-Control": "max-age=60", "ETag": #""a""#],
            then: [
                .status(304, headers: ["ETag": #""other""#]), .string("v3", headers: ["Cache-Control": "max-age=60"]),
            ])
        _ = try await bench.get()
        bench.now.advance(by: 120)
        let answer = try await bench.get()
        #expect(answer.value == "v3")
        #expect(answer.source == .network)
        #expect(bench.mock.requestCount == 3)
        #expect(bench.mock.requests.last?.header("If-None-Match") == nil)
    }

    @Test func staleIsNeverServedWhenTheOriginIsGoneWithoutStaleIfError() async throws {
        // A documented choice (RFC 9111 §4.2.4 allows more): without stale-if-error the error reaches the caller.
        let bench = CacheBench()
        bench.serve(["Cache-Control": "max-age=60"], then: [.fault(.notConnected)])
        _ = try await bench.get()
        bench.now.advance(by: 120)
        let error = try await requireThrows(KonexError.self) { try await bench.get() }
        #expect(error.stage == .transport)
    }
}

/// Item 2 and 4: credentials, cookies and accounts.
@Suite struct HTTPCacheAccountTests {
    func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("konex-cache-\(UUID().uuidString)")
    }

    func everyFile(in directory: URL) throws -> Data {
        var all = Data()
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            all.append(try Data(contentsOf: directory.appendingPathComponent(name)))
        }
        return all
    }

    @Test func varyAuthorizationWritesNoCredentialToDisk() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bench = CacheBench(storage: DiskCacheStorage(directory: directory))
        bench.serve(["Cache-Control": "max-age=60", "Vary": "Authorization, X-Tenant"])
        _ = try await bench.get(["Authorization": "Basic YWRhOmh1bnRlcjI=", "X-Tenant": "tenant-secret"])
        #expect(
            try await bench.get(["Authorization": "Basic YWRhOmh1bnRlcjI=", "X-Tenant": "tenant-secret"]).source
                == .cache)
        let files = try everyFile(in: directory)
        #expect(!files.isEmpty)
        for secret in ["YWRhOmh1bnRlcjI", "tenant-secret", "Basic"] {
            #expect(files.range(of: Data(secret.utf8)) == nil, "\(secret) reached the cache folder")
        }
    }

    @Test func aQueryTokenInTheURLIsNotWrittenToDisk() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bench = CacheBench(storage: DiskCacheStorage(directory: directory))
        bench.mock.stub(.get("/v1/doc"), .string("v1", headers: ["Cache-Control": "max-age=60"]))
        _ = try await bench.client.request("doc?access_token=query-secret").response()
        #expect(try await bench.client.request("doc?access_token=query-secret").response().source == .cache)
        #expect(try everyFile(in: directory).range(of: Data("query-secret".utf8)) == nil)
    }

    /// Trust pass 3, item 5: a cached 301 to a signed URL is not kept on disk redacted (every later hit would be sent
    /// to `…=REDACTED`); it is not kept on disk at all, and every hit leads where the server said.
    @Test(arguments: [301, 308])
    func aStoredRedirectNeverLeadsSomewhereTheServerDidNotSend(status: Int) async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bench = CacheBench(storage: DiskCacheStorage(directory: directory))
        let signed = "https://cdn.test/file?X-Amz-Signature=sig-secret&X-Amz-Expires=600"
        bench.mock.stub(
            .get("/v1/old"), .status(status, headers: ["Location": signed, "Cache-Control": "max-age=600"]))
        bench.mock.stub(.get("/file"), .string("content", headers: ["Cache-Control": "no-store"]))
        for _ in 0..<3 {
            #expect(try await bench.client.request("old").responseString() == "content")
        }
        let followed = bench.mock.requests.filter { $0.sent.url.host == "cdn.test" }
        #expect(followed.count == 3)
        #expect(followed.allSatisfy { $0.sent.url.absoluteString == signed }, "\(followed.map { $0.sent.url })")
        #expect(try everyFile(in: directory).range(of: Data("sig-secret".utf8)) == nil)
        // A redirect whose target holds no secret is still kept, with its Location as sent.
        bench.mock.stub(
            .get("/v1/plain"),
            .status(status, headers: ["Location": "https://cdn.test/file", "Cache-Control": "max-age=600"]))
        _ = try await bench.client.request("plain").responseString()
        let before = bench.mock.requests.count
        #expect(try await bench.client.request("plain").responseString() == "content")
        #expect(bench.mock.requests.count == before + 1, "only the target was asked: the 301 came from disk")
    }

    @Test func digestsDependOnTheStoragesSecret() {
        var request = TransportRequest(head: RequestHead(method: .get, url: api))
        request.setValue("Bearer t", forHTTPHeaderField: "Authorization")
        let one = HTTPCache(storage: MemoryCacheStorage()).key(for: request)
        let two = HTTPCache(storage: MemoryCacheStorage()).key(for: request)
        #expect(one != two)  // no unsalted hash: the same credential gives unrelated digests in two storages
        #expect(!one.contains("Bearer"))
    }

    @Test(arguments: ["X-API-Key", "Cookie", "Proxy-Authorization"])
    func everyCredentialHeaderSeparatesAccounts(header: String) async throws {
        let bench = CacheBench()
        bench.serve(["Cache-Control": "max-age=60"], then: [.string("b's", headers: ["Cache-Control": "max-age=60"])])
        #expect(try await bench.get([header: "account-a"]).value == "v1")
        #expect(try await bench.get([header: "account-b"]).value == "b's")
        #expect(try await bench.get([header: "account-a"]).value == "v1")
    }

    @Test func cookiesTheSessionWouldAddSeparateAccounts() async throws {
        let jar = HTTPCookieStorage.sharedCookieStorage(forGroupContainerIdentifier: "konex-tests-\(UUID().uuidString)")
        let now = TestNow()
        let mock = MockTransport(clock: ImmediateClock())
        let fresh = ["Cache-Control": "max-age=60"]
        mock.stub(
            MockEndpoint(
                .get("/v1/doc"), responses: [.string("alice", headers: fresh), .string("bob", headers: fresh)]))
        let cache = HTTPCache(cookieStorage: jar, now: { now.value })
        let client = KonexClient(baseURL: api, transport: mock, interceptors: [cache])
        func signIn(_ session: String) {
            jar.setCookie(HTTPCookie(properties: [.name: "sid", .value: session, .domain: "api.test", .path: "/"])!)
        }
        signIn("alice-session")
        #expect(try await client.request("doc").responseString() == "alice")
        signIn("bob-session")
        #expect(try await client.request("doc").responseString() == "bob")
    }

    @Test func aPartitionKeepsEntriesAcrossATokenRefreshAndRemoveAllSignsOut() async throws {
        let bench = CacheBench()
        bench.serve(["Cache-Control": "max-age=60"], then: [.string("other", headers: ["Cache-Control": "max-age=60"])])
        bench.cache.partition = "account-1"
        _ = try await bench.get(["Authorization": "Bearer old"])
        #expect(try await bench.get(["Authorization": "Bearer refreshed"]).source == .cache)
        bench.cache.partition = "account-2"
        #expect(try await bench.get(["Authorization": "Bearer refreshed"]).value == "other")
        bench.cache.removeAll()
        #expect(try await bench.get(policy: .returnCacheDataDontLoad).statusCode == 504)
    }
}
