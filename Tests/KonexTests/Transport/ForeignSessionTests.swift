import Foundation
import KonexTesting
import Testing

@testable import Konex

/// Trust pass 3, item 8: redirects are Konex's on every session, a session someone else made included.
@Suite struct ForeignSessionTests {
    /// A delegate that would follow every redirect, as a session's owner might have written it.
    final class FollowingDelegate: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(request)
        }
    }

    /// A real socket: `/v1/go` redirects to another origin (another port on 127.0.0.1), which echoes what it got.
    static func servers() throws -> (origin: LoopbackServer, other: LoopbackServer, otherMock: MockTransport) {
        let otherMock = MockTransport()
        otherMock.stub(.get("/there"), .string("there"))
        let other = try LoopbackServer(answeringWith: otherMock)
        let mock = MockTransport()
        mock.stub(.get("/v1/go"), .status(302, headers: ["Location": other.url.absoluteString + "/there"]))
        return (try LoopbackServer(answeringWith: mock), other, otherMock)
    }

    @Test(arguments: ["shared", "no delegate", "a following delegate"])
    func konexDecidesRedirectsOnASessionItDidNotMake(session kind: String) async throws {
        let (origin, other, otherMock) = try Self.servers()
        defer {
            origin.stop()
            other.stop()
        }
        let session =
            switch kind {
            case "shared": URLSession.shared
            case "no delegate": URLSession(configuration: .ephemeral)
            default: URLSession(configuration: .ephemeral, delegate: FollowingDelegate(), delegateQueue: nil)
            }
        // Not followed: the 3xx as it came, though the session would have followed it.
        let strict = KonexClient(
            baseURL: origin.url, transport: URLSessionTransport(session: session), redirectPolicy: .doNotFollow)
        let stopped = try await strict.request("/v1/go").response()
        #expect(stopped.statusCode == 302, "\(kind)")
        #expect(otherMock.requestCount == 0, "\(kind)")
        // Followed by Konex's rules: the credential stays with its origin.
        let client = KonexClient(baseURL: origin.url, transport: URLSessionTransport(session: session))
        client.adapters = [.bearer("origin-secret")]
        let followed = try await client.request("/v1/go").response()
        #expect(followed.statusCode == 200, "\(kind)")
        #expect(followed.redirects.count == 1, "\(kind)")
        #expect(otherMock.requests.last?.header("Authorization") == nil, "\(kind)")
    }

    @Test func aSessionKonexMadeIsUsedAsItIs() {
        let made = URLSessionTransport(configuration: .ephemeral)
        let again = URLSessionTransport(session: made.session)
        #expect(again.session === made.session)
        let foreign = URLSession(configuration: .ephemeral)
        let wrapped = URLSessionTransport(session: foreign)
        #expect(wrapped.session !== foreign)
        #expect(wrapped.session.delegate is SessionDelegate)
    }
}
