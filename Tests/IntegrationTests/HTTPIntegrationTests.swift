import Foundation
import Konex
import KonexTesting
import TestSupport
import Testing

@Suite(.enabled(if: Server.isAvailable, Server.skipReason))
struct HTTPIntegrationTests {
    @Test func trickyQueryParametersAreEchoedExactly() async throws {
        struct Search: KonexRequest {
            let path = "/get"
            var parameters: Parameters? {
                ["q": "a b&c=d+e", "lang": "日本語 ☕", "tags": ["x", "y z"], "empty": "", "filter": ["open": true]]
            }
        }
        let echo = try await Server.client().request(Search()).validate().responseObject(of: Echo.self)
        #expect(echo.args["q"] == .one("a b&c=d+e"))
        #expect(echo.args["lang"] == .one("日本語 ☕"))
        #expect(echo.args["tags"] == .many(["x", "y z"]))
        #expect(echo.args["empty"] == .one(""))
        #expect(echo.args["filter[open]"] == .one("true"))
    }

    @Test func lowerCaseHeaderNamesFromARealServerAreFoundInAnyCase() async throws {
        let response = try await Server.client().request("/response-headers?etag=abc&x-lower-case=yes").validate()
            .response()
        #expect(response.headers["ETag"] == "abc")
        #expect(response.headers["X-Lower-Case"] == "yes")
        #expect(response.headers.fields.contains { $0.name == "etag" || $0.name == "Etag" })
    }

    @Test(arguments: [
        ("/anything/a b", "/anything/a%20b"),
        ("/anything/x|y", "/anything/x%7Cy"),
        ("/anything/café", "/anything/caf%C3%A9"),
        ("/anything/100%", "/anything/100%25"),
        ("/anything/a:b@c;d=e", "/anything/a:b@c;d=e"),
        ("/anything/p?q=a b|é", "/anything/p?q=a%20b%7C%C3%A9"),
    ])
    func pathsWithSpacesReservedAndNonASCIITextRoundTrip(path: String, sent: String) async throws {
        // httpbin decodes the path before echoing it: what it understood is what the caller wrote.
        let echo = try await Server.client().request(path).validate().responseObject(of: Echo.self)
        #expect(Self.decoded(echo.url) == Server.url!.absoluteString + path)
        // The bytes on the wire, read off a raw socket.
        let server = try MisbehavingServer(reply: Data("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n".utf8))
        let client = KonexClient(
            baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
            transport: Live.transport(), timeout: .seconds(10))
        _ = try await client.request(path).validate().response()
        #expect(server.requestLines == ["GET \(sent) HTTP/1.1"])
    }

    /// Percent-decodes the valid `%XX` escapes and keeps anything else as it is.
    static func decoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        var input = Array(text.utf8)[...]
        while let byte = input.popFirst() {
            if byte == UInt8(ascii: "%"), input.count >= 2,
                let value = UInt8(String(decoding: input.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                input = input.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func theObservingSendWorksOverFoundationNetworkingToo() async throws {
        // Apple platforms route requests through it (phases and upload progress); on Linux it must simply work.
        let phases = Lock<TransferPhases?>(nil)
        let (response, body) = try await URLSessionTransport(configuration: .ephemeral).send(
            TransportRequest(URLRequest(url: Server.url!.appendingPathComponent("json"))),
            context: TransportContext(onPhases: { phases.value = $0 }))
        #expect(response.statusCode == 200)
        #expect(try await !body.collect(upTo: 1 << 20).isEmpty)
        #if canImport(FoundationNetworking)
            #expect(phases.value == nil)  // FoundationNetworking never delivers URLSessionTaskMetrics
        #endif
    }

    struct Anything: KonexRequest {
        var method: HTTPMethod
        var body: RequestBody?
        var parameters: Parameters?
        var headers: [String: String]?
        var path: String { "/anything" }
    }

    @Test(arguments: [HTTPMethod.post, .put, .patch, .delete])
    func jsonBodiesForEveryMethod(method: HTTPMethod) async throws {
        let request = Anything(method: method, body: .json(["title": "Hello", "n": 1] as JSON))
        let echo = try await Server.client().request(request).validate().responseObject(of: Echo.self)
        #expect(echo.method == method.rawValue)
        #expect(echo.json == ["title": "Hello", "n": 1])
        #expect(echo.headers["Content-Type"] == "application/json")
    }

    @Test func parametersBecomeAJSONBodyForPost() async throws {
        let echo = try await Server.client().request(Anything(method: .post, parameters: ["a": [1, 2], "b": nil]))
            .validate().responseObject(of: Echo.self)
        #expect(echo.json == ["a": [1, 2], "b": nil])
        #expect(echo.args.isEmpty)
    }

    @Test func formAndRawBodies() async throws {
        let client = Server.client()
        let form = try await client.request(
            Anything(method: .post, body: .form(["user": "ada lovelace", "sym": "&=+"]))
        )
        .validate().responseObject(of: Echo.self)
        #expect(form.form?["user"] == .one("ada lovelace"))
        #expect(form.form?["sym"] == .one("&=+"))
        let raw = try await client.request(Anything(method: .put, body: .text("plain text ✓")))
            .validate().responseObject(of: Echo.self)
        #expect(raw.data == "plain text ✓")
        #expect(raw.headers["Content-Type"] == "text/plain; charset=utf-8")
    }

    @Test func defaultAndPerRequestHeaders() async throws {
        struct Headers: KonexRequest {
            let path = "/headers"
            var headers: [String: String]? { ["X-Request": "per-request", "X-Both": "request wins"] }
        }
        struct Echoed: Decodable { var headers: [String: String] }
        let client = Server.client(headers: ["X-Client": "default", "X-Both": "client"])
        let echoed = try await client.request(Headers()).withAdapter(.header("X-Adapter", "adapted"))
            .validate().responseObject(of: Echoed.self)
        #expect(echoed.headers["X-Client"] == "default")
        #expect(echoed.headers["X-Request"] == "per-request")
        #expect(echoed.headers["X-Both"] == "request wins")
        #expect(echoed.headers["X-Adapter"] == "adapted")
    }

    @Test(arguments: [200, 201, 204, 301, 304, 400, 401, 404, 418, 429, 500, 503])
    func everyStatusFamilyWithValidate(status: Int) async throws {
        let transport = Live.transport(redirectPolicy: .doNotFollow)
        let client = Server.client(transport: transport)
        let result = await Result { try await client.request("/status/\(status)").validate().response() }
        switch result {
        case .success(let response):
            #expect((200..<300).contains(status))
            #expect(response.statusCode == status)
        case .failure(let error):
            let konex = try #require(error as? KonexError)
            #expect(!(200..<300).contains(status))
            #expect(konex.stage == .validation)
            #expect(konex.statusCode == status)
            #expect(konex.message == "unacceptable status code \(status) (expected 200..<300)")
        }
    }

    @Test func typedErrorBodyFromARealResponse() async throws {
        struct Slideshow: Decodable, Sendable {
            struct Show: Decodable, Sendable { var title: String }
            var slideshow: Show
        }
        let error = try await requireThrows(KonexError.self) {
            try await Server.client().request("/json").validate(statusCode: [201])
                .responseData()
        }
        #expect(error.statusCode == 200)
        let typed = try await requireThrows(KonexError.self) {
            try await Server.client().request("/json").validate(statusCode: [201])
                .responseObject(of: Empty.self, errorType: Slideshow.self)
        }
        #expect(typed.errorBody(as: Slideshow.self)?.slideshow.title == "Sample Slide Show")
    }

    @Test(arguments: ["/redirect/3", "/absolute-redirect/2", "/redirect-to?url=%2Fget&status_code=307"])
    func redirectsAreFollowed(path: String) async throws {
        let response = try await Server.client().request(path).validate().response(of: Echo.self)
        #expect(response.value.url.hasSuffix("/get"))
        #expect(response.response.url.path == "/get")
    }

    @Test func redirectLimitReturnsTheLastRedirect() async throws {
        let transport = Live.transport(redirectPolicy: .limit(1))
        let response = try await Server.client(transport: transport).request("/redirect/3").response()
        #expect(response.statusCode == 302)
        #expect(response.value(forHTTPHeaderField: "Location") == "/relative-redirect/1")
        let none = Live.transport(redirectPolicy: .doNotFollow)
        #expect(try await Server.client(transport: none).request("/redirect/1").response().statusCode == 302)
    }

    @Test func timeoutIsATransportErrorThatSaysSo() async throws {
        let started = ContinuousClock.now
        let error = try await requireThrows(KonexError.self) {
            try await Server.client(timeout: .milliseconds(500)).request("/delay/5").response()
        }
        #expect(error.stage == .transport)
        #expect(error.isTimeout)
        #expect(ContinuousClock.now - started < .seconds(5 * 9))  // a hang detector, not a speed target (TSan is slow)
    }

    @Test func aBodyDrippedWithinTheIdleTimeoutStillEndsAtTheTotalTimeout() async throws {
        // One byte every 2.5 s never leaves the connection silent for the 5 s timeout; only the total bounds it.
        let started = ContinuousClock.now
        let error = try await requireThrows(KonexError.self) {
            try await Server.client(timeout: .seconds(5)).request("/drip?numbytes=40&duration=100&delay=0")
                .totalTimeout(.seconds(2)).responseData()
        }
        #expect(error.stage == .transport)
        #expect(error.isTimeout)
        #expect(error.message.contains("total timeout"), "\(error.message)")
        // A hang detector, not a speed target (the thread sanitizer under a full suite has stalled a run near 40 s):
        // without the limit the call would last the body's 100 s.
        #expect(ContinuousClock.now - started < .seconds(80))
    }

    @Test(arguments: ["gzip", "deflate"])
    func compressedBodiesAreDecoded(encoding: String) async throws {
        let json = try await Server.client().request("/\(encoding)").validate().responseJSON()
        #expect(json[encoding == "gzip" ? "gzipped" : "deflated"] == true)
    }

    @Test func brotliIsDecodedOrReportedPrecisely() async throws {
        // libcurl builds differ: with brotli support the body is decoded; without, Konex must say what it got.
        let result = await Result { try await Server.client().request("/brotli").validate().responseJSON() }
        switch result {
        case .success(let json): #expect(json["brotli"] == true)
        case .failure(let error):
            let konex = try #require(error as? KonexError)
            #expect(konex.stage == .decoding)
            #expect(konex.statusCode == 200)
        }
    }

    @Test func binaryBodiesAreByteExact() async throws {
        let client = Server.client()
        let png = try await client.request("/image/png").validate(contentType: ["image/png"]).response()
        #expect(png.data.count == Int(png.value(forHTTPHeaderField: "Content-Length") ?? "") ?? -1)
        #expect(png.data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(png.data.suffix(12) == Data([0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]))
        // Chunked random bytes arrive whole (httpbin's seeded generator is shared between its threads, so two
        // fetches are not comparable; the count and the spread of byte values are).
        let streamed = try await client.request("/stream-bytes/70000?chunk_size=4096").validate().responseData()
        #expect(streamed.count == 70_000)
        #expect(Set(streamed).count == 256)
        // Every byte value survives a round trip through a binary request body (echoed back as base64).
        let bytes = Data((0...255).map(UInt8.init) + (0...255).reversed().map(UInt8.init))
        let echo = try await client.request(Anything(method: .post, body: .data(bytes))).validate().responseObject(
            of: Echo.self)
        let base64 = try #require(echo.data?.components(separatedBy: "base64,").last)
        #expect(Data(base64Encoded: base64) == bytes)
    }

    @Test func largeBodiesBothWays() async throws {
        let payload = String(repeating: "0123456789abcdef", count: 200_000)  // 3.2 MB
        let echo = try await Server.client().request(Anything(method: .post, body: .text(payload)))
            .validate().responseObject(of: Echo.self)
        #expect(echo.data?.count == payload.count)
        #expect(echo.data == payload)
    }

    @Test func basicAuthAndA401ThatDoesNotHang() async throws {
        struct Authenticated: Decodable {
            var authenticated: Bool
            var user: String
        }
        let client = Server.client()
        let ok = try await client.request("/basic-auth/ada/s3cret").withAdapter(.basic(user: "ada", password: "s3cret"))
            .validate().responseObject(of: Authenticated.self)
        #expect(ok.authenticated && ok.user == "ada")
        let started = ContinuousClock.now
        let error = try await requireThrows(KonexError.self) {
            try await client.request("/basic-auth/ada/s3cret").timeout(.seconds(120)).validate().response()
        }
        #expect(error.statusCode == 401)
        // A hang detector, not a speed target: far below the 120 s timeout, far above a loaded machine's stalls.
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    @Test func bearerAuth() async throws {
        struct Token: Decodable {
            var authenticated: Bool
            var token: String
        }
        let client = Server.client()
        let token = try await client.request("/bearer").withAdapter(.bearer("t0k3n")).validate().responseObject(
            of: Token.self)
        #expect(token.token == "t0k3n")
        let error = try await requireThrows(KonexError.self) {
            try await client.request("/bearer").validate().response()
        }
        #expect(error.statusCode == 401)
    }

    @Test func cookiesGoOutAndComeBack() async throws {
        struct Cookies: Decodable { var cookies: [String: String] }
        let client = Server.client()
        let sent = try await client.request("/cookies").withAdapter(.header("Cookie", "flavour=oat; size=large"))
            .validate().responseObject(of: Cookies.self)
        #expect(sent.cookies == ["flavour": "oat", "size": "large"])
        let set = try await client.request("/response-headers?Set-Cookie=session%3Dabc").validate().response()
        #expect(set.value(forHTTPHeaderField: "Set-Cookie")?.contains("session=abc") == true)
    }

    @Test func hundredConcurrentRequestsThroughOneClient() async throws {
        let client = Server.client()
        let indices = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<100 {
                group.addTask {
                    let echo = try await client.request("/anything?i=\(index)").validate().responseObject(
                        of: Echo.self)
                    guard case .one(let value) = echo.args["i"] else { return nil }
                    return value
                }
            }
            return try await group.reduce(into: [String]()) { if let value = $1 { $0.append(value) } }
        }
        #expect(Set(indices) == Set((0..<100).map(String.init)))
    }

    @Test func connectionRefusedIsATransportError() async throws {
        // Port 9 (discard) has no listener on these machines.
        let client = KonexClient(
            baseURL: URL(string: "http://127.0.0.1:9")!, transport: Live.transport())
        let error = try await requireThrows(KonexError.self) {
            try await client.request("/get").timeout(.seconds(5)).response()
        }
        #expect(error.stage == .transport)
        #expect(error.transportFailure == .cannotConnectToHost)
        #expect(error.description.contains("GET http://127.0.0.1:9/get"))
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
