import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// A transport that writes bodies to files itself hands each file to Konex: read into memory, it is removed.
@Suite struct TransportFileBodyTests {
    final class WritesFiles: Transport {
        let written = Lock<[URL]>([])
        func send(_ request: TransportRequest, context: TransportContext) async throws -> (ResponseHead, ResponseBody) {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("konex-body-\(UUID().uuidString)")
            try Data(#"{"id":1,"title":"one"}"#.utf8).write(to: file)
            written.withLock { $0.append(file) }
            return (ResponseHead(statusCode: 200, url: request.url), .file(file))
        }
    }

    @Test func aWholeBodyAnsweredWithAFileLeavesNoFileBehind() async throws {
        let transport = WritesFiles()
        let client = KonexClient(baseURL: api, transport: transport)
        let post = try await client.request("posts/1").responseObject(of: Post.self)
        #expect(post == Post(id: 1, title: "one"))
        let files = transport.written.value
        #expect(files.count == 1)
        #expect(files.allSatisfy { !FileManager.default.fileExists(atPath: $0.path) }, "\(files)")
    }
}
