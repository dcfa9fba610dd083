import Foundation
import Konex
import KonexTesting
import TestSupport
import Testing

@Suite struct KonexErrorTests {
    @Test func decodingErrorTellsTheWholeStory() async throws {
        let body = #"[{"id": 1, "title": "ok"}, {"id": 2, "title": 42}]"#
        let (client, _) = makeClient { $0.stub(.get("/v1/posts"), .string(body, contentType: "application/json")) }
        let error = try await requireThrows(KonexError.self) {
            try await client.request("posts").responseArray(of: Post.self)
        }
        #expect(error.stage == .decoding)
        #expect(error.codingPath == "[1].title")
        #expect(error.statusCode == 200)
        #expect(error.bodySnippet == body)
        let text = error.description
        #expect(text.hasPrefix("KonexError.decoding: GET https://api.test/v1/posts → 200 "))
        #expect(text.contains("type mismatch: expected String"))
        #expect(text.contains("at [1].title"))
        #expect(text.contains("Body (\(body.utf8.count) bytes): [{\"id\": 1"))
    }

    @Test func bodySnippetIsCappedAt200Bytes() async throws {
        let body = String(repeating: "x", count: 1_000)
        let (client, _) = makeClient { $0.stub(.get("/v1/x"), .string(body)) }
        let error = try await requireThrows(KonexError.self) { try await client.request("x").responseJSON() }
        #expect(error.bodySnippet == String(repeating: "x", count: 200) + "… (1000 bytes)")
    }

    @Test(arguments: [
        (Fault.timeout, "timedOut"), (.connectionLost, "networkConnectionLost"),
        (.notConnected, "notConnectedToInternet"), (.connectionRefused, "cannotConnectToHost"),
    ])
    func transportErrorsNameTheURLError(fault: Fault, name: String) async throws {
        let (client, _) = makeClient { $0.stub(.get("/v1/x"), .fault(fault)) }
        let error = try await requireThrows(KonexError.self) { try await client.request("x").responseData() }
        #expect(error.stage == .transport)
        #expect(error.message.hasPrefix(name))
        #expect(error.underlyingError is URLError)
        #expect(error.isTimeout == (fault == .timeout))
        #expect(error.response == nil)
    }

    @Test func processingErrorNamesTheProcessor() async throws {
        struct Boom: Error {}
        let (client, _) = makeClient { $0.stub(.get("/v1/x"), .string("{}")) }
        let error = try await requireThrows(KonexError.self) {
            try await client.request("x").process { _, _ in throw Boom() }.responseData()
        }
        #expect(error.stage == .processing)
        #expect(error.message.hasPrefix("processor ClosureProcessor failed"))
    }

    @Test(arguments: [
        (MockResponse.string("not json"), "data corrupted"),
        (.string(#"{"id": 1, "title": "x""#), "data corrupted"),
        (.string(#"{"id": 1}"#), "key not found: \"title\""),
        (.string(#"{"id": null, "title": "x"}"#), "value not found"),
        (.json(Post(id: 1, title: "x")).withFault(.truncatedBody), "data corrupted"),
        (.json(Post(id: 1, title: "x")).withFault(.malformedJSON), "data corrupted"),
    ])
    func hostileBodiesAreDecodingErrors(response: MockResponse, reason: String) async throws {
        let (client, _) = makeClient { $0.stub(.get("/v1/x"), response) }
        let error = try await requireThrows(KonexError.self) {
            try await client.request("x").responseObject(of: Post.self)
        }
        #expect(error.stage == .decoding)
        #expect(error.message.contains(reason), "\(error)")
    }

    @Test func invalidUTF8IsADecodingError() async throws {
        let (client, _) = makeClient {
            $0.stub(.get("/v1/x"), .data(Data([0xFF, 0xFE, 0x00, 0xC3]), contentType: "text/plain"))
        }
        let error = try await requireThrows(KonexError.self) { try await client.request("x").responseString() }
        #expect(error.stage == .decoding)
        #expect(error.message.contains("not valid"))
    }

    @Test func oversizedBodyIsRefused() async throws {
        let mock = MockTransport(clock: ImmediateClock()).stubbing(.get("/v1/big"), .data(Data(count: 2_048)))
        let client = KonexClient(baseURL: api, transport: mock, maximumResponseSize: 1_024)
        let error = try await requireThrows(KonexError.self) { try await client.request("big").responseData() }
        #expect(error.stage == .transport)
        // A mock answers whole, so the whole size is known; a streamed body stops at the limit (StreamTests).
        #expect(error.message == "the response body of 2048 bytes exceeds maximumResponseSize (1024 bytes)")
        #expect(error.statusCode == 200)
    }

    @Test func readingStopsAtTheLimitNotAtTheEndOfTheBody() async throws {
        // Before: the whole body was read into memory, then measured.
        let chunks = (0..<64).map { _ in MockChunk(Data(count: 1_024)) }
        let mock = MockTransport(clock: ImmediateClock()).stubbing(.get("/v1/big"), .chunks(chunks))
        let client = KonexClient(baseURL: api, transport: mock, maximumResponseSize: 4_096)
        let error = try await requireThrows(KonexError.self) { try await client.request("big").responseData() }
        #expect(error.message.contains("reading stopped at 5120"))
        // The limit is a size, not a count of chunks: exactly the limit passes.
        let exact = KonexClient(baseURL: api, transport: mock, maximumResponseSize: 65_536)
        #expect(try await exact.request("big").responseData().count == 65_536)
    }

    @Test func unmatchedMockRequestSurfacesAsTransportErrorWithDiagnostics() async throws {
        let (client, _) = makeClient { $0.stub(.get("/v1/users/{id}").query(["page": "2"]), .status(200)) }
        let error = try await requireThrows(KonexError.self) {
            try await client.request("users/7?page=1").responseData()
        }
        #expect(error.stage == .transport)
        let unmatched = try #require(error.underlyingError as? UnmatchedRequestError)
        #expect(unmatched.nearest.first?.differences == ["query item \"page\": expected \"2\", got \"1\""])
    }

    /// `KonexError` keeps its fields in one shared reference (a word wide in async frames); it must still behave as a
    /// value: a copy changed later leaves the original as it was, field by field, however many copies share it.
    @Test func aKonexErrorIsAValueThoughItsFieldsLiveInOneReference() {
        let original = KonexError(
            stage: .validation, message: "rejected", method: .get, url: URL(string: "https://api.test/a"),
            data: Data("body".utf8), codingPath: "a.b", attempt: 2)
        var copy = original
        let third = copy
        copy.stage = .decoding
        copy.message = "changed"
        copy.url = nil
        copy.data = nil
        copy.codingPath = nil
        copy.attempt = 7
        copy.redaction = Redaction(headers: ["X-Secret"], queryItems: [], jsonFields: [])
        for unchanged in [original, third] {
            #expect(unchanged.stage == .validation)
            #expect(unchanged.message == "rejected")
            #expect(unchanged.url?.absoluteString == "https://api.test/a")
            #expect(unchanged.data == Data("body".utf8))
            #expect(unchanged.codingPath == "a.b")
            #expect(unchanged.attempt == 2)
            #expect(unchanged.redaction == nil)
        }
        #expect(copy.stage == .decoding && copy.message == "changed" && copy.url == nil && copy.attempt == 7)
        #expect(copy.redaction != nil)
    }

    /// `TransferPhases` keeps its durations in one reference too: equality and hashing are by value.
    @Test func transferPhasesCompareAndHashByValue() {
        let a = TransferPhases(domainLookup: .milliseconds(3), connect: .milliseconds(5), firstByte: .milliseconds(9))
        var b = TransferPhases(domainLookup: .milliseconds(3))
        b.connect = .milliseconds(5)
        b.firstByte = .milliseconds(9)
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        let before = b
        b.download = .milliseconds(1)
        #expect(b != a)
        #expect(before == a)
        #expect(b.download == .milliseconds(1) && before.download == nil)
        #expect(b.secureConnection == nil)
    }
}
