import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

@Suite struct URLResolutionTests {
    @Test(arguments: [
        ("https://api.test/v1", "/posts", "https://api.test/v1/posts"),
        ("https://api.test/v1/", "/posts", "https://api.test/v1/posts"),
        ("https://api.test/v1/", "posts", "https://api.test/v1/posts"),
        ("https://api.test/v1", "posts/", "https://api.test/v1/posts/"),
        ("https://api.test", "/", "https://api.test/"),
        ("https://api.test/v1", "posts?sort=desc", "https://api.test/v1/posts?sort=desc"),
        ("https://api.test/v1", "https://other.test/x", "https://other.test/x"),
        ("https://api.test/v1", "/things:search", "https://api.test/v1/things:search"),
    ])
    func resolvesPaths(base: String, path: String, expected: String) throws {
        let url = try DataRequest.resolve(path, against: URL(string: base)!, method: .get)
        #expect(url.absoluteString == expected)
    }

    @Test func absolutePathNeedsNoBase() throws {
        let url = try DataRequest.resolve("http://localhost:8080/a", against: nil as URL?, method: .get)
        #expect(url.absoluteString == "http://localhost:8080/a")
    }

    @Test(arguments: [
        ("", "the request path is empty"),
        ("/posts", "needs a client baseURL"),
        ("ftp://files.test/a", "unsupported URL scheme \"ftp\""),
        ("mailto:ada@example.com", "unsupported URL scheme \"mailto\""),
        ("http://", "the URL has no host"),
        ("http://[::1", "is not a valid URL"),
    ])
    func rejectsBadPaths(path: String, message: String) async throws {
        let client = KonexClient(transport: MockTransport(clock: ImmediateClock()))
        let error = await expectThrows(KonexError.self) { try await client.request(path).responseData() }
        #expect(error?.stage == .invalidRequest)
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
    }

    @Test func stringURLAndURLRequestSourcesWork() async throws {
        let (client, mock) = makeClient { $0.stub(.any("/v1/ping"), .string("pong")) }
        #expect(try await client.request("ping").responseString() == "pong")
        #expect(try await client.request(URL(string: "https://api.test/v1/ping")!).responseString() == "pong")
        var request = URLRequest(url: URL(string: "https://api.test/v1/ping")!)
        request.httpMethod = "OPTIONS"
        #expect(try await client.request(request).responseString() == "pong")
        #expect(mock.requests.map(\.method) == [.get, .get, .options])
    }

    @Test func joinedURLsAreRememberedPerBaseAndBounded() throws {
        let base = CheckedBase(URL(string: "https://api.test/v1/")!)
        let first = try DataRequest.resolve("/posts", against: base, method: .get)
        #expect(base.joinedURL(for: "/posts") == first)
        #expect(try DataRequest.resolve("/posts", against: base, method: .get) == first)
        // A different spelling of the same path is its own entry and still joins the same way.
        #expect(try DataRequest.resolve("posts", against: base, method: .get).absoluteString == first.absoluteString)
        // Past the limit the memory starts over: never more entries than the limit, every answer still right.
        for index in 0..<(CheckedBase.joinedLimit * 3) {
            let url = try DataRequest.resolve("/items/\(index)", against: base, method: .get)
            #expect(url.absoluteString == "https://api.test/v1/items/\(index)")
        }
        #expect(base.joinedCount <= CheckedBase.joinedLimit)
        #expect(base.joinedURL(for: "/posts") == nil)
    }
}
