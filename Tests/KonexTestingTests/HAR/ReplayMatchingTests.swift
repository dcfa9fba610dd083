import Foundation
import Konex
import KonexTesting
import TestSupport
import Testing

/// What picks the recorded entry that answers a request: presets, JSON bodies, ignored query items, headers,
/// passthrough for what was never recorded.
@Suite struct ReplayMatchingTests {
    struct Query: KonexRequest {
        let name: String
        var path: String { "/graphql" }
        var method: HTTPMethod { .post }
        var body: RequestBody? {
            .json(["query": .string("{ user(name: \"\(name)\") { id } }"), "variables": [:]] as JSON)
        }
    }

    /// Records a short session (two GraphQL queries, a feed with a cache buster, a versioned endpoint) into a folder.
    func recordedSession() async throws -> FixtureDirectory {
        let directory = try temporaryDirectory()
        let live = MockTransport(clock: ImmediateClock())
        live.stub(
            .post("/graphql").matching("ada") {
                String(decoding: $0.httpBody ?? Data(), as: UTF8.self).contains("ada")
            }, .json(["id": 1] as JSON))
        live.stub(.post("/graphql"), .json(["id": 2] as JSON))
        live.stub(.get("/feed"), .json(["items": []] as JSON))
        live.stub(.get("/version"), .string("v1"))
        let recorder = try RecordingTransport(
            live: live, fixture: directory.appendingPathComponent("session.har"), mode: .all, environment: [:])
        let client = KonexClient.mocked(recorder)
        _ = try await client.request(Query(name: "ada")).response()
        _ = try await client.request(Query(name: "grace")).response()
        _ = try await client.request("/feed?_=1700000000").response()
        _ = try await client.request("/version").withAdapter(.header("Accept", "application/vnd.v1")).response()
        return FixtureDirectory(directory)
    }

    @Test func graphQLBodiesPickTheirOwnEntryWhateverTheKeyOrder() async throws {
        let fixtures = try await recordedSession()
        defer { try? FileManager.default.removeItem(at: fixtures.root) }
        let client = KonexClient.mocked(
            try FixtureTransport(directory: fixtures, clock: ImmediateClock(), matching: .graphQL))
        // Sent in the other order: each still gets its own answer.
        #expect(try await client.request(Query(name: "grace")).responseJSON()["id"] == 2)
        #expect(try await client.request(Query(name: "ada")).responseJSON()["id"] == 1)
    }

    @Test func withoutBodyMatchingIdenticalPostsAnswerInRecordedOrder() async throws {
        let fixtures = try await recordedSession()
        defer { try? FileManager.default.removeItem(at: fixtures.root) }
        let client = KonexClient.mocked(try FixtureTransport(directory: fixtures, clock: ImmediateClock()))
        #expect(try await client.request(Query(name: "grace")).responseJSON()["id"] == 1)  // the first recorded
        #expect(try await client.request(Query(name: "ada")).responseJSON()["id"] == 2)
    }

    @Test func cacheBustersCanBeIgnored() async throws {
        let fixtures = try await recordedSession()
        defer { try? FileManager.default.removeItem(at: fixtures.root) }
        let strict = KonexClient.mocked(try FixtureTransport(directory: fixtures, clock: ImmediateClock()))
        await expectThrows(KonexError.self) { try await strict.request("/feed?_=1800000000").response() }
        let lenient = KonexClient.mocked(
            try FixtureTransport(
                directory: fixtures, clock: ImmediateClock(), allowRepeats: true,
                matching: .default.ignoringQueryItems(["_"])))
        #expect(try await lenient.request("/feed?_=1800000000").response().statusCode == 200)
        #expect(try await lenient.request("/feed").response().statusCode == 200)
    }

    @Test func headersCanIdentifyARequest() async throws {
        let fixtures = try await recordedSession()
        defer { try? FileManager.default.removeItem(at: fixtures.root) }
        let client = KonexClient.mocked(
            try FixtureTransport(
                directory: fixtures, clock: ImmediateClock(), allowRepeats: true,
                matching: .default.comparingHeaders("Accept")))
        #expect(
            try await client.request("/version").withAdapter(.header("Accept", "application/vnd.v1")).responseString()
                == "v1")
        let error = try await requireThrows(KonexError.self) {
            try await client.request("/version").withAdapter(.header("Accept", "application/vnd.v2")).response()
        }
        #expect("\(error)".contains("header Accept: expected \"application/vnd.v1\""))
    }

    @Test func unmatchedRequestsCanPassThroughToALiveTransport() async throws {
        let fixtures = try await recordedSession()
        defer { try? FileManager.default.removeItem(at: fixtures.root) }
        let live = MockTransport(clock: ImmediateClock()).stubbing(.get("/new"), .string("live"))
        let transport = try FixtureTransport(directory: fixtures, clock: ImmediateClock(), passthrough: live)
        let client = KonexClient.mocked(transport)
        #expect(try await client.request("/new").responseString() == "live")
        #expect(try await client.request("/version").responseString() == "v1")
        #expect(live.requestCount == 1)
        #expect(throws: MockConfigurationError.self) { try transport.verifyAllUsed() }  // graphql and feed were not
    }

    @Test func hostCanBePartOfTheMatch() async throws {
        let fixtures = try await recordedSession()
        defer { try? FileManager.default.removeItem(at: fixtures.root) }
        let transport = try FixtureTransport(directory: fixtures, clock: ImmediateClock(), matching: .strict)
        let elsewhere = KonexClient(baseURL: URL(string: "https://other.test")!, transport: transport)
        await expectThrows(KonexError.self) { try await elsewhere.request("/version").response() }
        #expect(try await KonexClient.mocked(transport).request("/version").responseString() == "v1")
    }
}
