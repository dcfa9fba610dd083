import Foundation
import Konex
import KonexTesting

/// `--only micro`: the cost of each building block of one mocked request, to read beside a profile.
func micro() async throws {
    let n = 200_000
    func time(_ name: String, _ body: () async throws -> Void) async rethrows {
        let start = ContinuousClock.now
        for _ in 0..<n { try await body() }
        print(name, String(format: "%.3f µs", (ContinuousClock.now - start) / .seconds(1) / Double(n) * 1e6))
    }
    let body = try JSONEncoder().encode(Small(id: 1, title: "benchmark", done: false))
    let mock = MockTransport(clock: ImmediateClock(), journalLimit: 0)
    mock.stub(.get("/small"), .data(body, contentType: "application/json"))
    let client = KonexClient(baseURL: URL(string: "https://bench.test")!, transport: mock, clock: ImmediateClock())
    let request = client.request("/small")
    let built = TransportRequest(head: RequestHead(method: .get, url: URL(string: "https://bench.test/small")!))
    await time("URL(string:)") { _ = URL(string: "https://bench.test/small") }
    await time("URLRequest(url:)") { _ = URLRequest(url: built.url) }
    try await time("mock.send") { _ = try await mock.data(for: built) }
    try await time("responseData") { _ = try await request.responseData() }
    // For `perf record`: KONEX_BENCH_PROFILE=1 repeats the full request path long enough to sample.
    if ProcessInfo.processInfo.environment["KONEX_BENCH_PROFILE"] == "1" {
        for _ in 0..<2_000_000 { _ = try await request.responseData() }
    }
    await time("Date()+3 clocks") {
        _ = Date()
        _ = ContinuousClock.now
        _ = ContinuousClock.now
        _ = ContinuousClock.now
    }
    await time("httpMethod get") { _ = built.httpMethod }
    let smallURL = built.url
    await time("URLRequest(url:), fresh") { _ = URLRequest(url: smallURL) }
    await time("URLRequest(url:) + setValue(Authorization)") {
        var request = URLRequest(url: smallURL)
        request.setValue("Bearer benchmark-token", forHTTPHeaderField: "Authorization")
        _ = request
    }
    let authenticator = TokenAuthenticator(
        credential: .init(accessToken: "benchmark-token"), refresh: { _ in .init(accessToken: "new") })
    try await time("RequestHead + TokenAuthenticator.adapt") {
        _ = try await authenticator.adapt(TransportRequest(head: RequestHead(method: .get, url: smallURL)))
    }
    await time("header read (absent)") { _ = built.value(forHTTPHeaderField: "Cache-Control") }
    await time("url.absoluteString") { _ = built.url.absoluteString }
    let keyCache = HTTPCache()
    await time("HTTPCache.key(for:)") { _ = keyCache.key(for: built) }
    let cachedMock = MockTransport(clock: ImmediateClock(), journalLimit: 0)
    cachedMock.stub(
        .get("/small"), .data(body, contentType: "application/json", headers: ["Cache-Control": "max-age=3600"]))
    let cache = HTTPCache()
    let cachedClient = KonexClient(
        baseURL: URL(string: "https://bench.test")!, transport: cachedMock, clock: ImmediateClock(),
        interceptors: [cache])
    let cachedRequest = cachedClient.request("/small")
    _ = try await cachedRequest.responseData()
    try await time("responseData, cache hit") { _ = try await cachedRequest.responseData() }
    let coalescer = RequestCoalescer()
    let head = ResponseHead(statusCode: 200, url: built.url)
    let replyNext = TransportNext { _ in TransportReply(data: body, response: head) }

    try await time("RequestCoalescer.intercept, alone") { _ = try await coalescer.intercept(built, next: replyNext) }
    let next = TransportNext { _ in throw URLError(.badURL) }
    try await time("HTTPCache.intercept, hit") { _ = try await cache.intercept(built, next: next) }
    await time("url.path") { _ = built.url.path(percentEncoded: false) }

    // Konex's own share of `urlprotocol_small`: the same chain over a transport that answers at once, beside what the
    // raw loop does besides `data(for:)` (a fresh `URLRequest` and a fresh decoder).
    let instant = InstantTransport(body: body, url: built.url)
    let instantClient = KonexClient(baseURL: URL(string: "https://bench.test")!, transport: instant)
    func rawEquivalent() async throws {
        let (data, response) = try await instant.data(for: URLRequest(url: smallURL))
        guard response.statusCode == 200 else { throw ServerError("bad status") }
        _ = try JSONDecoder().decode(Small.self, from: data)
    }
    func viaKonex() async throws {
        _ = try await instantClient.request("/small").validate().responseObject(of: Small.self)
    }
    try await time("instant: data + JSONDecoder().decode", rawEquivalent)
    try await time("instant: request(path).validate().responseObject", viaKonex)
    try await time("instant: request(URLRequest).validate().responseObject") {
        _ = try await instantClient.request(URLRequest(url: smallURL)).validate().responseObject(of: Small.self)
    }
    try await time("instant: request(path).responseData") {
        _ = try await instantClient.request("/small").responseData()
    }
    let sharedDecoder = JSONDecoder()
    try await time("decode Small, fresh JSONDecoder") { _ = try JSONDecoder().decode(Small.self, from: body) }
    try await time("decode Small, shared JSONDecoder") { _ = try sharedDecoder.decode(Small.self, from: body) }
    // KONEX_BENCH_PROFILE=instant|instant-raw: one of the two sides above, KONEX_BENCH_PROFILE_N times (3,000,000),
    // for `perf record`, or for `perf stat` of a uprobe (run once with N=0 and subtract).
    let profiled = ProcessInfo.processInfo.environment["KONEX_BENCH_PROFILE"]
    if profiled == "instant" || profiled == "instant-raw" {
        let times = Int(ProcessInfo.processInfo.environment["KONEX_BENCH_PROFILE_N"] ?? "") ?? 3_000_000
        for _ in 0..<times { try await profiled == "instant" ? viaKonex() : rawEquivalent() }
    }
}

/// Answers every request at once with the same body and head: no matching, no journal.
struct InstantTransport: Transport {
    let body: Data
    let head: ResponseHead

    init(body: Data, url: URL) {
        self.body = body
        head = ResponseHead(
            HTTPURLResponse(
                url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Type": "application/json"])!
        )
    }

    func send(_ request: TransportRequest, context: TransportContext) async throws -> (ResponseHead, ResponseBody) {
        (head, ResponseBody(body))
    }
}
