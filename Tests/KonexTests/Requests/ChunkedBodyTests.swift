import Foundation
import Konex
import KonexTesting
import TestSupport
import Testing

/// A body of chunks (`RequestBody.chunks`): sent once as it comes, never read ahead, never sent twice, never
/// compressed behind the caller's back.
@Suite struct ChunkedBodyTests {
    struct Upload: KonexRequest {
        let path = "/upload"
        let method: HTTPMethod = .put
        var body: RequestBody?
    }

    static func chunks(_ pieces: [String]) -> AsyncThrowingStream<Data, any Error> {
        let (stream, writer) = AsyncThrowingStream.makeStream(of: Data.self)
        for piece in pieces { writer.yield(Data(piece.utf8)) }
        writer.finish()
        return stream
    }

    @Test func aMockReadsEveryChunkWithItsContentType() async throws {
        let (client, mock) = makeClient { $0.stub(.put("/v1/upload"), .status(204)) }
        _ = try await client.request(Upload(body: .chunks(Self.chunks(["a,", "b,", "c"]), contentType: "text/csv")))
            .response()
        let sent = try #require(mock.requests.first)
        #expect(String(decoding: sent.body, as: UTF8.self) == "a,b,c")
        #expect(sent.header("Content-Type") == "text/csv")
    }

    @Test func aFailedAttemptIsNotSentAgainWithAHalfReadBody() async throws {
        let (client, mock) = makeClient { $0.stub(.put("/v1/upload"), .status(503)) }
        let response = try await client.request(Upload(body: .chunks(Self.chunks(["x"]))))
            .retry(RetryPolicy(maximumAttempts: 3, jitter: 0, budget: nil)).response()
        #expect(response.statusCode == 503)
        #expect(mock.requests.count == 1, "a body of chunks was sent \(mock.requests.count) times")
    }

    @Test func aValidatedFailureIsNotRetriedWithAnEmptyBody() async throws {
        let (client, mock) = makeClient { $0.stub(.put("/v1/upload"), .status(503)) }
        let error = try await requireThrows(KonexError.self) {
            try await client.request(Upload(body: .chunks(Self.chunks(["twenty-two bytes of it"]))))
                .validate().retry(RetryPolicy(maximumAttempts: 3, jitter: 0, budget: nil)).response()
        }
        #expect(mock.requests.map(\.body.count) == [22], "attempts carried \(mock.requests.map(\.body.count)) bytes")
        #expect(error.stage == .validation)
        #expect(error.statusCode == 503)
        #expect(error.message.contains("not retried: the request's body is a body of chunks"))
    }

    @Test func aTokenRefreshDoesNotResendABodyOfChunksEmpty() async throws {
        let (client, mock) = makeClient {
            $0.stub(.post("/v1/upload").header("Authorization", "Bearer fresh"), .status(201))
            $0.stub(.post("/v1/upload"), .status(401))
        }
        let auth = TokenAuthenticator(credential: .init(accessToken: "stale")) { _ in .init(accessToken: "fresh") }
        client.adapters = [auth]
        client.retriers = [auth]
        struct Post: KonexRequest {
            let path = "/upload"
            let method: HTTPMethod = .post
            var body: RequestBody?
        }
        let error = try await requireThrows(KonexError.self) {
            try await client.request(Post(body: .chunks(Self.chunks(["the file"])))).validate().response()
        }
        #expect(mock.requests.count == 1, "sent \(mock.requests.count) times: \(mock.requests.map(\.body.count)) bytes")
        #expect(error.statusCode == 401)
        #expect(error.message.contains("not retried"))
    }

    @Test func compressingABodyOfChunksIsRefusedByName() async throws {
        let (client, mock) = makeClient { $0.stub(.put("/v1/upload"), .status(204)) }
        let error = try await requireThrows(KonexError.self) {
            try await client.request(Upload(body: .chunks(Self.chunks(["x"])))).compressingBody(.gzip).response()
        }
        #expect(error.stage == .invalidRequest)
        #expect(error.message.contains("cannot compress a body of chunks"))
        #expect(mock.requests.isEmpty)
    }

    @Test func collectingABodyOfChunksAheadIsATypedError() throws {
        let body = TransportRequest.Body.chunks(Self.chunks(["x"]))
        #expect(body.byteCount == nil)
        #expect(!body.canBeSentAgain)
        #expect(throws: TransportRequest.Body.SentAsItComes.self) { try body.collect(upTo: 10) }
    }
}
