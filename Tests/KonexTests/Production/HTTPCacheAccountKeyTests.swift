import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// The cache separates accounts by what a header means, never by how the client logs it; a header that only
/// identifies one request (an idempotency key, a request id) separates nothing.
@Suite struct HTTPCacheAccountKeyTests {
    func client(redaction: Redaction = .default) -> (KonexClient, MockTransport) {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/me"), .json(["plan": "pro"], headers: ["Cache-Control": "private, max-age=600"]))
        let client = KonexClient(
            baseURL: api, transport: mock,
            interceptors: [HTTPCache(storage: .memory(capacity: 1 << 20), cookieStorage: nil)], redaction: redaction)
        return (client, mock)
    }

    @Test func aRedactionThatShowsAnAPIKeyInLogsStillKeepsTenantsApart() async throws {
        var shown = Redaction.default
        shown.headers.remove("x-api-key")
        shown.recognisesSecretNames = false
        #expect(!shown.isCredential(header: "X-API-Key"))  // the logging choice
        let (client, mock) = client(redaction: shown)
        _ = try await client.request("me").withAdapter(.header("X-API-Key", "tenant-a")).response()
        let other = try await client.request("me").withAdapter(.header("X-API-Key", "tenant-b")).response()
        #expect(other.source == .network)
        #expect(mock.requestCount == 2)
    }

    @Test(arguments: ["Idempotency-Key", "X-Request-ID", "X-Correlation-ID", "traceparent"])
    func aPerRequestNonceDoesNotDefeatCaching(header: String) async throws {
        let (client, mock) = client()
        _ = try await client.request("me").withAdapter(.header(header, UUID().uuidString)).response()
        let again = try await client.request("me").withAdapter(.header(header, UUID().uuidString)).response()
        #expect(again.source == .cache)
        #expect(mock.requestCount == 1)
    }
}
