import Foundation
import KonexTesting
import Testing

@testable import Konex

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What components see of a response: the transport's ``ResponseHead`` as it came, read like an `HTTPURLResponse`,
/// with a Foundation response made only when someone asks.
@Suite struct ComponentHeadTests {
    let url = URL(string: "https://api.test/posts/1")!

    @Test func aHeadReadsLikeAFoundationResponse() {
        let head = ResponseHead(
            statusCode: 200,
            headerFields: HTTPHeaders(keepingRepeats: [
                (name: "content-type", value: "Application/JSON; charset=UTF-8"), (name: "Vary", value: "Accept"),
                (name: "vary", value: "Origin"), (name: "ETag", value: "\"v1\""),
            ]), url: url)
        #expect(head.mimeType == "application/json")
        #expect(head.textEncodingName?.lowercased() == "utf-8")
        #expect(head.value(forHTTPHeaderField: "VARY") == "Accept, Origin")
        #expect(head.allHeaderFields["ETag"] as? String == "\"v1\"")
        // One entry a name in any case, as Foundation keeps them, spelled as first written.
        #expect(head.allHeaderFields.count == 3)
        #expect(head.allHeaderFields["Vary"] as? String == "Accept, Origin")
        let foundation = head.httpURLResponse
        #expect(foundation.statusCode == 200)
        #expect(foundation.value(forHTTPHeaderField: "vary") == "Accept, Origin")
        #expect(foundation.mimeType == head.mimeType)
    }

    @Test func aHeadWithoutContentTypeHasNoMediaType() {
        let head = ResponseHead(statusCode: 204, headerFields: ["Content-Type": " ; charset=utf-8"], url: url)
        #expect(head.mimeType == nil)
        #expect(ResponseHead(statusCode: 204, url: url).mimeType == nil)
        #expect(ResponseHead(statusCode: 204, url: url).textEncodingName == nil)
        #expect(ResponseHead(statusCode: 204, url: url).allHeaderFields.isEmpty)
    }

    @Test func aHeadReadFromFoundationIsHandedBackAsItCame() throws {
        let response = try #require(
            HTTPURLResponse(url: url, statusCode: 201, httpVersion: "HTTP/1.1", headerFields: ["X-Id": "7"]))
        let head = ResponseHead(response)
        #expect(head.httpURLResponse === response)
        #expect(head.allHeaderFields["X-Id"] as? String == "7")
        var changed = head
        changed.statusCode = 202
        #expect(changed.httpURLResponse !== response)
        #expect(changed.httpURLResponse.statusCode == 202)
        #expect(changed.value(forHTTPHeaderField: "x-id") == "7")
        #expect(head.statusCode == 201, "a copy changed leaves the original alone")
    }

    @Test func headerNamesCompareInAnyCaseAndOnlyAsWholeNames() {
        #expect(HTTPHeaders.equal("Content-Type", "content-type"))
        #expect(HTTPHeaders.equal("", ""))
        #expect(!HTTPHeaders.equal("Content-Type", "Content-Typ"))
        #expect(!HTTPHeaders.equal("Content-Type", "Content-Typf"))
        #expect(!HTTPHeaders.equal("ETag", "ETAG "))
        // Not ASCII letters: compared as bytes, never folded.
        #expect(!HTTPHeaders.equal("X-É", "X-é"))
        let headers = HTTPHeaders(keepingRepeats: [
            (name: "Set-Cookie", value: "a=1"), (name: "X", value: "y"), (name: "set-cookie", value: "b=2"),
        ])
        #expect(headers.combinedValue(for: "SET-COOKIE") == "a=1, b=2")
        #expect(headers.combinedValue(for: "x") == "y")
        #expect(headers.combinedValue(for: "Set-Cookies") == nil)
    }

    @Test func validatorsProcessorsAndPluginsSeeTheTransportsHead() async throws {
        let mock = MockTransport()
        mock.stub(.get("/posts/1"), .json(["id": 1], headers: ["X-Trace": "abc"]))
        let client = KonexClient.mocked(mock, baseURL: URL(string: "https://api.test")!)
        let seen = Lock<[String]>([])
        let response = try await client.request("/posts/1")
            .validate { head, _ in seen.withLock { $0.append("validator \(head.mimeType ?? "-")") } }
            .process { data, head in
                seen.withLock { $0.append("processor \(head.value(forHTTPHeaderField: "x-trace") ?? "-")") }
                return data
            }
            .response()
        #expect(seen.value == ["validator application/json", "processor abc"])
        #expect(response.response.statusCode == 200)
        #expect(response.headers["x-trace"] == "abc")
        #expect(response.response.httpURLResponse.value(forHTTPHeaderField: "X-Trace") == "abc")
    }

    @Test func anInterceptorMayStillAnswerWithAFoundationResponse() async throws {
        struct Canned: TransportInterceptor {
            func intercept(_ request: TransportRequest, next: TransportNext) async throws -> TransportReply {
                let response = HTTPURLResponse(
                    url: request.url, statusCode: 203, httpVersion: "HTTP/1.1", headerFields: ["X-Canned": "yes"])!
                return TransportReply(data: Data("{}".utf8), response: response)
            }
        }
        let client = KonexClient.mocked(MockTransport(), baseURL: URL(string: "https://api.test")!)
        let response = try await client.request("/anything").withInterceptor(Canned()).response()
        #expect(response.statusCode == 203)
        #expect(response.value(forHTTPHeaderField: "x-canned") == "yes")
    }
}
