#if OpenAPI && AsyncHTTPClient
    import Foundation
    import Konex
    import KonexAsyncHTTPClient
    import KonexOpenAPI
    import KonexTesting
    import OpenAPIRuntime
    import PostsAPI
    import Testing

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// The generated client against the real posts API on 127.0.0.1 (scripts/sse_server.py, which scripts/test
    /// starts), over URLSession and over AsyncHTTPClient.
    @Suite(
        .serialized,  // the cache check counts the server's answers, which another run would add to
        .enabled(
            if: ProcessInfo.processInfo.environment["KONEX_SSE_URL"] != nil,
            "needs the local posts server: scripts/test starts it (KONEX_SSE_URL)"))
    struct LiveGeneratedClientTests {
        static let server = URL(string: ProcessInfo.processInfo.environment["KONEX_SSE_URL"] ?? "http://127.0.0.1:1")!

        func konex(over transport: String) -> KonexClient {
            KonexClient(
                transport: transport == "ahc"
                    ? AsyncHTTPClientTransport.shared : URLSessionTransport(configuration: .ephemeral))
        }

        func served() async throws -> Int {
            let (data, _) = try await URLSession.shared.data(from: Self.server.appendingPathComponent("stats"))
            let stats = try JSONSerialization.jsonObject(with: data) as? [String: Int]
            return stats?["posts_served"] ?? -1
        }

        @Test(arguments: ["urlsession", "ahc"])
        func aCachedListA404AndARefreshedToken(over transport: String) async throws {
            let konex = konex(over: transport)
            konex.interceptors = [HTTPCache(storage: .memory(capacity: 1 << 20), cookieStorage: nil)]
            let auth = TokenAuthenticator(credential: .init(accessToken: "stale")) { _ in .init(accessToken: "fresh") }
            konex.adapters = [auth]
            konex.retriers = [auth]
            let api = Client(serverURL: Self.server, transport: konex.openAPITransport)

            let before = try await served()
            for _ in 1...3 { #expect(try await api.listPosts().ok.body.json.map(\.title) == ["Hello", "Konex"]) }
            #expect(try await served() == before + 1)  // the cache answered twice
            #expect(try await api.getPost(path: .init(id: 9)).notFound.body.json.error == "no such post")
            #expect(try await api.createPost(body: .json(.init(title: "Live"))).created.body.json.title == "Live")
        }

        /// Recorded once from the real server by the generated client, then replayed offline by the same client.
        @Test func aSessionRecordedLiveReplaysOffline() async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("openapi-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let recorder = try RecordingTransport(
                live: URLSessionTransport(configuration: .ephemeral),
                fixture: folder.appendingPathComponent("posts.har"),
                mode: .all, environment: [:])
            let live = Client(serverURL: Self.server, transport: KonexClient(transport: recorder).openAPITransport)
            let recorded = try await live.listPosts().ok.body.json
            _ = try await live.getPost(path: .init(id: 9)).notFound

            let offline = Client(
                serverURL: Self.server, transport: try KonexClient.fixtures(FixtureDirectory(folder)).openAPITransport)
            #expect(try await offline.listPosts().ok.body.json == recorded)
            #expect(try await offline.getPost(path: .init(id: 9)).notFound.body.json.error == "no such post")
        }

        @Test(arguments: ["urlsession", "ahc"])
        func eventsStreamThroughTheRuntimesDecoder(over transport: String) async throws {
            let api = Client(serverURL: Self.server, transport: konex(over: transport).openAPITransport)
            let body = try await api.streamEvents().ok.body.textEventStream
            var data: [String] = []
            for try await event in body.asDecodedServerSentEvents() { data.append(event.data ?? "") }
            #expect(data == (1...5).map { #"{"n": \#($0)}"# })
        }
    }
#endif
