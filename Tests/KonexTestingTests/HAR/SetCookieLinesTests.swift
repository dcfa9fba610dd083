import Foundation
import Konex
import KonexTesting
import Testing

/// `Set-Cookie` is the one field that cannot be joined into one line (RFC 9110 §5.3): a recording keeps its lines
/// apart, as AsyncHTTPClient hands them over.
@Suite struct SetCookieLinesTests {
    /// A server that answers with two `Set-Cookie` lines, kept apart as AsyncHTTPClient keeps them.
    struct TwoCookies: Transport {
        func send(_ request: TransportRequest, context: TransportContext) async throws -> (ResponseHead, ResponseBody) {
            let pairs: [(String, String)] = [
                ("Content-Type", "application/json"), ("Set-Cookie", "session=abc; Path=/; HttpOnly"),
                ("Set-Cookie", "theme=dark, light; Path=/"),
            ]
            let fields = HTTPHeaders(keepingRepeats: pairs)
            return (
                ResponseHead(statusCode: 200, headerFields: fields, url: request.url), ResponseBody(Data("{}".utf8))
            )
        }
    }

    @Test func aRecordingKeepsEachSetCookieLine() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cookies.har")
        let recorder = try RecordingTransport(
            live: TwoCookies(), fixture: file, mode: .once,
            environment: [:])
        _ = try await KonexClient.mocked(recorder).request("/login").responseData()
        let har = try HAR.load(from: file)
        let cookies = har.log.entries[0].response.headers.filter { $0.name.lowercased() == "set-cookie" }
        // Two lines, each redacted on its own (a cookie is a secret by meaning): not one joined line.
        #expect(cookies.count == 2, "\(cookies)")
    }
}
