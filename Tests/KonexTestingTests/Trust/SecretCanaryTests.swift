import Foundation
import Konex
import KonexTesting
import TestSupport
import Testing

/// Distinct canary values sent through every channel a secret travels, then searched for in every sink Konex writes
/// to: log lines at every level (bodies longer than the limit too), cURL commands, error descriptions, HAR files
/// (buffered and streamed), disk cache files and fixture reports. No canary may appear anywhere.
@Suite struct SecretCanaryTests {
    static let canaries = [
        "bearer": "CANARY-bearer-a1", "basic": "CANARY-basic-b2", "apikey": "CANARY-apikey-c3",
        "cookie": "CANARY-cookie-d4", "query": "CANARY-query-e5", "json": "CANARY-json-f6", "form": "CANARY-form-g7",
        "multipart": "CANARY-multipart-h8", "setcookie": "CANARY-setcookie-i9", "respbody": "CANARY-respbody-j0",
        "location": "CANARY-location-k1", "errbody": "CANARY-errbody-l2", "stream": "CANARY-stream-m3",
        "userinfo": "CANARY-userinfo-n4",
        // Names recognised by meaning (trust pass 2): no list names them.
        "camel": "CANARY-camel-p1", "tenantkey": "CANARY-tenantkey-p2", "nested": "CANARY-nested-p3",
        "rails": "CANARY-rails-p4", "fragment": "CANARY-fragment-p5", "username": "CANARY-username-p6",
        "oauthcode": "CANARY-oauthcode-p7", "verifier": "CANARY-verifier-p8", "notutf8": "CANARY-notutf8-p9",
    ]
    static let padding = String(repeating: "p", count: 3_000)  // every body is longer than a log's limit

    struct Login: KonexRequest {
        let path = "login?access_token=\(canaries["query"]!)&page=1"
        let method = HTTPMethod.post
        var body: RequestBody? { .json(["user": "ada", "padding": padding, "password": canaries["json"]!]) }
    }
    struct Refresh: KonexRequest {
        let path = "token"
        let method = HTTPMethod.post
        var body: RequestBody? {
            .form([
                "grant_type": "refresh_token", "refresh_token": .string(canaries["form"]!), "padding": .string(padding),
            ])
        }
    }
    struct Upload: KonexRequest {
        let path = "upload"
        let method = HTTPMethod.post
        var body: RequestBody? {
            var form = MultipartFormData()
            form.append("ada", name: "user")
            form.append(canaries["multipart"]!, name: "password")
            form.append(
                Data([0xFF, 0x00, 0xFE] + Array(padding.utf8)), name: "avatar", fileName: "a.png",
                contentType: "image/png")
            return .multipart(form)
        }
    }

    /// Credentials under names only their meaning gives away: camel case, a tenant header, Rails nesting, OAuth's
    /// code exchange, JSON inside a JSON string.
    struct Exchange: KonexRequest {
        let path = "oauth/token"
        let method = HTTPMethod.post
        var headers: [String: String]? { ["X-Tenant-Key": canaries["tenantkey"]!] }
        var body: RequestBody? {
            .form([
                "grant_type": "authorization_code", "code": .string(canaries["oauthcode"]!),
                "code_verifier": .string(canaries["verifier"]!), "user[password]": .string(canaries["rails"]!),
                "padding": .string(padding),
            ])
        }
    }
    struct Profile: KonexRequest {
        let path = "settings"
        let method = HTTPMethod.put
        var body: RequestBody? {
            .json([
                "accessToken": canaries["camel"]!, "padding": padding,
                "payload": #"{"password":"\#(canaries["nested"]!)"}"#,
            ])
        }
    }

    /// The live side: answers that carry secrets back.
    func server() -> MockTransport {
        let mock = MockTransport(clock: ImmediateClock())
        let c = Self.canaries
        mock.stub(
            .post("/v1/login"),
            .json(
                ["access_token": c["respbody"]!, "padding": Self.padding],
                headers: ["Set-Cookie": "sid=\(c["setcookie"]!)", "Cache-Control": "no-store"]))
        mock.stub(
            .post("/v1/token"),
            .json(["error": "invalid_grant", "refresh_token": c["errbody"]!, "padding": Self.padding], status: 400))
        mock.stub(.post("/v1/upload"), .status(201))
        mock.stub(
            .get("/v1/profile"),
            .string(
                Self.padding,
                headers: [
                    "Cache-Control": "max-age=60", "Vary": "Authorization, Cookie, X-API-Key",
                    "Set-Cookie": "sid=\(c["setcookie"]!); HttpOnly",
                    "Content-Location": "/v1/profile?token=\(c["location"]!)",
                ]))
        mock.stub(.get("/v1/moved"), .status(302, headers: ["Location": "/v1/next?token=\(c["location"]!)"]))
        mock.stub(.get("/v1/next"), .string("arrived"))  // the redirect is followed: its URL reaches every sink
        mock.stub(
            .get("/v1/feed"),
            .chunks(
                [.text("data: {\"token\":\"\(c["stream"]!)\",\"padding\":\"\(Self.padding)\"}\n\n")],
                contentType: "text/event-stream"))
        mock.stub(.get("/v1/gone"), .fault(.notConnected))
        mock.stub(.post("/v1/oauth/token"), .json(["token_type": "Bearer"]))
        mock.stub(.put("/v1/settings"), .status(204))
        // A byte that is not UTF-8: the body is stored as base64, and still redacted.
        mock.stub(
            .get("/v1/legacy"),
            .data(
                Data(#"{"password":""#.utf8) + Data(c["notutf8"]!.utf8) + Data(#"","padding":"\#(Self.padding)"}"#.utf8)
                    + Data([0xFF]), contentType: "application/json"))
        return mock
    }

    @Test func noCanaryReachesAnySink() async throws {
        let c = Self.canaries
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixtures = directory.appendingPathComponent("fixtures")
        try FileManager.default.createDirectory(at: fixtures, withIntermediateDirectories: true)
        let cacheFolder = directory.appendingPathComponent("cache")

        let recorder = try RecordingTransport(
            live: server(), fixture: fixtures.appendingPathComponent("session.har"), mode: .all, environment: [:])
        let cache = HTTPCache(storage: .disk(directory: cacheFolder), cookieStorage: nil)
        let client = KonexClient(
            baseURL: URL(string: "https://api.test/v1")!, transport: recorder, interceptors: [cache])
        let lines = Lock<[String]>([])
        for level in [LoggingPlugin.Level.basic, .headers, .bodies] {
            for limit in [16, 64, 100_000] {
                client.plugins.append(
                    LoggingPlugin(level: level, bodyLimit: limit) { line in lines.withLock { $0.append(line) } })
            }
        }
        let basic = Data("ada:\(c["basic"]!)".utf8).base64EncodedString()
        client.adapters = [
            .bearer(c["bearer"]!), .apiKey(c["apikey"]!, header: "X-API-Key"), .header("Cookie", "sid=\(c["cookie"]!)"),
        ]
        var texts: [String] = []

        texts.append(try await client.request(Login()).responseString())  // the response body holds a token
        for request in [client.request(Login()), client.request(Refresh()), client.request(Upload())] {
            texts.append(try await request.cURLDescription())
        }
        texts.append(
            try await client.request("profile").withAdapter(.header("Authorization", "Basic \(basic)"))
                .cURLDescription())
        do {
            _ = try await client.request(Refresh()).validate().responseData()
            Issue.record("the refresh should fail")
        } catch let error as KonexError {
            texts += [error.description, error.debugDescription, error.bodySnippet ?? ""]
        }
        do {
            _ = try await client.request("gone?token=\(c["query"]!)").responseData()
        } catch let error as KonexError {
            texts += [error.description, error.debugDescription]
        }
        _ = try await client.request(Upload()).validate().responseData()
        _ = try await client.request("profile").responseData()
        _ = try await client.request("profile").withAdapter(.header("Authorization", "Basic \(basic)")).responseData()
        _ = try await client.request("moved").responseData()
        _ = try await client.request(Exchange()).responseData()
        _ = try await client.request(Profile()).responseData()
        _ = try await client.request("legacy").responseData()
        texts.append(try await client.request(Exchange()).cURLDescription())
        texts.append(try await client.request(Profile()).cURLDescription())
        do {
            _ = try await client.request("gone#access_token=\(c["fragment"]!)&state=1").responseData()
        } catch let error as KonexError {
            texts += [error.description, error.debugDescription]
        }
        let stream = try await client.request("feed").stream()
        for try await event in stream.events() { #expect(event.data.contains(c["stream"]!)) }  // the caller sees it

        // A request built on a URL with a password in its user info.
        let userInfo = KonexClient(transport: server())
        let withUserInfo = try await userInfo.request("https://ada:\(c["userinfo"]!)@api.test/v1/profile")
            .cURLDescription()
        texts.append(withUserInfo)
        texts.append(
            try await userInfo.request("https://\(c["username"]!)@api.test/v1/profile").cURLDescription())

        try await WaitTimeout.wait(for: "the streamed entry is written") {
            ((try? HAR.load(from: fixtures.appendingPathComponent("session.har")))?.log.entries.count ?? 0) >= 10
        }
        let report = FixtureReport.check(
            FixtureDirectory(fixtures), journal: ["GET /v1/profile?token=\(c["query"]!)"])

        var sinks: [(String, Data)] = [
            ("log lines", Data(lines.value.joined(separator: "\n").utf8)),
            ("cURL and errors", Data(texts.dropFirst().joined(separator: "\n").utf8)),
            ("fixture report", Data(report.table.utf8)),
        ]
        for folder in [fixtures, cacheFolder] {
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
                sinks.append(
                    ("\(folder.lastPathComponent)/\(name)", try Data(contentsOf: folder.appendingPathComponent(name))))
            }
        }
        // Bodies a HAR file holds as base64 are read decoded: a canary inside one is found whatever its alignment.
        let archive = try HAR.load(from: fixtures.appendingPathComponent("session.har"))
        let base64Bodies = archive.log.entries.compactMap { entry in
            entry.response.content.encoding == "base64" ? Data(base64Encoded: entry.response.content.text ?? "") : nil
        }
        #expect(base64Bodies.count >= 1)
        sinks += base64Bodies.map { ("a base64 body in the HAR file", $0) }
        #expect(sinks.count >= 5)
        #expect(texts[0].contains(c["respbody"]!))  // the caller gets the token; only the sinks must not
        #expect(lines.value.count >= 9 * 8)
        for (sink, data) in sinks {
            for (channel, canary) in c {
                for form in [canary, Data(canary.utf8).base64EncodedString()] {
                    #expect(data.range(of: Data(form.utf8)) == nil, "the \(channel) canary reached \(sink)")
                }
            }
            #expect(data.range(of: Data(basic.utf8)) == nil, "the Basic credentials reached \(sink)")
        }
    }
}
