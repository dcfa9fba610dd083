import Foundation
import Konex
import Testing

@testable import KonexTesting

/// LoopbackServer over a real socket: what a transport sends reaches the mock whole, and the mock's answer comes back
/// with its status, headers and body.
@Suite struct LoopbackServerTests {
    @Test func answersThroughTheMockOverARealSocket() async throws {
        let mock = MockTransport()
        mock.stub(
            .get("/posts"), .string("[1,2,3]", status: 201, headers: ["Content-Type": "application/json", "X-A": "b"]))
        mock.stub(.post("/echo"), .string("got it"))
        let server = try LoopbackServer(answeringWith: mock)
        defer { server.stop() }
        #expect(server.url.host == "127.0.0.1")
        let client = KonexClient(baseURL: server.url, transport: URLSessionTransport(configuration: .ephemeral))

        let response = try await client.request("/posts").response()
        #expect(response.statusCode == 201)
        #expect(response.headers["X-A"] == "b")
        #expect(response.data == Data("[1,2,3]".utf8))

        struct Echo: KonexRequest {
            let path = "/echo"
            let method = HTTPMethod.post
            var body: RequestBody? {
                .data(Data(repeating: 7, count: 200_000), contentType: "application/octet-stream")
            }
        }
        #expect(try await client.request(Echo()).responseString() == "got it")
        let posted = try #require(mock.requests(matching: .post("/echo")).first)
        #expect(posted.body == Data(repeating: 7, count: 200_000))
        #expect(posted.request.value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
    }

    /// The listener is shut down once: after `stop()`, neither a second call nor the server's release touches its
    /// number again (by then it may be another socket's).
    @Test func stoppingTwiceShutsTheListenerDownOnce() async throws {
        let server = try LoopbackServer(answeringWith: MockTransport())
        #expect(server.stopListening())
        #expect(!server.stopListening())
        server.stop()
        #expect(!server.stopListening())
    }

    @Test func aFailingTransportIsA502ThatSaysWhy() async throws {
        let server = try LoopbackServer(answeringWith: MockTransport())  // nothing stubbed: every request fails
        let (data, response) = try await URLSessionTransport(configuration: .ephemeral).data(
            for:
                URLRequest(url: server.url.appendingPathComponent("nothing")))
        #expect(response.statusCode == 502)
        #expect(String(decoding: data, as: UTF8.self).contains("/nothing"))
    }
}
