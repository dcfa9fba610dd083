import Foundation
import Konex
import KonexTesting
import Testing

/// A login recorded through a cookie jar, then replayed through one: the HAR shows the cookies as they were sent and
/// set (names kept, values redacted), and the replay sets and sends them by name.
@Suite struct HARCookieTests {
    struct LogIn: KonexRequest {
        var path: String { "/login" }
        var method: HTTPMethod { .post }
    }

    @Test func aRecordedLoginReplaysThroughAJar() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("login.har")
        let live = MockTransport(clock: ImmediateClock())
        live.stub(.post("/login"), .status(204, headers: ["Set-Cookie": "session=s3cr3t-token; Path=/; HttpOnly"]))
        live.stub(.get("/me"), .json(["name": "Ada"]))
        let recorder = try RecordingTransport(live: live, fixture: file, mode: .once, environment: [:])
        let recording = KonexClient.mocked(recorder, cookieJar: CookieJar(publicSuffixes: nil))
        _ = try await recording.request(LogIn()).response()
        _ = try await recording.request("/me").responseData()
        #expect(live.requests.last?.header("Cookie") == "session=s3cr3t-token")

        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains("s3cr3t-token"))
        let entries = try HAR.load(from: file).log.entries
        #expect(entries[0].response.cookies.map(\.name) == ["session"])
        #expect(
            entries[0].response.headers.first { $0.name.lowercased() == "set-cookie" }?.value
                == "session=REDACTED; Path=/; HttpOnly")
        #expect(entries[1].request.cookies.map { "\($0.name)=\($0.value)" } == ["session=REDACTED"])
        #expect(entries[1].request.headers.first { $0.name.lowercased() == "cookie" }?.value == "session=REDACTED")

        let replay = try KonexClient.fixtures(FixtureDirectory(directory), cookieJar: CookieJar(publicSuffixes: nil))
        _ = try await replay.request(LogIn()).response()
        let me = try await replay.request("/me").responseObject(of: [String: String].self)
        #expect(me == ["name": "Ada"])
        #expect(replay.cookieJar?.all.map { "\($0.name)=\($0.value)" } == ["session=REDACTED"])
    }
}
