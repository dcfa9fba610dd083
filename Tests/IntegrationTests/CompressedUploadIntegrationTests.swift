import Foundation
import Konex
import Testing

/// Issue 55, item 4, over a real socket on each transport: a compressed body past 1 MiB (compressed into a file)
/// goes with its `Content-Length`, not chunked, so servers that need a length (411) and signed upload URLs take it.
@Suite(.enabled(if: Server.isAvailable, Server.skipReason))
struct CompressedUploadIntegrationTests {
    struct Upload: KonexRequest {
        let path = "/anything/upload"
        let method = HTTPMethod.post
        let payload: Data
        var body: RequestBody? { .data(payload, contentType: "application/json") }
    }

    @Test func aLargeCompressedBodyArrivesWithItsLengthAndNotChunked() async throws {
        // 2 MB of JSON-like text: past the 1 MiB a body is compressed in memory, so it goes from a file.
        let line = Data(#"{"level":"info","message":"request finished in 12 ms","tags":["api","v2"]},"#.utf8)
        var payload = Data()
        while payload.count < 2_000_000 { payload.append(line) }
        let seen = Lock<Int?>(nil)
        let measure: @Sendable (TransportRequest) async throws -> TransportRequest = { request in
            seen.withLock { $0 = request.body?.byteCount }
            return request
        }
        let echo = try await Server.client().request(Upload(payload: payload)).compressingBody(.gzip)
            .withAdapter(.custom(measure)).validate().responseObject(of: Echo.self)
        let length: Int = try #require(seen.value)
        #expect(length < payload.count / 5)
        #expect(echo.headers["Content-Length"] == String(length), "\(echo.headers)")
        #expect(echo.headers["Transfer-Encoding"] == nil, "\(echo.headers)")
        #expect(echo.headers["Content-Encoding"] == "gzip")
    }
}
