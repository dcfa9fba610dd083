import Foundation
import Konex

// An app file as Xcode 26 makes them: the target isolates to the main actor by default and infers isolated
// conformances (scripts/main-actor-check builds it so, with warnings as errors). Nothing here says `Sendable` or
// `nonisolated`: every model conforms on the main actor, and Konex decodes and encodes it there.

struct Post: Codable, Equatable {
    let id: Int
    let title: String
}

struct NewPost: Codable {
    let title: String
}

struct APIError: Codable {
    let message: String
}

struct GetPosts: KonexRequest {
    let path = "/posts"
}

struct GetPost: KonexRequest {
    let id: Int
    var path: String { "/posts/\(id)" }
}

struct CreatePost: KonexRequest {
    let path = "/posts"
    let method: HTTPMethod = .post
}

struct Feed: KonexRequest {
    let path = "/feed"
}

/// A screen's model: its state is the main actor's, and so is every closure below.
final class PostsModel {
    let client: KonexClient
    var posts: [Post] = []
    var selected: Post?
    var lastError: KonexError?
    var lines: [String] = []
    var received: Int = 0

    init(client: KonexClient = KonexClient(baseURL: URL(string: "https://api.test")!)) {
        self.client = client
    }

    func load() async throws {
        posts = try await client.request(GetPosts()).validate().responseArray(of: Post.self)
    }

    func loadOne(_ id: Int) async throws {
        selected = try await client.request(GetPost(id: id)).validate()
            .responseObject(of: Post.self, errorType: APIError.self)
    }

    func inspect(_ id: Int) async throws -> Int {
        let envelope = try await client.request(GetPost(id: id)).response(of: Post.self)
        selected = envelope.value
        let raw = try await client.request(GetPost(id: id)).response()
        let data = try await client.request(GetPost(id: id)).responseData()
        return raw.data.count + data.count
    }

    /// The body is encoded here, on the main actor, with the client's encoder: an endpoint's own `body` is read off
    /// the main actor, where `NewPost`'s conformance cannot be used.
    func create(_ title: String) async throws -> Post {
        try await client.request(CreatePost()).body(json: NewPost(title: title)).validate()
            .responseObject(of: Post.self)
    }

    @discardableResult
    func loadWithCallbacks() -> RequestHandle {
        client.request(GetPost(id: 1)).response(of: Post.self) { result in
            if case .success(let response) = result { self.selected = response.value }
        }
        client.request(GetPost(id: 1)).response { result in
            if case .failure(let error) = result { self.lastError = error }
        }
        return client.request(GetPosts()).responseArray(of: Post.self) { posts in
            self.posts = posts
        } onError: { error in
            self.lastError = error
        }
    }

    func follow() async throws {
        let stream = try await client.request(Feed()).stream()
        for try await post in stream.jsonLines(decoding: Post.self) {
            posts.append(post)
        }
    }

    func followEverything() async throws {
        for try await line in try await client.request(Feed()).stream().lines() { lines.append(line) }
        for try await chunk in try await client.request(Feed()).stream().chunks { received += chunk.count }
        for try await event in try await client.request(Feed()).stream().events() { lines.append(event.data) }
        for try await post in try await client.request(Feed()).stream().events(decoding: Post.self) {
            posts.append(post)
        }
    }

    func chat() async throws {
        let socket = try await client.request(Feed()).webSocket()
        try await socket.send(json: NewPost(title: "hi"))
        for try await post in socket.messages(decoding: Post.self) {
            posts.append(post)
            break
        }
        await socket.close()
    }

    func save(to file: URL) async throws -> URL {
        try await client.request(GetPosts()).download(to: file).value
    }
}
