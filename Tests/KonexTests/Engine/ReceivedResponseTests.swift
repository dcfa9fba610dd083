import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// `ReceivedResponse` holds its reply by reference: a copy changed by a plugin's code must not change the original.
@Suite struct ReceivedResponseTests {
    let head = ResponseHead(statusCode: 200, url: URL(string: "https://api.example.com/posts")!)
    let timing = RequestTiming(startDate: Date(), total: .milliseconds(5), transport: .milliseconds(4), attempt: 2)

    @Test func aChangedCopyLeavesTheOriginalAsItWas() {
        let original = ReceivedResponse(response: head, data: Data("[]".utf8), timing: timing)
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
        let response = ReceivedResponse(response: head, data: Data("oops".utf8), timing: timing, file: file)
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

/// A reply an interceptor makes itself never met the transport's side of step 4: the limit is applied where the
/// reply is taken for the caller, the same as for a transport's.
@Suite struct InterceptorReplyLimitTests {
    struct Canned: TransportInterceptor {
        let size: Int
        func intercept(_ request: TransportRequest, next: TransportNext) async throws -> TransportReply {
            TransportReply(
                data: Data(count: size), response: ResponseHead(statusCode: 200, url: request.url), source: .cache)
        }
    }

    @Test func aCannedWholeBodyOverTheLimitIsRefusedNamingIt() async throws {
        let client = KonexClient(
            baseURL: api, transport: MockTransport(clock: ImmediateClock()), maximumResponseSize: 1_024,
            interceptors: [Canned(size: 2_048)])
        let error = try await requireThrows(KonexError.self) { try await client.request("/big").responseData() }
        #expect(error.message == "the response body of 2048 bytes exceeds maximumResponseSize (1024 bytes)")
        #expect(error.url?.path == "/v1/big")
    }

    @Test func aCannedWholeBodyAtTheLimitPassesAsItCame() async throws {
        let client = KonexClient(
            baseURL: api, transport: MockTransport(clock: ImmediateClock()), maximumResponseSize: 1_024,
            interceptors: [Canned(size: 1_024)])
        let response = try await client.request("/big").response()
        #expect(response.value.count == 1_024)
        #expect(response.source == .cache)
    }
}
