import Foundation
import Konex
import TestSupport
import Testing

@testable import KonexTesting

/// One row per thing real tools write that HAR 1.2 does not say, each in a small file of our own.
@Suite struct HARReaderTests {
    /// A file with one entry: `entry` is merged into a minimal valid one (a `NSNull()` value writes `null`).
    static func file(
        entry changes: [String: Any] = [:], request: [String: Any] = [:], response: [String: Any] = [:],
        log: [String: Any] = [:], prefix: [UInt8] = []
    ) throws -> URL {
        var requestObject: [String: Any] = [
            "method": "GET", "url": "https://api.test/items?q=a+b", "httpVersion": "HTTP/1.1", "cookies": [],
            "headers": [["name": "Accept", "value": "application/json"]], "queryString": [], "headersSize": -1,
            "bodySize": 0,
        ]
        requestObject.merge(request) { $1 }
        var responseObject: [String: Any] = [
            "status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
            "headers": [["name": "Content-Type", "value": "application/json"]],
            "content": ["size": 8, "mimeType": "application/json", "text": "{\"a\":1}"], "redirectURL": "",
            "headersSize": -1, "bodySize": 8,
        ]
        responseObject.merge(response) { $1 }
        var entryObject: [String: Any] = [
            "startedDateTime": "2026-11-23T10:00:00.123Z", "time": 12.5, "request": requestObject,
            "response": responseObject, "cache": [:], "timings": ["send": 0, "wait": 12.5, "receive": 0],
        ]
        entryObject.merge(changes) { $1 }
        var logObject: [String: Any] = [
            "version": "1.2", "creator": ["name": "Tool", "version": "1"], "entries": [entryObject],
        ]
        logObject.merge(log) { $1 }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("konex-har-\(UUID().uuidString).har")
        try (Data(prefix) + JSONSerialization.data(withJSONObject: ["log": logObject])).write(to: url)
        return url
    }

    static func replay(_ url: URL, _ request: URLRequest) async throws -> (Data, ResponseHead) {
        let mock = MockTransport(clock: ImmediateClock())
        for endpoint in try HAR.load(from: url).endpoints(allowRepeats: true) { mock.stub(endpoint) }
        return try await mock.data(for: request)
    }

    static let get = URLRequest(url: URL(string: "https://api.test/items?q=a%20b")!)

    @Test(arguments: [
        ("a UTF-8 byte order mark", try file(prefix: [0xEF, 0xBB, 0xBF])),
        ("HAR 1.1", try file(log: ["version": "1.1"])),
        ("null pages", try file(log: ["pages": NSNull()])),
        ("null statusText", try file(response: ["statusText": NSNull()])),
        ("null redirectURL", try file(response: ["redirectURL": NSNull()])),
        ("null headersSize", try file(request: ["headersSize": NSNull()], response: ["headersSize": NSNull()])),
        ("null cache fields", try file(entry: ["cache": ["beforeRequest": NSNull(), "afterRequest": NSNull()]])),
        (
            "missing content.size",
            try file(response: ["content": ["mimeType": "application/json", "text": "{\"a\":1}"]])
        ),
        ("empty timings", try file(entry: ["timings": [:]])),
        ("missing timings and cookies", try file(entry: ["timings": NSNull()], request: ["cookies": NSNull()])),
        ("cookies as an object", try file(request: ["cookies": ["session": "abc"]])),
        (
            "header values as arrays",
            try file(response: ["headers": [["name": "Content-Type", "value": ["application/json"]]]])
        ),
        ("time as an integer", try file(entry: ["time": 12])),
        ("GET with postData", try file(request: ["postData": ["mimeType": "", "text": ""]])),
        (
            "unknown fields",
            try file(
                entry: ["_initiator": ["type": "script"], "pageref": "page_9"], request: ["settingEncodeUrl": true])
        ),
        ("`+` in the recorded query, %20 sent", try file()),
    ])
    func toleratedAndReplayed(rule: String, file: URL) async throws {
        defer { try? FileManager.default.removeItem(at: file) }
        let (body, response) = try await Self.replay(file, Self.get)
        #expect(response.statusCode == 200, "\(rule)")
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json", "\(rule)")
        #expect(body == Data("{\"a\":1}".utf8), "\(rule)")
    }

    @Test(arguments: [
        ("2026-11-23T10:00:00.123Z", 1_795_428_000.123),
        ("2026-11-23T10:00:00.123456+00:00", 1_795_428_000.123456),
        ("2010-08-30T16:47:34.2095733-04:00", 1_283_201_254.2095733),
        ("2026-11-23T12:00:00.5+02:00", 1_795_428_000.5),
        ("2026-11-23T10:00:00Z", 1_795_428_000),
    ])
    func startedDateTimeIn3To7DigitsWithZOrAnOffset(text: String, seconds: Double) throws {
        let date = try #require(LenientDate.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_001)
    }

    @Test func internetExplorerWritesMillisecondsWithoutPadding() throws {
        // IE 11: `.59` means 59 ms, not 590.
        let date = try #require(LenientDate.parse("2016-06-28T19:01:11.59+00:00", unpaddedMilliseconds: true))
        #expect(abs(date.timeIntervalSince1970.truncatingRemainder(dividingBy: 1) - 0.059) < 0.000_001)
    }

    @Test func postDataWithParamsAndNoTextRebuildsTheFormBody() async throws {
        let url = try Self.file(request: [
            "method": "POST",
            "postData": [
                "mimeType": "application/x-www-form-urlencoded",
                "params": [["name": "q", "value": "a b&c"], ["name": "n", "value": "1"]],
            ],
        ])
        defer { try? FileManager.default.removeItem(at: url) }
        let archive = try HAR.load(from: url)
        #expect(archive.log.entries[0].request.postData?.text == "q=a%20b%26c&n=1")
    }

    @Test func failedRequestsAreSkippedCountedAndReported() async throws {
        for status in [0, -1] {
            let url = try Self.file(response: ["status": status, "_error": "net::ERR_INTERNET_DISCONNECTED"])
            defer { try? FileManager.default.removeItem(at: url) }
            let (archive, skipped) = try HAR.read(from: url)
            #expect(archive.log.entries.isEmpty)
            #expect(
                skipped.map(\.description) == [
                    "entry 0: status \(status): the request failed before a response (net::ERR_INTERNET_DISCONNECTED)"
                ])
            let transport = try FixtureTransport(
                directory: FixtureDirectory(url.deletingLastPathComponent()).subset(url))
            #expect(transport.skippedEntries.count == 1)
        }
    }

    @Test(arguments: [
        ("not JSON", "{ this is not json", "not valid JSON"),
        ("not a HAR", #"{"entries": []}"#, "not a HAR (no \"log\" object at the top level)"),
        (
            "no entries array", #"{"log": {"version": "1.2", "entries": {}}}"#,
            "missing required field .log.entries (an array)"
        ),
        (
            "an entry without a URL",
            #"{"log": {"entries": [{"request": {"method": "GET"}, "response": {"status": 200}}]}}"#,
            "entry 0, field .log.entries[0].request.url: missing"
        ),
    ])
    func unusableFilesNameTheFileTheEntryAndTheField(problem: String, text: String, message: String) async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("konex-bad-\(UUID().uuidString).har")
        try Data(text.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let error = try await requireThrows(FixtureError.self) { try HAR.load(from: url) }
        #expect(error.description.contains(url.path), "\(problem)")
        #expect(error.description.contains(message), "\(problem): \(error)")
    }

    @Test func writingStaysStrictHAR12() throws {
        let url = try Self.file(
            response: ["statusText": NSNull(), "redirectURL": NSNull()], log: ["version": "1.1", "pages": NSNull()])
        defer { try? FileManager.default.removeItem(at: url) }
        let written = try JSONSerialization.jsonObject(with: try HAR.load(from: url).encoded()) as! [String: Any]
        let log = written["log"] as! [String: Any]
        let response = ((log["entries"] as! [[String: Any]])[0]["response"]) as! [String: Any]
        #expect(log["version"] as? String == "1.2")
        #expect(response["statusText"] as? String == "")
        #expect(response["redirectURL"] as? String == "")
    }
}

extension FixtureDirectory {
    /// A directory holding only `file` (copied), so a test loads one HAR through FixtureTransport.
    func subset(_ file: URL) throws -> FixtureDirectory {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("konex-one-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: file, to: folder.appendingPathComponent(file.lastPathComponent))
        return FixtureDirectory(folder)
    }
}

/// Numbers in other tools' files are hostile until bounded (the fuzz seeds that found these are in Fuzz/Corpus).
@Suite struct HARHostileNumberTests {
    @Test func manyFractionalDigitsAreReadNotOverflowed() throws {
        let date = try #require(LenientDate.parse("2024-01-02T03:04:05.1234567890123456789012345+01:00"))
        #expect(abs(date.timeIntervalSince1970 - 1_704_161_045.123_456_789) < 0.000_001)
    }

    @Test func absurdChunkTimingsReplayWithoutATrap() throws {
        #expect(Duration(clampedSeconds: 1e300 / 1_000, atMost: 86_400) == .seconds(86_400))
        #expect(Duration(clampedSeconds: -.infinity, atMost: 86_400) == .zero)
        #expect(Duration(clampedSeconds: .nan, atMost: 86_400) == .zero)
        #expect(EntryReader.text(1e300) == "1e+300")
    }

    @Test func absurdWebSocketMessageTimesReplayWithoutATrap() {
        // Int64(Double) of a gap of 1e300 s trapped; NaN, infinities and time running backwards must not either.
        let times: [Double] = [0, 1e300, .nan, -1e300, .infinity, -.infinity, 1.5, 1.25]
        let messages = times.map { HAR.WebSocketMessage(type: "receive", time: $0, opcode: 1, data: "m") }
        let waits = MockTransport.script(replaying: messages, pacing: true, strictSends: false).compactMap { step in
            if case .send(_, let gap) = step { return gap } else { return nil }
        }
        #expect(waits.count == times.count)
        #expect(waits.allSatisfy { $0 >= .zero && $0 <= .seconds(86_400) })
        #expect(waits.contains(.seconds(86_400)))
    }
}
