import Foundation
import Konex
import KonexTesting

// What README.md's snippets take for granted: an app's own models, endpoints and values. ReadmeSnippets.swift
// (generated from the README by scripts/readme-snippets) extends `Readme`, so these are found first; a snippet's own
// declarations shadow them.

enum Readme {
    static let api = URL(string: "https://api.test/v1")!
    static let url = URL(string: "https://api.test/v1/status")!
    static let client = KonexClient.mocked(MockTransport(clock: ImmediateClock()))
    static let authClient = client
    static let token = "token"
    static let mySession = URLSession(configuration: .ephemeral)
    static let decoder = JSONDecoder()
    static let transport = MockTransport(clock: ImmediateClock())
    static let caFile = URL(fileURLWithPath: "/tmp/ca.pem")
    static let backupPEM = ""
    static let chainPEM = ""
    static let keyPEM = ""
    static let roots: [TLSCertificate] = []
    static let encoder = JSONEncoder()
    static let snakeCaseEncoder = JSONEncoder()
    static let png = Data([0x89, 0x50, 0x4E, 0x47])
    static let multipartForm = MultipartFormData()
    static let reportURL = URL(fileURLWithPath: "/tmp/report.pdf")
    static let exportsFolder = URL(fileURLWithPath: "/tmp")
    static let saved = TokenAuthenticator.Credential(accessToken: "token")
    static let fixtures = FixtureDirectory(URL(fileURLWithPath: "/tmp/fixtures"))
    static let post = Post(id: 1, title: "Hello")
    static let created = post
    static let report = post
    static let results = [post]
    static let ok = ["ok": true] as JSON
    static let me = User(id: 1, name: "Ada")
    static let deltas = [ServerSentEvent(data: #"{"text":"Hi"}"#), ServerSentEvent(data: "[DONE]")]
    nonisolated static let logger = Logger()  // a system logger: nonisolated, as os.Logger is

    struct Post: Codable, Sendable {
        let id: Int
        let title: String
    }
    // Sent as endpoints' bodies, which are read off the caller's actor: in an app isolated to the main actor by
    // default such a model is declared `nonisolated` (Apps on the main actor, in the DocC manual, says why).
    #if compiler(>=6.2)
        nonisolated struct NewPost: Codable { let title: String }
        nonisolated struct NewUser: Codable { let name: String }
    #else
        struct NewPost: Codable, Sendable { let title: String }
        struct NewUser: Codable, Sendable { let name: String }
    #endif
    struct User: Codable, Sendable {
        let id: Int
        let name: String
    }
    struct APIError: Codable, Sendable { let message: String }
    struct ValidationFailure: Error {
        init(_ reason: String) {}
    }

    struct GetPosts: KonexRequest { let path = "/posts" }
    struct Timing: KonexPlugin {}
    struct ChatRoom: KonexRequest { let path = "/chat" }
    struct ChatLine: Codable, Sendable { let text: String }
    struct Chat: KonexRequest {
        let prompt: String
        let path = "/chat"
        let method: HTTPMethod = .post
        var body: RequestBody? { .json(["prompt": JSON.string(prompt)] as JSON) }
    }
    struct Delta: Decodable, Sendable { let text: String }
    struct Item: Decodable, Sendable { let id: Int }
    struct LiveFeed: KonexRequest { let path = "/live" }
    /// A screen model that builds its own client.
    struct ProfileScreen {
        let client = KonexClient(baseURL: URL(string: "https://api.test")!)
        func load() async throws { _ = try await client.request("/me").responseObject(of: User.self) }
    }
    struct GetAllPostsRequest: KonexRequest { let path = "/posts" }
    struct GetPost: KonexRequest {
        let id: Int
        var path: String { "/posts/\(id)" }
    }
    struct GetProfile: KonexRequest { let path = "/me" }
    struct Login: KonexRequest {
        let path = "/login"
        let method: HTTPMethod = .post
    }
    struct Refresh: KonexRequest {
        let token: String?
        let path = "/refresh"
        let method: HTTPMethod = .post
    }
    struct CreatePost: KonexRequest {
        let path = "/posts"
        let method: HTTPMethod = .post
    }
    struct Upload: KonexRequest {
        let path = "/upload"
        let method: HTTPMethod = .post
    }

    actor Spinner {
        static let shared = Spinner()
        func start() {}
        func stop() {}
    }

    /// A counting semaphore, for the "Writing your own" interceptor.
    struct Slots: Sendable {
        nonisolated func take() async {}
        nonisolated func give() {}
    }
    struct Logger: Sendable {
        nonisolated func debug(_ message: String) {}
    }

    static func show(_ value: Any) {}
    static let mock = MockTransport(clock: ImmediateClock())
}
