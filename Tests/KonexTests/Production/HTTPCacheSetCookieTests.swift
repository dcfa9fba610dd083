import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// A 304's `Set-Cookie` lines reach the caller who revalidated, each its own field (RFC 9110 §5.3 exempts
/// `Set-Cookie` from joining), and are never stored for the next caller.
@Suite struct HTTPCacheSetCookieTests {
    /// A document that must be revalidated each time, then a 304 with two `Set-Cookie` lines.
    final class Server: Transport {
        let calls = Lock(0)
        func send(_ request: TransportRequest, context: TransportContext) async throws -> (ResponseHead, ResponseBody) {
            let call = calls.withLock { calls -> Int in
                calls += 1
                return calls
            }
            if call == 1 {
                let fields: HTTPHeaders = ["Cache-Control": "no-cache", "ETag": "\"v1\"", "Content-Type": "text/plain"]
                return (
                    ResponseHead(statusCode: 200, headerFields: fields, url: request.url), ResponseBody(Data("v1".utf8))
                )
            }
            let pairs: [(String, String)] = [
                ("ETag", "\"v1\""), ("Set-Cookie", "session=abc; Path=/"), ("Set-Cookie", "seen=1, 2; Path=/"),
            ]
            let fields = HTTPHeaders(keepingRepeats: pairs)
            return (ResponseHead(statusCode: 304, headerFields: fields, url: request.url), ResponseBody(Data()))
        }
    }

    @Test func aRevalidationsSetCookieLinesStayApartAndAreNotStored() async throws {
        let server = Server()
        let client = KonexClient(
            baseURL: api, transport: server,
            interceptors: [HTTPCache(storage: .memory(capacity: 1 << 20), cookieStorage: nil)])
        _ = try await client.request("doc").response()
        let revalidated = try await client.request("doc").response()
        #expect(revalidated.source == .revalidated)
        #expect(revalidated.data == Data("v1".utf8))
        #expect(
            revalidated.response.headerFields.values(for: "Set-Cookie") == ["session=abc; Path=/", "seen=1, 2; Path=/"])
        #expect(server.calls.value == 2)
    }
}
