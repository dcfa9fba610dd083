import Foundation
import Konex
import Testing

@testable import KonexTesting

@Suite struct FixtureReportTests {
    /// A fixture folder with one of each kind of problem, and a few good files.
    func folder() async throws -> FixtureDirectory {
        let root = try temporaryDirectory()
        func write(_ path: String, _ text: String) throws {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        try write("posts.get.json", #"[{"id":1}]"#)
        try write("posts/1.delete.json", "")  // an empty 204 body
        try write("broken.get.json", #"{"id":"#)
        try write("leak.get.json", #"{"token":"sk-live-123456"}"#)
        // A recorded session with an Authorization header left in, written in 2020.
        let live = MockTransport(clock: ImmediateClock()).stubbing(.anything, .json(["ok": true] as JSON))
        var nothing = Redaction(headers: [], queryItems: [], jsonFields: [])
        nothing.recognisesSecretNames = false
        let recorder = try RecordingTransport(
            live: live, fixture: root.appendingPathComponent("session.har"), mode: .all,
            redaction: nothing, environment: [:],
            now: { Date(timeIntervalSince1970: 1_600_000_000) })
        _ = try await KonexClient.mocked(recorder).request("/me").withAdapter(.bearer("abc")).response()
        return FixtureDirectory(root)
    }

    @Test func findsEachKindOfProblemAndPassesTheRest() async throws {
        let fixtures = try await folder()
        defer { try? FileManager.default.removeItem(at: fixtures.root) }
        let report = FixtureReport.check(
            fixtures, maximumAge: 365, secrets: ["sk-live-123456"], now: Date(timeIntervalSince1970: 1_800_000_000))
        func findings(_ file: String) -> [String] {
            report.findings.filter { $0.file == file }.map { "\($0.severity.rawValue): \($0.message)" }
        }
        #expect(findings("posts.get.json") == ["ok: ok"])
        #expect(findings("posts/1.delete.json") == ["ok: ok"])
        #expect(findings("broken.get.json") == ["problem: not valid JSON"])
        #expect(findings("leak.get.json") == ["problem: holds registered secret number 1 of 1"])
        #expect(!report.findings.contains { $0.message.contains("sk-") })
        #expect(findings("session.har").contains("problem: entry 0: header Authorization is not redacted"))
        #expect(findings("session.har").contains("problem: entry 0 is 2314 days old (limit 365): record it again"))
        #expect(report.hasProblems)
        #expect(report.table.hasSuffix("4 problem(s)"))
    }

    @Test func aJournalListsFixturesNoTestUsed() async throws {
        let fixtures = try await folder()
        defer { try? FileManager.default.removeItem(at: fixtures.root) }
        let report = FixtureReport.check(fixtures, journal: ["GET /posts", "GET /me"])
        let unused = report.findings.filter { $0.file == "(journal)" }.map(\.message)
        #expect(unused.contains("never used: DELETE /posts/1"))
        #expect(!unused.contains { $0.hasSuffix("GET /posts") || $0.hasSuffix("GET /me") })
    }

    @Test func aCleanFolderHasNoProblems() throws {
        let blog = FixtureDirectory(besides: #filePath, named: "../Fixtures/blog")
        let report = FixtureReport.check(blog)
        #expect(!report.hasProblems, "\(report.table)")
        #expect(report.table.hasSuffix("no problems"))
    }
}
