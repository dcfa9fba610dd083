import Foundation
import Konex
import KonexTesting
import Testing

/// Checks a recorded file against the HAR 1.2 structure: required fields, with their JSON types.
@Suite struct HARStructureTests {
    @Test func recordedFileHasEveryRequiredHAR12Field() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("x.har")
        let live = MockTransport(clock: ImmediateClock()).stubbing(.post("/things"), .json(["id": 1], status: 201))
        let recorder = try RecordingTransport(live: live, fixture: file, mode: .once, environment: [:])
        struct Create: KonexRequest {
            let path = "/things?x=1"
            let method: HTTPMethod = .post
            var body: RequestBody? { .json(["name": "thing"]) }
        }
        _ = try await KonexClient.mocked(recorder).request(Create()).responseData()

        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let log = try object(root, "log")
        try expectString(log, "version", equals: "1.2")
        let creator = try object(log, "creator")
        try expectString(creator, "name")
        try expectString(creator, "version")
        let entries = try #require(log["entries"] as? [[String: Any]])
        #expect(entries.count == 1)
        let entry = entries[0]
        try expectString(entry, "startedDateTime")
        #expect(ISO8601DateFormatter.withFractions.date(from: entry["startedDateTime"] as! String) != nil)
        try expectNumber(entry, "time")
        #expect(entry["cache"] is [String: Any])
        let timings = try object(entry, "timings")
        for key in ["send", "wait", "receive"] { try expectNumber(timings, key) }

        let request = try object(entry, "request")
        try expectString(request, "method", equals: "POST")
        try expectString(request, "url", equals: "https://api.test/things?x=1")
        try expectString(request, "httpVersion")
        for key in ["cookies", "headers", "queryString"] { try expectNameValueList(request, key) }
        try expectNumber(request, "headersSize")
        try expectNumber(request, "bodySize")
        let postData = try object(request, "postData")
        try expectString(postData, "mimeType", equals: "application/json")
        try expectString(postData, "text")

        let response = try object(entry, "response")
        #expect(response["status"] as? Int == 201)
        try expectString(response, "statusText")
        try expectString(response, "httpVersion")
        try expectString(response, "redirectURL")
        for key in ["cookies", "headers"] { try expectNameValueList(response, key) }
        try expectNumber(response, "headersSize")
        try expectNumber(response, "bodySize")
        let content = try object(response, "content")
        try expectNumber(content, "size")
        try expectString(content, "mimeType")
    }

    @Test func harRoundTripsThroughCodable() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../Fixtures/har/search.har")
        let archive = try HAR.load(from: file)
        let again = try JSONDecoder().decode(HAR.self, from: archive.encoded())
        #expect(again == archive)
        #expect(archive.log.entries.count == 2)
    }

    private func object(_ parent: [String: Any], _ key: String) throws -> [String: Any] {
        try #require(parent[key] as? [String: Any], "\(key) must be an object")
    }

    private func expectString(_ parent: [String: Any], _ key: String, equals expected: String? = nil) throws {
        let value = try #require(parent[key] as? String, "\(key) must be a string")
        if let expected { #expect(value == expected) }
    }

    private func expectNumber(_ parent: [String: Any], _ key: String) throws {
        #expect(parent[key] is NSNumber, "\(key) must be a number")
    }

    private func expectNameValueList(_ parent: [String: Any], _ key: String) throws {
        let list = try #require(parent[key] as? [[String: Any]], "\(key) must be an array of objects")
        for item in list {
            #expect(item["name"] is String && item["value"] is String, "\(key) items need string name and value")
        }
    }
}

extension ISO8601DateFormatter {
    static var withFractions: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
