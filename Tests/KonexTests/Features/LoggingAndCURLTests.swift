import Foundation
import KonexTesting
import Testing

@testable import Konex

@Suite struct LoggingAndCURLTests {
    struct Login: KonexRequest {
        let path = "/login?access_token=qs-secret&page=1"
        let method: HTTPMethod = .post
        var body: RequestBody? { .json(["user": "ada", "password": "hunter2"]) }
        var headers: [String: String]? {
            ["Authorization": "Bearer live", "Cookie": "sid=1", "X-API-Key": "k-9", "X-Request-Id": "r-1"]
        }
    }

    @Test func loggerRedactsEveryListedItem() async throws {
        let lines = Lock<[String]>([])
        let (client, _) = makeClient {
            $0.stub(
                .post("/v1/login"),
                .json(["access_token": "resp-secret", "ok": "yes"], headers: ["Set-Cookie": "sid=2"]))
        }
        var redaction = Redaction.default
        redaction.headers.insert("x-request-id")
        _ = try await client.request(Login())
            .withPlugin(
                .logging(level: .bodies, redaction: redaction) { @Sendable line in lines.withLock { $0.append(line) } }
            )
            .response()
        let log = lines.value.joined(separator: "\n")
        for secret in ["live", "sid=1", "sid=2", "k-9", "r-1", "qs-secret", "hunter2", "resp-secret"] {
            #expect(!log.contains(secret), "\(secret) was logged")
        }
        #expect(log.contains("→ POST https://api.test/v1/login?access_token=REDACTED&page=1"))
        #expect(log.contains("← 200 POST"))
        #expect(log.contains("\"user\":\"ada\""))
        #expect(log.contains("\"ok\":\"yes\""))
    }

    @Test func loggerLevelsAndBodyCap() async throws {
        let lines = Lock<[String]>([])
        let (client, _) = makeClient { $0.stub(.get("/v1/x"), .string(String(repeating: "y", count: 50))) }
        _ = try await client.request("x").withPlugin(
            .logging(level: .basic) { @Sendable l in lines.withLock { $0.append(l) } }
        ).response()
        _ = try await client.request("x").withPlugin(
            .logging(level: .bodies, bodyLimit: 10) { @Sendable l in lines.withLock { $0.append(l) } }
        ).response()
        #expect(lines.value[0] == "→ GET https://api.test/v1/x")
        #expect(lines.value[1].hasPrefix("← 200 GET https://api.test/v1/x ("))
        #expect(!lines.value[1].contains("Content-Type"))
        #expect(lines.value[3].contains("  " + String(repeating: "y", count: 10) + "… (50 bytes)"))
        #expect(lines.value[3].contains("Content-Type: text/plain"))
    }

    @Test func loggerReportsFailures() async throws {
        let lines = Lock<[String]>([])
        let (client, _) = makeClient { $0.stub(.get("/v1/x"), .fault(.timeout)) }
        _ = try? await client.request("x").withPlugin(.logging { @Sendable l in lines.withLock { $0.append(l) } })
            .response()
        #expect(lines.value.last?.hasPrefix("✕ GET https://api.test/v1/x: transport: timedOut") == true)
    }

    @Test func cURLShowsWhatWouldBeSentRedacted() async throws {
        let (client, _) = makeClient()
        let command = try await client.request(Login()).withAdapter(.header("X-Trace", "it's")).cURLDescription()
        #expect(command.hasPrefix("curl -X POST 'https://api.test/v1/login?access_token=REDACTED&page=1'"))
        #expect(command.contains("-H 'Authorization: REDACTED'"))
        #expect(command.contains("-H 'Cookie: REDACTED'"))
        #expect(command.lowercased().contains("-h 'x-api-key: redacted'"))
        #expect(command.contains("-H 'X-Trace: it'\\''s'"))
        // The body keeps its bytes and their order (the encoder's); only the password's value is replaced.
        #expect(command.contains("--data-binary '{"))
        #expect(command.contains("\"password\":\"REDACTED\""))
        #expect(command.contains("\"user\":\"ada\""))
    }

    @Test func cURLUnredactedOnRequest() async throws {
        let (client, _) = makeClient()
        let command = try await client.request(Login()).cURLDescription(redaction: nil)
        #expect(command.contains("Authorization: Bearer live"))
        #expect(command.contains("hunter2"))
    }
}
