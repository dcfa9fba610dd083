import Foundation
import Konex
import KonexTesting
import Testing

@testable import App

// Written as an Xcode 26 app's test target is: main-actor isolated by default, models with no `Sendable`.
// scripts/main-actor-check builds and runs it so.
struct PostsModelTests {
    @Test func loadsPostsFromAMock() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/posts"), .json([Post(id: 1, title: "a")]))
        let model = PostsModel(client: .mocked(mock))
        try await model.load()
        #expect(model.posts == [Post(id: 1, title: "a")])
    }

    @Test func decodesTheErrorBodyItAskedFor() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/posts/9"), .json(APIError(message: "gone"), status: 404))
        let model = PostsModel(client: .mocked(mock))
        let error = try await #require(throws: KonexError.self) { try await model.loadOne(9) }
        #expect(error.statusCode == 404)
        #expect(error.errorBody(as: APIError.self)?.message == "gone")
        #expect(error.description.contains(#"APIError(message: "gone")"#))
    }

    @Test func sendsABodyEncodedOnTheMainActor() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.post("/posts").body(json: ["title": "new"]), .json(Post(id: 3, title: "new"), status: 201))
        let model = PostsModel(client: .mocked(mock))
        #expect(try await model.create("new") == Post(id: 3, title: "new"))
        #expect(mock.requests.first?.request.value(forHTTPHeaderField: "Content-Type") == "application/json")
    }

    @Test func everyEnvelopeTerminalDecodesOnTheMainActor() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/posts/4"), .json(Post(id: 4, title: "four")))
        let model = PostsModel(client: .mocked(mock))
        #expect(try await model.inspect(4) > 0)
        #expect(model.selected == Post(id: 4, title: "four"))
    }

    @Test func callbacksUpdateTheModelOnTheMainActor() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/posts"), .json([Post(id: 1, title: "a"), Post(id: 2, title: "b")]))
        mock.stub(.get("/posts/1"), .json(Post(id: 1, title: "a")))
        let model = PostsModel(client: .mocked(mock))
        await model.loadWithCallbacks().wait()
        #expect(model.posts.count == 2)
    }

    @Test func readsEveryKindOfStream() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/feed"), .events([ServerSentEvent(data: #"{"id":8,"title":"sse"}"#)]))
        let model = PostsModel(client: .mocked(mock))
        try await model.followEverything()
        #expect(model.posts == [Post(id: 8, title: "sse")])
        #expect(model.received > 0)
    }

    @Test func talksOverAWebSocket() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stubWebSocket(.get("/feed"), script: [.expectAnyMessage, .send(#"{"id":9,"title":"ws"}"#)])
        let model = PostsModel(client: .mocked(mock))
        try await model.chat()
        #expect(model.posts == [Post(id: 9, title: "ws")])
        #expect(mock.webSocketSessions.first?.clientMessages == [.text(#"{"title":"hi"}"#)])
    }

    @Test func downloadsToAFile() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/posts"), .json([Post(id: 1, title: "a")]))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("posts-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        let saved = try await PostsModel(client: .mocked(mock)).save(to: file)
        #expect(try JSONDecoder().decode([Post].self, from: Data(contentsOf: saved)) == [Post(id: 1, title: "a")])
    }

    @Test func readsJSONLinesAsTheyArrive() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/feed"), .string("{\"id\":1,\"title\":\"a\"}\n{\"id\":2,\"title\":\"b\"}\n"))
        let model = PostsModel(client: .mocked(mock))
        try await model.follow()
        #expect(model.posts.map(\.id) == [1, 2])
    }

    @Test(.mocked { $0.stub(.get("/posts"), .json([Post(id: 5, title: "trait")])) })
    func theMockedTraitReachesTheAppsOwnClient() async throws {
        let model = PostsModel()
        try await model.load()
        #expect(model.posts == [Post(id: 5, title: "trait")])
    }

    @Test func servesDiskFixtures() async throws {
        let model = PostsModel(client: try .fixtures(FixtureDirectory(besides: #filePath, named: "Fixtures/blog")))
        try await model.load()
        #expect(model.posts == [Post(id: 1, title: "a")])
    }

    @Test func replaysAHAR() async throws {
        let model = PostsModel(client: try .fixtures(FixtureDirectory(besides: #filePath, named: "Fixtures/session")))
        try await model.loadOne(7)
        #expect(model.selected == Post(id: 7, title: "seven"))
    }
}
