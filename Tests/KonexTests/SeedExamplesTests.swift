import Foundation
import KonexTesting
import Testing

@testable import Konex

/// The 2017 Konex README and the NetworkKit README, as they read today.
@Suite struct SeedExamplesTests {
    struct GetAllPostsRequest: KonexRequest {
        let path = "https://jsonplaceholder.typicode.com/posts/"
    }

    @Test func konexReadmeExample() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/posts/"), .json([Post(id: 1, title: "Hello")]))
        let client = KonexClient(transport: mock)
        let request = GetAllPostsRequest()
        let received = Lock<[Post]?>(nil)
        await client.requestArray(
            of: Post.self,
            request: request,
            onSuccess: { (posts: [Post]) in
                received.value = posts
            },
            onError: { (error: Error) in
                Issue.record(error)
            }
        ).wait()
        #expect(received.value == [Post(id: 1, title: "Hello")])
    }

    @Test func konexReadmeClientMethodsWithComponents() async throws {
        let trace = Trace()
        let mock = MockTransport(clock: ImmediateClock()).stubbing(.get("/posts/"), .json(Post(id: 1, title: "x")))
        let client = KonexClient(transport: mock)
        let received = Lock<JSON?>(nil)
        await client.request(
            request: GetAllPostsRequest(), plugins: [Tracer(name: "call", trace: trace)],
            responseProcessors: [Tracer(name: "call", trace: trace)],
            responseValidators: [Tracer(name: "call", trace: trace)],
            onSuccess: { received.value = $0 }, onError: { Issue.record($0) }
        ).wait()
        let object = Lock<Post?>(nil)
        await client.requestObject(
            of: Post.self, request: GetAllPostsRequest(), onSuccess: { object.value = $0 },
            onError: { Issue.record($0) }
        ).wait()
        #expect(received.value?["title"] == "x")
        #expect(object.value == Post(id: 1, title: "x"))
        #expect(trace.all == ["send:call", "receive:call", "validate:call", "process:call"])
    }

    class APIRequest: KonexBasicRequest, @unchecked Sendable {
        override var headers: [String: String]? { ["Accept": "application/json"] }
    }

    final class GetPosts: APIRequest, @unchecked Sendable {
        override var path: String { "/posts" }
    }

    @Test func basicRequestSubclassing() async throws {
        let (client, mock) = makeClient {
            $0.stub(.get("/v1/posts").header("Accept", "application/json"), .json([Post(id: 1, title: "a")]))
        }
        #expect(try await client.request(GetPosts()).responseArray(of: Post.self).count == 1)
        #expect(mock.requests.count == 1)
    }

    struct NewUser: Codable, Sendable, Equatable { var name: String }

    enum UsersAPI: KonexRequest {
        case createUser(id: String, NewUser)
        case getUsers(name: String)

        var headers: [String: String]? { ["api-subscription-key": "asdkfhaskjdfh", "Accept": "application/json"] }
        var path: String {
            switch self {
            case .createUser(let id, _): "/\(id)"
            case .getUsers(let name): "/session/nfc/\(name)"
            }
        }
        var method: HTTPMethod {
            switch self {
            case .createUser: .post
            case .getUsers: .get
            }
        }
        var body: RequestBody? {
            switch self {
            case .createUser(_, let payload): .json(payload)
            case .getUsers: nil
            }
        }
    }

    @Test func networkKitStyleEnumEndpoints() async throws {
        let (client, mock) = makeClient {
            $0.stub(.post("/v1/42").body(json: ["name": "Ada"]), .json(NewUser(name: "Ada"), status: 201))
            $0.stub(.get("/v1/session/nfc/ada"), .json([NewUser(name: "Ada")]))
        }
        let created = try await client.request(UsersAPI.createUser(id: "42", NewUser(name: "Ada")))
            .validate().responseObject(of: NewUser.self)
        let users = try await client.request(UsersAPI.getUsers(name: "ada")).validate().responseArray(of: NewUser.self)
        #expect(created == NewUser(name: "Ada"))
        #expect(users == [NewUser(name: "Ada")])
        #expect(mock.requests.allSatisfy { $0.header("api-subscription-key") == "asdkfhaskjdfh" })
    }

    @Test func sharedClientExists() {
        #expect(KonexClient.shared.baseURL == nil)
    }
}
