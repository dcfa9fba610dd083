import Foundation
import Konex
import KonexTesting
import TestSupport
import Testing

@Suite struct FixtureTransportTests {
    let fixtures = FixtureDirectory(besides: #filePath, named: "../Fixtures/api")

    @Test func conventionFilesAnswerByMethodAndPath() async throws {
        let client = try KonexClient.fixtures(fixtures)
        #expect(try await client.request("/posts").responseArray(of: Post.self).count == 2)
        #expect(try await client.request("/posts/1").responseObject(of: Post.self) == Post(id: 1, title: "Hello"))
        #expect(try await client.request("/").responseString() == "welcome\n")
    }

    @Test func metadataSetsStatusHeadersDelayAndFault() async throws {
        let clock = ImmediateClock()
        let client = try KonexClient.fixtures(fixtures, clock: clock)
        struct Create: KonexRequest {
            let path = "/posts"
            let method: HTTPMethod = .post
        }
        let created = try await client.request(Create()).validate().response(of: Post.self)
        #expect(created.statusCode == 201)
        #expect(created.value(forHTTPHeaderField: "Location") == "/posts/3")
        #expect(clock.now.offset == .milliseconds(1500))
        struct Remove: KonexRequest {
            let path = "/posts/2"
            let method: HTTPMethod = .delete
        }
        #expect(try await client.request(Remove()).validate().response().statusCode == 204)
        let offline = try await requireThrows(KonexError.self) {
            try await client.request("/offline").responseData()
        }
        #expect((offline.underlyingError as? URLError)?.code == .notConnectedToInternet)
    }

    @Test func directoryWideDelay() async throws {
        let clock = ImmediateClock()
        let client = try KonexClient.fixtures(fixtures, delay: .fixed(.milliseconds(250)), clock: clock)
        _ = try await client.request("/posts/1").responseData()
        #expect(clock.now.offset == .milliseconds(250))
    }

    @Test func harFilesReplayIdenticalRequestsInRecordedOrder() async throws {
        let directory = FixtureDirectory(besides: #filePath, named: "../Fixtures/har")
        let client = try KonexClient.fixtures(directory)
        #expect(try await client.request("/search?q=swift").responseJSON() == ["page": 1])
        #expect(try await client.request("/search?q=swift").responseJSON() == ["page": 2])
        await #expect(throws: KonexError.self) { try await client.request("/search?q=swift").responseJSON() }
        let repeating = try FixtureTransport(directory: directory, clock: ImmediateClock(), allowRepeats: true)
        let client2 = KonexClient.mocked(repeating)
        for expected in [1, 2, 2] {
            #expect(try await client2.request("/search?q=swift").responseJSON()["page"] == .int(expected))
        }
    }

    @Test(arguments: ["../secrets.json", "/etc/passwd", "posts/../../x.json", "~/x"])
    func pathsCannotEscapeTheDirectory(path: String) throws {
        #expect(throws: FixtureError.self) { try fixtures.url(path) }
    }

    @Test func symlinksOutOfTheDirectoryAreRejected() async throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let outside = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: outside) }
        try Data("secret".utf8).write(to: outside.appendingPathComponent("secret.get.json"))
        try FileManager.default.createSymbolicLink(
            at: root.appendingPathComponent("link"), withDestinationURL: outside)
        let directory = FixtureDirectory(root)
        let error = try await requireThrows(FixtureError.self) { try directory.url("link/secret.get.json") }
        #expect(error.description.contains("outside"))
        let transport = try FixtureTransport(directory: directory, clock: ImmediateClock())
        #expect(transport.mock.unusedEndpoints.isEmpty)  // the symlinked fixture was not loaded
    }

    @Test func serveMapsADiskPathWithDelay() async throws {
        let clock = ImmediateClock()
        let transport = try FixtureTransport(directory: fixtures, clock: clock)
        try transport.serve("posts/1.get.json", for: .get("/users/me"), delay: .seconds(2))
        #expect(throws: FixtureError.self) { try transport.serve("nope.json", for: .get("/x")) }
        let post = try await KonexClient.mocked(transport).request("/users/me").responseObject(of: Post.self)
        #expect(post.id == 1)
        #expect(clock.now.offset == .seconds(2))
    }

    @Test(arguments: [
        ("malformed", "malformed HAR file"),
        ("missing", "entry 0, field .log.entries[0].request: missing or not an object"),
        ("meta", "malformed fixture metadata"),
    ])
    func malformedFixturesNameFileAndField(folder: String, message: String) async throws {
        let directory = FixtureDirectory(besides: #filePath, named: "../Fixtures/bad/\(folder)")
        let error = try await requireThrows(FixtureError.self) { try FixtureTransport(directory: directory) }
        #expect(error.description.contains(message), "\(error)")
    }

    @Test func missingDirectoryIsAnError() {
        #expect(throws: FixtureError.self) {
            try FixtureTransport(directory: FixtureDirectory(URL(fileURLWithPath: "/nonexistent-konex")))
        }
    }
}

/// Fixtures shipped as SwiftPM resources (`resources: [.copy("Fixtures")]`), as a device or simulator needs them.
@Suite struct BundledFixtureTests {
    @Test func fixturesLoadFromTheTestTargetsResourceBundle() async throws {
        let fixtures = try FixtureDirectory(bundle: .module, named: "Fixtures/blog")
        #expect(fixtures.root.path.hasPrefix(Bundle.module.bundlePath))
        let client = try KonexClient.fixtures(fixtures)
        let article = try await client.request("/posts/1").validate().responseJSON()
        #expect(article["title"] == "Hello, Konex")
    }

    @Test func aMissingResourceFolderSaysHowToDeclareIt() async throws {
        let error = try await requireThrows(FixtureError.self) { try FixtureDirectory(bundle: .module, named: "Nope") }
        #expect(error.description.contains("resources: [.copy(\"Nope\")]"))
    }
}

/// `.sse` fixtures: a recorded event stream served event by event, paced by its sidecar, on the test's clock.
@Suite struct EventStreamFixtureTests {
    struct Delta: Decodable, Sendable { let text: String }

    @Test func anSSEFixtureStreamsItsEventsWithTheirPacing() async throws {
        let clock = ManualClock()
        let fixtures = FixtureDirectory(besides: #filePath, named: "../Fixtures/stream")
        let client = try KonexClient.fixtures(fixtures, clock: clock)
        let stream = try await client.request("/chat").validate().stream()
        #expect(stream.headers["Content-Type"] == "text/event-stream")
        let text = Lock("")
        let reader = Task {
            for try await delta in stream.events(decoding: Delta.self, until: "[DONE]") {
                text.withLock { $0 += delta.text }
            }
        }
        try await clock.waitForSleepers()
        clock.advance(by: .milliseconds(200))
        try await WaitTimeout.wait(for: "the first delta; have \(text.value)") { text.value == "Hel" }
        try await clock.waitForSleepers()
        clock.advance(by: .milliseconds(20))
        try await WaitTimeout.wait(for: "the second delta") { text.value == "Hello" }
        try await clock.waitForSleepers()
        clock.advance(by: .milliseconds(20))
        try await reader.value
        #expect(text.value == "Hello")
    }

    @Test func readWholeTheFixtureIsTheRecordedText() async throws {
        let fixtures = FixtureDirectory(besides: #filePath, named: "../Fixtures/stream")
        let clock = ImmediateClock()
        let body = try await KonexClient.fixtures(fixtures, clock: clock).request("/chat").responseString()
        #expect(body.hasPrefix("id: 1\nevent: delta\ndata: {\"text\":\"Hel\"}\n\n"))
        #expect(body.hasSuffix("data: [DONE]\n\n"))
        #expect(clock.now.offset == .milliseconds(240))
    }
}
