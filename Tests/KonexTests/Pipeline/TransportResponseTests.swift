import Foundation
import KonexTesting
import Testing

@testable import Konex

/// `TransportResponse` holds its reply by reference: a copy changed by a plugin's code must not change the original.
@Suite struct TransportResponseTests {
    let head = ResponseHead(statusCode: 200, url: URL(string: "https://api.example.com/posts")!)
    let timing = RequestTiming(startDate: Date(), total: .milliseconds(5), transport: .milliseconds(4), attempt: 2)

    @Test func aChangedCopyLeavesTheOriginalAsItWas() {
        let original = TransportResponse(response: head, data: Data("[]".utf8), timing: timing)
        var copy = original
        copy.source = .cache
        copy.isShared = true
        copy.redirects = [Redirect(url: URL(string: "https://api.example.com/old")!, statusCode: 301)]

        #expect(original.source == .network)
        #expect(!original.isShared)
        #expect(original.redirects.isEmpty)
        #expect(copy.source == .cache)
        #expect(copy.isShared)
        #expect(copy.redirects.map(\.statusCode) == [301])
        // What the change did not touch is kept.
        #expect(copy.data == Data("[]".utf8))
        #expect(copy.timing == timing)
        #expect(copy.response.statusCode == 200)
    }

    @Test func aDownloadsResponseKeepsTheStartOfItsErrorBesideTheFile() {
        let file = URL(fileURLWithPath: "/tmp/konex-never-written")
        let response = TransportResponse(response: head, data: Data("oops".utf8), timing: timing, file: file)
        #expect(response.file == file)
        #expect(response.data == Data("oops".utf8))
    }

    @Test func pluginsSeeTheBodyAsReceivedAndTheTerminalTheProcessedOne() async throws {
        let watch = AnswerWatch { $0.data }
        let (client, _) = makeClient { $0.stub(.get("/v1/posts"), .string(#"{"data":[1,2]}"#)) }
        let response = try await client.request("/posts").withPlugin(watch)
            .process { data, _ in Data(data.dropFirst(8).dropLast()) }
            .response()
        #expect(watch.seen == [Data(#"{"data":[1,2]}"#.utf8)])
        #expect(response.value == Data("[1,2]".utf8))
        #expect(response.data == Data(#"{"data":[1,2]}"#.utf8))
        #expect(response.request.url.path == "/v1/posts")
    }
}
