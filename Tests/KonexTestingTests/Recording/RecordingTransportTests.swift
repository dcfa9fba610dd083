import Foundation
import Konex
import KonexTesting
import TestSupport
import Testing

@Suite struct RecordingTransportTests {
    /// A stand-in for the network: a mock that counts how often it is really called.
    func live() -> MockTransport {
        let live = MockTransport(clock: ImmediateClock())
        live.stub(.get("/posts"), .json([Post(id: 1, title: "a")], headers: ["Set-Cookie": "session=s3cr3t"]))
        live.stub(.get("/posts/1"), .json(Post(id: 1, title: "a")))
        live.stub(.get("/pixel"), .data(Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF])))
        live.stub(.post("/login"), .json(["access_token": "tok-123", "user": "ada"]))
        return live
    }

    let fixedDate: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_800_000_000) }
    let local: [String: String] = [:]

    @Test func noneReplaysOnlyAndNamesTheMissingFixture() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("posts.har")
        let recorder = try RecordingTransport(live: live(), fixture: file, mode: .none, environment: local)
        let error = try await requireThrows(KonexError.self) {
            try await KonexClient.mocked(recorder).request("/posts").responseData()
        }
        let fixtureError = try #require(error.underlyingError as? FixtureError)
        #expect(fixtureError.description.contains("missing fixture \(file.path) for GET https://api.test/posts"))
        #expect(fixtureError.description.contains("KONEX_RECORD_MODE=once"))
    }

    @Test func onceRecordsThenReplaysWithoutTheNetwork() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("posts.har")
        let network = live()
        let recorder = try RecordingTransport(
            live: network, fixture: file, mode: .once, environment: local, now: fixedDate)
        let client = KonexClient.mocked(recorder)
        let recorded = try await client.request("/posts").responseArray(of: Post.self)
        #expect(network.requestCount == 1)
        #expect(FileManager.default.fileExists(atPath: file.path))

        let offline = MockTransport()  // anything reaching it fails
        let replayer = try RecordingTransport(live: offline, fixture: file, mode: .once, environment: local)
        #expect(try await KonexClient.mocked(replayer).request("/posts").responseArray(of: Post.self) == recorded)
        #expect(offline.requestCount == 0)
        await #expect(throws: KonexError.self) {
            try await KonexClient.mocked(replayer).request("/posts/1").responseData()
        }
    }

    @Test func newEpisodesReplaysKnownAndRecordsNew() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("api.har")
        let network = live()
        _ = try await KonexClient.mocked(
            try RecordingTransport(live: network, fixture: file, mode: .once, environment: local)
        )
        .request("/posts").responseData()
        let recorder = try RecordingTransport(live: network, fixture: file, mode: .newEpisodes, environment: local)
        let client = KonexClient.mocked(recorder)
        _ = try await client.request("/posts").responseData()
        _ = try await client.request("/posts/1").responseData()
        #expect(network.requestCount == 2)  // the first recording and /posts/1; the replayed /posts never went out
        #expect(
            try HAR.load(from: file).log.entries.map(\.request.url) == [
                "https://api.test/posts", "https://api.test/posts/1",
            ])
    }

    @Test func allReRecordsFromScratch() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("api.har")
        let network = live()
        for _ in 0..<2 {
            let recorder = try RecordingTransport(live: network, fixture: file, mode: .all, environment: local)
            _ = try await KonexClient.mocked(recorder).request("/posts/1").responseData()
        }
        #expect(network.requestCount == 2)
        #expect(try HAR.load(from: file).log.entries.count == 1)
    }

    @Test func environmentOverridesTheModeAndCIRefusesToRecord() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("api.har")
        let viaEnvironment = try RecordingTransport(
            live: live(), fixture: file, mode: .none, environment: ["KONEX_RECORD_MODE": "once"])
        #expect(await viaEnvironment.mode == .once)
        let onCI = try RecordingTransport(live: live(), fixture: file, mode: .once, environment: ["CI": "true"])
        let error = try await requireThrows(KonexError.self) {
            try await KonexClient.mocked(onCI).request("/posts").responseData()
        }
        #expect(String(describing: error.underlyingError!).contains("because CI=true"))
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func secretsAreRedactedByDefault() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("auth.har")
        let recorder = try RecordingTransport(live: live(), fixture: file, mode: .once, environment: local)
        let client = KonexClient.mocked(recorder)
        struct Login: KonexRequest {
            let path = "/login"
            let method: HTTPMethod = .post
            var body: RequestBody? { .json(["user": "ada", "password": "hunter2"]) }
            var headers: [String: String]? { ["Authorization": "Bearer live-token", "X-API-Key": "key-1"] }
        }
        _ = try await client.request(Login()).responseData()
        _ = try await client.request("/posts?access_token=qs-token&page=1").withAdapter(.header("Cookie", "c=1"))
            .responseData()
        let text = try String(contentsOf: file, encoding: .utf8)
        for secret in ["hunter2", "live-token", "key-1", "tok-123", "qs-token", "s3cr3t", "c=1"] {
            #expect(!text.contains(secret), "\(secret) reached disk")
        }
        #expect(text.contains("REDACTED"))
        #expect(text.contains("page=1"))
        let entries = try HAR.load(from: file).log.entries
        #expect(
            entries[0]._konex?.redacted == [
                "header Authorization", "header X-Api-Key", "json access_token", "json password",
            ]
                || entries[0]._konex?.redacted == [
                    "header Authorization", "header X-API-Key", "json access_token", "json password",
                ])
        #expect(entries[1]._konex?.redacted.contains("query access_token") == true)
        // A redacted query item still replays: it matches any value.
        let replay = try RecordingTransport(live: MockTransport(), fixture: file, mode: .none, environment: local)
        _ = try await KonexClient.mocked(replay).request("/posts?access_token=other&page=1").responseData()
    }

    @Test func customFiltersAndTheFinalSecretScan() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var redaction = Redaction.default
        redaction.jsonFields.insert("user")
        let file = directory.appendingPathComponent("custom.har")
        var login = URLRequest(url: URL(string: "https://api.test/login")!)
        login.httpMethod = "POST"
        let recorder = try RecordingTransport(
            live: live(), fixture: file, mode: .once, redaction: redaction, environment: local)
        _ = try await KonexClient.mocked(recorder).request(login).responseData()
        #expect(try !String(contentsOf: file, encoding: .utf8).contains("ada"))

        var strict = Redaction.default
        strict.secrets = [#""title":"a""#]  // in the /posts body, which is stored JSON-escaped
        let guarded = directory.appendingPathComponent("guarded.har")
        let refusing = try RecordingTransport(
            live: live(), fixture: guarded, mode: .once, redaction: strict, environment: local)
        let error = try await requireThrows(KonexError.self) {
            try await KonexClient.mocked(refusing).request("/posts").responseData()
        }
        let refusal = String(describing: error.underlyingError!)
        #expect(refusal.contains("still contains registered secret number 1 of 1"))
        // Not even its first characters: the refusal itself goes to logs.
        #expect(!refusal.contains(#""ti"#) && !refusal.contains("title"))
        #expect(!FileManager.default.fileExists(atPath: guarded.path))
    }

    @Test func unwritableDirectoryFailsAndLeavesTheFixtureUntouched() async throws {
        let directory = try temporaryDirectory()
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
            try? FileManager.default.removeItem(at: directory)
        }
        let file = directory.appendingPathComponent("api.har")
        _ = try await KonexClient.mocked(
            try RecordingTransport(live: live(), fixture: file, mode: .once, environment: local)
        )
        .request("/posts").responseData()
        let before = try Data(contentsOf: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: directory.path)
        let recorder = try RecordingTransport(live: live(), fixture: file, mode: .newEpisodes, environment: local)
        let result = await Result { try await KonexClient.mocked(recorder).request("/posts/1").responseData() }
        if getuid() != 0 {  // root ignores directory permissions
            #expect(throws: KonexError.self) { try result.get() }
        }
        if (try? result.get()) == nil { #expect(try Data(contentsOf: file) == before) }
    }

    @Test func binaryBodiesAreBase64WithAMarkerAndRoundTrip() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("pixel.har")
        _ = try await KonexClient.mocked(
            try RecordingTransport(live: live(), fixture: file, mode: .once, environment: local)
        )
        .request("/pixel").responseData()
        let entry = try #require(try HAR.load(from: file).log.entries.first)
        #expect(entry.response.content.encoding == "base64")
        let replay = try RecordingTransport(live: MockTransport(), fixture: file, mode: .none, environment: local)
        #expect(
            try await KonexClient.mocked(replay).request("/pixel").responseData()
                == Data([0x89, 0x50, 0x4E, 0x47, 0x00, 0xFF]))
    }

    @Test func outputIsDeterministic() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var outputs: [Data] = []
        for name in ["a.har", "b.har"] {
            let file = directory.appendingPathComponent(name)
            let recorder = try RecordingTransport(
                live: live(), fixture: file, mode: .once, environment: local, now: fixedDate)
            _ = try await KonexClient.mocked(recorder).request("/posts/1").withAdapter(.header("X-B", "2")).withAdapter(
                .header("X-A", "1")
            ).responseData()
            var archive = try HAR.load(from: file)
            for index in archive.log.entries.indices {
                archive.log.entries[index].time = 0
                archive.log.entries[index].timings = HAR.Timings(send: 0, wait: 0, receive: 0)
            }
            outputs.append(try archive.encoded())
        }
        #expect(outputs[0] == outputs[1])
        let text = String(decoding: outputs[0], as: UTF8.self)
        #expect(text.range(of: "\"X-A\"")!.lowerBound < text.range(of: "\"X-B\"")!.lowerBound)
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

@Suite struct EchoedSecretTests {
    @Test func anAuthorizationHeaderEchoedInABodyIsRedactedToo() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("echo.har")
        // As httpbin's /get does: the request headers come back in the JSON body.
        let live = MockTransport(clock: ImmediateClock())
        live.stub(
            .get("/get"),
            .string(#"{"headers":{"Authorization":"Bearer tok-9","Accept":"*/*"}}"#, contentType: "application/json"))
        let recorder = try RecordingTransport(live: live, fixture: file, mode: .all, environment: [:])
        _ = try await KonexClient.mocked(recorder).request("/get").withAdapter(.bearer("tok-9")).response()
        let written = try String(contentsOf: file, encoding: .utf8)
        #expect(!written.contains("tok-9"))
        #expect(written.contains("json Authorization"))
    }
}
