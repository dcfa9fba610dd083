import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// A wall clock the test moves by hand.
final class TestNow: Sendable {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    private let date = Lock(TestNow.start)
    var value: Date { date.value }
    func advance(by seconds: TimeInterval) { date.withLock { $0 += seconds } }
}

/// RFC 9110 IMF-fixdate.
func httpDate(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: date)
}

/// A cache in front of a mock, on a wall clock the test moves.
struct CacheBench {
    let now = TestNow()
    let mock = MockTransport(clock: ImmediateClock())
    let cache: HTTPCache
    let client: KonexClient

    init(shared: Bool = false, storage: any HTTPCacheStorage = MemoryCacheStorage()) {
        let now = self.now
        cache = HTTPCache(storage: storage, isShared: shared, now: { now.value })
        client = KonexClient(baseURL: api, transport: mock, interceptors: [cache])
    }

    /// `v1` with `headers` (and a `Date` of now), then whatever `then` says.
    func serve(_ headers: [String: String], then: [MockResponse] = [.string("v2")]) {
        let first = MockResponse.string("v1", headers: ["Date": httpDate(now.value)].merging(headers) { $1 })
        mock.stub(MockEndpoint(.get("/v1/doc"), responses: [first] + then))
    }

    func get(_ headers: [String: String] = [:], policy: URLRequest.CachePolicy? = nil) async throws -> Response<String>
    {
        var request = client.request("doc")
        for (name, value) in headers { request = request.withAdapter(.header(name, value)) }
        if let policy { request = request.cachePolicy(policy) }
        return try await request.response().map { String(decoding: $0, as: UTF8.self) }
    }
}

@Suite struct HTTPCacheDirectiveTests {
    struct Row: CustomTestStringConvertible, Sendable {
        let name: String
        var headers: [String: String]
        var after: TimeInterval
        var then: MockResponse = .string("v2")
        var asked: [String: String] = [:]
        var shared = false
        var source: ResponseSource
        var body: String
        var calls: Int
        var conditional: String? = nil
        var testDescription: String { name }
    }

    static let etag = #""a""#
    static let rows: [Row] = [
        Row(
            name: "fresh within max-age", headers: ["Cache-Control": "max-age=60"], after: 30, source: .cache,
            body: "v1", calls: 1),
        Row(
            name: "stale without a validator is fetched again", headers: ["Cache-Control": "max-age=60"], after: 61,
            source: .network, body: "v2", calls: 2),
        Row(
            name: "stale with an ETag revalidates; the 304 serves the stored body",
            headers: ["Cache-Control": "max-age=60", "ETag": etag], after: 61, then: .status(304), source: .revalidated,
            body: "v1", calls: 2, conditional: etag),
        Row(
            name: "no-store keeps nothing", headers: ["Cache-Control": "no-store, max-age=60"], after: 1,
            source: .network, body: "v2", calls: 2),
        Row(
            name: "no-cache revalidates even when fresh",
            headers: ["Cache-Control": "no-cache, max-age=60", "ETag": etag], after: 1, then: .status(304),
            source: .revalidated, body: "v1", calls: 2, conditional: etag),
        Row(
            name: "Age counts against max-age", headers: ["Cache-Control": "max-age=60", "Age": "50"], after: 20,
            source: .network, body: "v2", calls: 2),
        Row(
            name: "Age within max-age", headers: ["Cache-Control": "max-age=60", "Age": "50"], after: 5, source: .cache,
            body: "v1", calls: 1),
        Row(
            name: "Expires in the future", headers: ["Expires": httpDate(TestNow.start + 120)], after: 100,
            source: .cache, body: "v1", calls: 1),
        Row(
            name: "Expires passed", headers: ["Expires": httpDate(TestNow.start + 120)], after: 130, source: .network,
            body: "v2", calls: 2),
        Row(
            name: "an invalid Expires means expired", headers: ["Expires": "0", "ETag": etag], after: 1,
            then: .status(304), source: .revalidated, body: "v1", calls: 2, conditional: etag),
        Row(
            name: "heuristic: 10 % of the age of Last-Modified, capped at a day",
            headers: ["Last-Modified": httpDate(TestNow.start - 10 * 86_400)], after: 23 * 3_600, source: .cache,
            body: "v1", calls: 1),
        Row(
            name: "heuristic freshness ends after a day",
            headers: ["Last-Modified": httpDate(TestNow.start - 10 * 86_400)], after: 25 * 3_600, source: .network,
            body: "v2", calls: 2),
        Row(
            name: "a malformed max-age is stale", headers: ["Cache-Control": "max-age=abc", "ETag": etag], after: 1,
            then: .status(304), source: .revalidated, body: "v1", calls: 2, conditional: etag),
        Row(
            name: "the first of duplicated directives wins", headers: ["Cache-Control": "max-age=60, max-age=0"],
            after: 30, source: .cache, body: "v1", calls: 1),
        Row(
            name: "a quoted max-age is accepted", headers: ["Cache-Control": #"max-age="60""#], after: 30,
            source: .cache, body: "v1", calls: 1),
        Row(
            name: "a huge max-age is clamped, not overflowed",
            headers: ["Cache-Control": "max-age=99999999999999999999999"], after: 10 * 365 * 86_400, source: .cache,
            body: "v1", calls: 1),
        Row(
            name: "stale-if-error serves the stored response over a 503",
            headers: ["Cache-Control": "max-age=60, stale-if-error=600"], after: 61, then: .status(503), source: .cache,
            body: "v1", calls: 2),
        Row(
            name: "stale-if-error ends with its window", headers: ["Cache-Control": "max-age=60, stale-if-error=600"],
            after: 700, then: .status(503), source: .network, body: "", calls: 2),
        Row(
            name: "must-revalidate forbids stale-if-error",
            headers: ["Cache-Control": "max-age=60, must-revalidate, stale-if-error=600"], after: 61,
            then: .status(503), source: .network, body: "", calls: 2),
        Row(
            name: "Vary: * is never stored", headers: ["Cache-Control": "max-age=60", "Vary": "*"], after: 1,
            source: .network, body: "v2", calls: 2),
        Row(
            name: "a private cache keeps private responses", headers: ["Cache-Control": "private, max-age=60"],
            after: 1, source: .cache, body: "v1", calls: 1),
        Row(
            name: "a shared cache does not keep private responses", headers: ["Cache-Control": "private, max-age=60"],
            after: 1, shared: true, source: .network, body: "v2", calls: 2),
        Row(
            name: "a private cache ignores s-maxage", headers: ["Cache-Control": "s-maxage=600, max-age=10"], after: 30,
            source: .network, body: "v2", calls: 2),
        Row(
            name: "a shared cache honours s-maxage", headers: ["Cache-Control": "s-maxage=600, max-age=10"], after: 30,
            shared: true, source: .cache, body: "v1", calls: 1),
        Row(
            name: "request no-cache revalidates a fresh response",
            headers: ["Cache-Control": "max-age=60", "ETag": etag], after: 1, then: .status(304),
            asked: ["Cache-Control": "no-cache"], source: .revalidated, body: "v1", calls: 2, conditional: etag),
        Row(
            name: "request max-age shorter than the age", headers: ["Cache-Control": "max-age=60"], after: 30,
            asked: ["Cache-Control": "max-age=10"], source: .network, body: "v2", calls: 2),
        Row(
            name: "request max-stale accepts a stale response", headers: ["Cache-Control": "max-age=60"], after: 70,
            asked: ["Cache-Control": "max-stale=60"], source: .cache, body: "v1", calls: 1),
        Row(
            name: "request min-fresh wants more freshness left", headers: ["Cache-Control": "max-age=60"], after: 30,
            asked: ["Cache-Control": "min-fresh=40"], source: .network, body: "v2", calls: 2),
        Row(
            name: "request no-store neither reads nor keeps", headers: ["Cache-Control": "max-age=60"], after: 1,
            asked: ["Cache-Control": "no-store"], source: .network, body: "v2", calls: 2),
        Row(
            name: "a 206 is not kept", headers: ["Cache-Control": "max-age=60", "Content-Range": "bytes 0-1/4"],
            after: 1, source: .network, body: "v2", calls: 2),
    ]

    @Test(arguments: rows)
    func directive(_ row: Row) async throws {
        let bench = CacheBench(shared: row.shared)
        var headers = row.headers
        if headers["Content-Range"] != nil {
            bench.mock.stub(
                MockEndpoint(
                    .get("/v1/doc"),
                    responses: [
                        .string(
                            "v1", status: 206, headers: headers.merging(["Date": httpDate(bench.now.value)]) { $1 }),
                        row.then,
                    ]))
            headers = [:]
        } else {
            bench.serve(headers, then: [row.then])
        }
        let first = try await bench.get()
        #expect(first.source == .network)
        bench.now.advance(by: row.after)
        let second = try await bench.get(row.asked)
        #expect(second.source == row.source)
        #expect(second.value == row.body)
        #expect(bench.mock.requestCount == row.calls)
        if let conditional = row.conditional {
            #expect(bench.mock.requests.last?.header("If-None-Match") == conditional)
        }
        if row.source != .network {
            #expect(second.statusCode == 200)
            #expect(second.headers["Age"] != nil)  // a stored response says how old it is (§5.1)
        }
    }
}

@Suite struct HTTPCacheBehaviourTests {
    @Test func a304RefreshesTheStoredHeadersAndFreshness() async throws {
        let bench = CacheBench()
        bench.serve(
            ["Cache-Control": "max-age=60", "ETag": #""a""#, "X-Version": "1"],
            then: [.status(304, headers: ["Cache-Control": "max-age=600", "X-Version": "2", "Content-Length": "0"])])
        _ = try await bench.get()
        bench.now.advance(by: 61)
        let revalidated = try await bench.get()
        #expect(revalidated.source == .revalidated)
        #expect(revalidated.headers["X-Version"] == "2")
        #expect(revalidated.value == "v1")
        bench.now.advance(by: 300)
        let fresh = try await bench.get()  // fresh for 600 s from the 304, not 60 from the first answer
        #expect(fresh.source == .cache)
        #expect(fresh.value == "v1")
        #expect(bench.mock.requestCount == 2)
    }

    @Test func lastModifiedIsSentAsIfModifiedSince() async throws {
        let bench = CacheBench()
        let modified = httpDate(TestNow.start - 3_600)
        bench.serve(["Cache-Control": "no-cache", "Last-Modified": modified], then: [.status(304)])
        _ = try await bench.get()
        let second = try await bench.get()
        #expect(second.source == .revalidated)
        #expect(bench.mock.requests.last?.header("If-Modified-Since") == modified)
    }

    @Test func varyKeepsVariantsApart() async throws {
        let bench = CacheBench()
        bench.serve(["Cache-Control": "max-age=60", "Vary": "Accept-Language"])
        _ = try await bench.get(["Accept-Language": "en"])
        #expect(try await bench.get(["Accept-Language": "en"]).source == .cache)
        let french = try await bench.get(["Accept-Language": "fr"])
        #expect(french.source == .network)
        #expect(french.value == "v2")
    }

    @Test func staleWhileRevalidateServesNowAndRefreshesBehind() async throws {
        let bench = CacheBench()
        bench.serve(
            ["Cache-Control": "max-age=60, stale-while-revalidate=120", "ETag": #""a""#],
            then: [
                .status(
                    304,
                    headers: [
                        "Cache-Control": "max-age=60, stale-while-revalidate=120", "Date": httpDate(TestNow.start + 90),
                    ])
            ])
        _ = try await bench.get()
        bench.now.advance(by: 90)
        let stale = try await bench.get()
        #expect(stale.source == .cache)
        try await bench.mock.waitForRequests(2)
        #expect(bench.mock.requests.last?.header("If-None-Match") == #""a""#)
        try await WaitTimeout.wait(for: "the background revalidation stored its result") {
            (bench.cache.storage.response(forKey: "https://api.test/v1/doc").map {
                $0.responseDate == bench.now.value
            }) == true
        }
        let fresh = try await bench.get()
        #expect(fresh.source == .cache)
        #expect(Int(fresh.headers["Age"] ?? "") == 0)
        #expect(bench.mock.requestCount == 2)
    }

    @Test func cachePoliciesChooseTheMode() async throws {
        let bench = CacheBench()
        // Offline with nothing stored: 504, as only-if-cached answers (RFC 9111 §5.2.1.7).
        let nothing = try await bench.client.request("doc").cachePolicy(.returnCacheDataDontLoad).response()
        #expect(nothing.statusCode == 504)
        #expect(bench.mock.requestCount == 0)
        let fresh = ["Cache-Control": "max-age=60"]
        bench.serve(fresh, then: [.string("v2", headers: fresh), .string("v3", headers: fresh)])
        _ = try await bench.get()
        bench.now.advance(by: 3_600)
        #expect(try await bench.get(policy: .returnCacheDataDontLoad).value == "v1")  // stale, but offline
        #expect(try await bench.get(policy: .returnCacheDataElseLoad).value == "v1")
        let reloaded = try await bench.get(policy: .reloadIgnoringLocalCacheData)
        #expect(reloaded.value == "v2")
        #expect(reloaded.source == .network)
        #expect(try await bench.get().value == "v2")  // the reload was stored
        #expect(bench.mock.requestCount == 2)
        #expect(try await bench.get(policy: .reloadRevalidatingCacheData).value == "v3")  // fresh, but asked again
    }

    @Test func onlyIfCachedWithoutAnEntryIs504() async throws {
        let bench = CacheBench()
        let response = try await bench.client.request("doc").withAdapter(.header("Cache-Control", "only-if-cached"))
            .response()
        #expect(response.statusCode == 504)
        #expect(bench.mock.requestCount == 0)
    }

    @Test func aSuccessfulUnsafeMethodInvalidatesTheURL() async throws {
        let bench = CacheBench()
        bench.serve(["Cache-Control": "max-age=60"])
        bench.mock.stub(.post("/v1/doc"), .status(201))
        _ = try await bench.get()
        _ = try await bench.client.request(URLRequestPost.make()).response()
        let after = try await bench.get()
        #expect(after.source == .network)
        #expect(after.value == "v2")
    }

    @Test func aCallersOwnConditionalRequestPassesThroughAnd304IsNotStored() async throws {
        let bench = CacheBench()
        bench.mock.stub(
            MockEndpoint(.get("/v1/doc"), responses: [.status(304, headers: ["ETag": #""a""#]), .string("v2")]))
        let mine = try await bench.get(["If-None-Match": #""a""#])
        #expect(mine.statusCode == 304)
        #expect(mine.source == .network)
        let next = try await bench.get()
        #expect(next.value == "v2")
        #expect(bench.mock.requestCount == 2)
    }

    @Test func pluginsAndLogsSeeWhereAResponseCameFrom() async throws {
        let bench = CacheBench()
        bench.serve(["Cache-Control": "max-age=60"])
        let lines = Lock<[String]>([])
        bench.client.plugins = [LoggingPlugin(sink: { line in lines.withLock { $0.append(line) } })]
        _ = try await bench.get()
        _ = try await bench.get()
        let received = lines.value.filter { $0.hasPrefix("←") }
        #expect(received.count == 2)
        #expect(!received[0].contains("from cache"))
        #expect(received[1].contains("from cache"))
    }

    @Test func httpDatesInAllThreeFormsAndGarbage() {
        let expected = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == expected)
        for garbage in ["", "0", "-1", "tomorrow", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT"] {
            #expect(HTTPDate.parse(garbage) == nil, "\(garbage)")
        }
        #expect(HTTPDate.parse(httpDate(TestNow.start)) == TestNow.start)
    }
}

/// A POST to the cached URL.
enum URLRequestPost {
    static func make() -> URLRequest {
        var request = URLRequest(url: api.appendingPathComponent("doc"))
        request.httpMethod = "POST"
        return request
    }
}

extension HTTPCacheBehaviourTests {
    @Test func oneAccountIsNeverServedAnothersResponse() async throws {
        let bench = CacheBench()
        bench.serve(["Cache-Control": "max-age=60"], then: [.string("bob's", headers: ["Cache-Control": "max-age=60"])])
        let alice = try await bench.get(["Authorization": "Bearer alice"])
        let bob = try await bench.get(["Authorization": "Bearer bob"])
        #expect(alice.value == "v1")
        #expect(bob.value == "bob's")
        #expect(bob.source == .network)
        #expect(try await bench.get(["Authorization": "Bearer alice"]).source == .cache)
        #expect(try await bench.get(["Authorization": "Bearer bob"]).value == "bob's")
        #expect(bench.mock.requestCount == 2)
        let key = bench.cache.key(for: bench.mock.requests[0].sent)
        #expect(!key.contains("alice"))  // the credential itself is never part of what storage writes
    }
}
