import Foundation
import Konex
import KonexTesting
import TestSupport
import Testing

/// One redaction, the client's, governs every sink: a name only the client's redaction lists never reaches a log, a
/// cURL command, an error's description, `explain()`, a HAR file (text, base64 bodies, binary WebSocket messages) or a
/// stream's error, although none of those sinks was given a redaction of its own.
@Suite struct ClientRedactionTests {
    static let tag = "CANARY-tag-s1"
    static let diagnosis = "CANARY-diagnosis-s2"
    static let session = "CANARY-session-s3"
    static let binary = "CANARY-binary-s4"

    /// Lists three names the default redaction does not know.
    static var custom: Redaction {
        var redaction = Redaction.default
        redaction.headers.insert("x-tenant-tag")
        redaction.jsonFields.insert("diagnosis")
        redaction.queryItems.insert("session")
        return redaction
    }

    func server() -> MockTransport {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/people"), .json(["diagnosis": Self.diagnosis], status: 422))
        // One byte that is not UTF-8 makes the body base64 in a HAR file; the field beside it is still secret.
        mock.stub(
            .get("/v1/legacy"),
            .data(
                Data(#"{"name":"ada","diagnosis":""#.utf8) + Data(Self.diagnosis.utf8) + Data(#""}"#.utf8)
                    + Data([0xFF]),
                contentType: "application/json"))
        mock.stub(.get("/v1/feed"), .chunks([.text("data: 1\n\n")], contentType: "text/plain"))
        return mock
    }

    @Test func theClientsRedactionReachesSinksThatWereGivenNone() async throws {
        // The default lets all three through, so only the client's redaction can hide them.
        #expect(!Redaction.default.isSecret(header: "X-Tenant-Tag"))
        #expect(Redaction.default.redactJSON(#"{"diagnosis":"1"}"#) == #"{"diagnosis":"1"}"#)
        #expect(Redaction.default.url("https://a.test/?session=1") == "https://a.test/?session=1")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = directory.appendingPathComponent("session.har")
        let recorder = try RecordingTransport(live: server(), fixture: fixture, mode: .all, environment: [:])
        let lines = Lock<[String]>([])
        let client = KonexClient(
            baseURL: URL(string: "https://api.test/v1")!, transport: recorder,
            plugins: [LoggingPlugin(level: .bodies) { line in lines.withLock { $0.append(line) } }],
            redaction: Self.custom)
        client.adapters = [.header("X-Tenant-Tag", Self.tag)]
        var texts: [String] = []

        let people = client.request("people?session=\(Self.session)")
        texts.append(try await people.cURLDescription())
        texts.append(people.explain().url ?? "")
        let error = try await requireThrows(KonexError.self) { try await people.validate().responseData() }
        #expect(error.statusCode == 422)
        // The error keeps the body for code; only what is written out is redacted.
        #expect(error.data.map { String(decoding: $0, as: UTF8.self) }?.contains(Self.diagnosis) == true)
        texts += [error.description, error.debugDescription, error.bodySnippet ?? ""]
        let decoding = try await requireThrows(KonexError.self) {
            try await client.request("people?session=\(Self.session)").responseObject(of: [Int].self)
        }
        #expect(decoding.stage == .decoding)
        texts.append(decoding.description)
        _ = try await client.request("legacy").responseData()
        let stream = try await client.request("feed?session=\(Self.session)").stream()
        let notEvents = try await requireThrows(KonexError.self) { for try await _ in stream.events() {} }
        #expect(notEvents.stage == .validation)
        texts.append(notEvents.description)

        try await WaitTimeout.wait(for: "the streamed entry is written") {
            ((try? HAR.load(from: fixture))?.log.entries.count ?? 0) >= 4
        }
        let har = try Data(contentsOf: fixture)
        let archive = try HAR.load(from: fixture)
        let legacy = try #require(archive.log.entries.first { $0.request.url.hasSuffix("/legacy") })
        #expect(legacy.response.content.encoding == "base64")
        let legacyBody = try #require(Data(base64Encoded: legacy.response.content.text ?? ""))
        #expect(legacyBody.range(of: Data("REDACTED".utf8)) != nil)
        #expect(legacyBody.last == 0xFF)  // the bytes around the secret are kept as they were
        let sinks: [(String, Data)] = [
            ("log lines", Data(lines.value.joined(separator: "\n").utf8)),
            ("cURL, explain and errors", Data(texts.joined(separator: "\n").utf8)),
            ("the HAR file", har), ("the HAR file's base64 body", legacyBody),
        ]
        #expect(lines.value.count >= 8)
        for (sink, data) in sinks {
            for canary in [Self.tag, Self.diagnosis, Self.session] {
                #expect(data.range(of: Data(canary.utf8)) == nil, "\(canary) reached \(sink)")
            }
        }
    }

    @Test func aSinkGivenItsOwnRedactionKeepsIt() async throws {
        let lines = Lock<[String]>([])
        let client = KonexClient(
            baseURL: URL(string: "https://api.test/v1")!, transport: server(),
            plugins: [LoggingPlugin(level: .basic, redaction: .default) { line in lines.withLock { $0.append(line) } }],
            redaction: Self.custom)
        _ = try await client.request("feed?session=\(Self.session)").responseData()
        #expect(lines.value.joined().contains(Self.session))  // the plugin asked for the default, which shows it
        #expect(Redaction.current == .default)  // outside a request
        #expect(try await client.request("feed?session=x").cURLDescription(redaction: nil).contains("session=x"))
    }

    /// Registered secrets are a tripwire, not a rule: found in a body stored as base64, the file is not written.
    @Test func aRegisteredSecretInsideABase64PayloadStopsTheWrite() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var strict = Redaction.default
        strict.secrets = [Self.binary]
        let live = MockTransport(clock: ImmediateClock())
        live.stub(.get("/v1/avatar"), .data(Data([0x89, 0xFF]) + Data(Self.binary.utf8), contentType: "image/png"))
        let file = directory.appendingPathComponent("avatar.har")
        let recorder = try RecordingTransport(
            live: live, fixture: file, mode: .all, redaction: strict, environment: [:])
        let client = KonexClient(baseURL: URL(string: "https://api.test/v1")!, transport: recorder)
        let error = try await requireThrows(KonexError.self) { try await client.request("avatar").responseData() }
        let refusal = String(describing: error.underlyingError!)
        #expect(refusal.contains("still contains registered secret number 1 of 1"))
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }
}
