import Foundation
import Konex
import KonexTesting
import Testing

/// What the README's snippets promise, run against mocks, section by section. The snippets themselves are compiled
/// from README.md's own text (scripts/readme-snippets writes KonexTestingTests/Readme/ReadmeSnippets.swift, and
/// scripts/test checks it is current); these tests check that they do what the README says.
@Suite struct ReadmeTests {
    struct Post: Codable, Sendable, Equatable {  // Codable (the README says Decodable) so mocks can encode it
        let id: Int
        let title: String
    }

    struct GetPosts: KonexRequest {
        let path = "/posts"
    }

    @Test func quickStart() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/posts"), .json([["id": 1, "title": "Hello"]] as JSON))
        let client = KonexClient(baseURL: URL(string: "https://jsonplaceholder.typicode.com")!, transport: mock)
        let lines = Lock<[String]>([])
        let posts = try await client.request(GetPosts())
            .withPlugin(LoggingPlugin(sink: { @Sendable line in lines.withLock { $0.append(line) } }))
            .validate()
            .responseArray(of: Post.self)
        #expect(posts == [Post(id: 1, title: "Hello")])
        #expect(lines.value.count == 2)
    }

    struct Search: KonexRequest {
        let query: String
        var path: String { "/search" }
        var parameters: Parameters? { ["q": .string(query), "page": 2, "tags": ["swift", "linux"]] }
    }

    class APIRequest: KonexBasicRequest, @unchecked Sendable {
        override var headers: [String: String]? { ["Accept": "application/json"] }
    }

    final class GetProfile: APIRequest, @unchecked Sendable {
        override var path: String { "/me" }
    }

    @Test func requestStylesAndSources() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/search").query(["q": "konex", "page": "2"]), .json(["ok": true] as JSON))
        mock.stub(.get("/me").header("Accept", "application/json"), .json(Post(id: 1, title: "me")))
        mock.stub(.get("/posts/1"), .json(Post(id: 1, title: "one")))
        let client = KonexClient.mocked(mock)
        #expect(try await client.request(Search(query: "konex")).validate().responseJSON()["ok"] == true)
        #expect(try await client.request(GetProfile()).responseObject(of: Post.self).title == "me")
        #expect(try await client.request("/posts/1").responseObject(of: Post.self).title == "one")
        #expect(mock.requests[0].url?.query == "page=2&q=konex&tags=swift&tags=linux")
        let brackets = KonexClient(
            baseURL: URL(string: "https://api.test")!,
            urlEncoding: URLEncoding(arrayEncoding: .brackets, boolEncoding: .numeric),
            transport: mock)
        _ = try? await brackets.request(Search(query: "konex")).response()
        #expect(mock.requests.last?.url?.query == "page=2&q=konex&tags%5B%5D=swift&tags%5B%5D=linux")
    }

    @Test func clientConfiguration() async throws {
        let mock = MockTransport(clock: ImmediateClock()).stubbing(
            .anything, .string(")]}'{\"id\": 1, \"title\": \"x\"}"))
        let client = KonexClient(
            baseURL: URL(string: "https://api.example.com/v1")!, headers: ["Accept": "application/json"],
            transport: mock, timeout: .seconds(15), maximumResponseSize: 10_000_000)
        client.plugins.append(LoggingPlugin(sink: { @Sendable _ in }))
        client.responseValidators = [.statusCode(200..<300)]
        client.responseProcessors = [.stripPrefix(")]}'")]
        client.adapters = [.bearer("token")]
        client.retriers = [RetryPolicy()]
        #expect(try await client.request("/anything").responseObject(of: Post.self).id == 1)
        #expect(mock.requests[0].header("Authorization") == "Bearer token")
        #expect(mock.requests[0].request.timeoutInterval == 15)
    }

    @Test func chainOfComponents() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(
            .get("/posts"), .string(")]}'{\"data\": [{\"id\": 1, \"title\": \"t\"}]}", contentType: "application/json"))
        let client = KonexClient.mocked(mock)
        let posts = try await client.request(GetPosts())
            .withAdapter(.bearer("token"))
            .validate(.statusCode(200..<300))
            .validate(.contentType(["application/json"]))
            .validate { _, data in if data.isEmpty { throw ValidationFailure("empty") } }
            .process(.stripPrefix(")]}'"))
            .process(.keyPath("data"))
            .responseArray(of: Post.self)
        #expect(posts == [Post(id: 1, title: "t")])
    }

    struct APIError: Decodable, Sendable { let message: String }

    @Test func typedErrorBody() async throws {
        let client = KonexClient.mocked(
            MockTransport(clock: ImmediateClock()).stubbing(
                .get("/me"), .json(["message": "expired"] as JSON, status: 401)))
        do {
            _ = try await client.request(GetProfile()).validate().responseObject(
                of: Post.self, errorType: APIError.self)
            Issue.record("expected a 401")
        } catch let error as KonexError {
            #expect(error.errorBody(as: APIError.self)?.message == "expired")
            #expect(error.statusCode == 401)
        }
    }

    @Test func retryAndTokenRefresh() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/me").header("Authorization", "Bearer fresh"), .json(Post(id: 1, title: "me")))
        mock.stub(.get("/me"), .status(401))
        let client = KonexClient.mocked(mock)
        let auth = TokenAuthenticator(credential: .init(accessToken: "stale"), refreshBeforeExpiry: .seconds(60)) { _ in
            .init(accessToken: "fresh")
        }
        client.adapters = [auth]
        client.retriers = [auth, RetryPolicy()]
        #expect(try await client.request(GetProfile()).validate().responseObject(of: Post.self).title == "me")
    }

    @Test func multipartUploadAndDownload() async throws {
        var form = MultipartFormData()
        form.append("Ada", name: "author")
        form.append(Data([0x89, 0x50]), name: "avatar", fileName: "ada.png", contentType: "image/png")
        struct Upload: KonexRequest {
            let form: MultipartFormData
            let path = "/upload"
            let method: HTTPMethod = .post
            var body: RequestBody? { .multipart(form) }
        }
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.post("/upload"), .status(201))
        mock.stub(.get("/exports/q3.pdf"), .data(Data("%PDF".utf8), contentType: "application/pdf"))
        let client = KonexClient.mocked(mock)
        _ = try await client.request(Upload(form: form)).validate().response()
        #expect(mock.requests[0].header("Content-Type") == form.contentType)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("konex-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let saved = try await client.request("/exports/q3.pdf").validate()
            .onProgress { _ in }
            .download(to: folder.appendingPathComponent("q3.pdf"))
        #expect(try Data(contentsOf: saved.value) == Data("%PDF".utf8))
    }

    @Test func mockEndpointsSection() async throws {
        struct User: Codable, Sendable, Equatable {
            let id: Int
            let name: String
        }
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/users/{id}"), .json(User(id: 1, name: "Ada")))
        mock.stub(.get("/flaky"), .status(503), .status(503), .json(["ok": true] as JSON))
        mock.stub(.get("/slow"), .json(["done": true] as JSON).delayed(by: .seconds(3)))
        mock.stub(.get("/offline"), .fault(.notConnected))
        let client = KonexClient.mocked(mock)
        #expect(try await client.request("/users/1").responseObject(of: User.self) == User(id: 1, name: "Ada"))
        #expect(
            try await client.request("/flaky").validate().retry(RetryPolicy(maximumAttempts: 3)).responseJSON()["ok"]
                == true)
        #expect(try await client.request("/slow").responseJSON()["done"] == true)
        await #expect(throws: KonexError.self) { try await client.request("/offline").response() }
        #expect(mock.requests.count == 6)
        try mock.verifyAllEndpointsUsed()
    }
}
