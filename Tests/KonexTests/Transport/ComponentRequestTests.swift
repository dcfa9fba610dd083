import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What components see of a request: Konex's own ``TransportRequest``, read and changed like a `URLRequest`, with a
/// Foundation request made only when someone asks.
@Suite struct ComponentRequestTests {
    let url = URL(string: "https://api.test/posts/1")!

    @Test func aRequestReadsAndChangesLikeAFoundationRequest() {
        var request = TransportRequest(head: RequestHead(method: .get, url: url))
        request.httpMethod = "PATCH"
        request.setValue("application/json", forHTTPHeaderField: "content-type")
        request.addValue("a", forHTTPHeaderField: "X-Tag")
        request.addValue("b", forHTTPHeaderField: "x-tag")
        request.httpBody = Data("{}".utf8)
        request.timeoutInterval = 7
        request.cachePolicy = .reloadIgnoringLocalCacheData
        #expect(request.method == .patch)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(request.value(forHTTPHeaderField: "X-TAG") == "a,b")
        #expect(request.allHTTPHeaderFields == ["content-type": "application/json", "X-Tag": "a,b"])
        #expect(request.head.timeout == .seconds(7))

        let foundation = request.urlRequest
        #expect(foundation.httpMethod == "PATCH")
        #expect(foundation.value(forHTTPHeaderField: "x-tag") == "a,b")
        #expect(foundation.httpBody == Data("{}".utf8))
        #expect(foundation.timeoutInterval == 7)
        #expect(foundation.cachePolicy == .reloadIgnoringLocalCacheData)

        request.timeoutInterval = .infinity
        #expect(request.head.timeout == nil)
        request.timeoutInterval = -1
        #expect(request.head.timeout == nil)
    }

    @Test func aFloodOfRepeatedFieldsFoldsIntoOneEntry() {
        let flood = (0..<10_000).map { (name: $0.isMultiple(of: 2) ? "X-Flood" : "x-flood", value: "\($0)") }
        let head = RequestHead(method: .get, url: url, headerFields: HTTPHeaders(keepingRepeats: flood))
        let folded = head.allHTTPHeaderFields ?? [:]
        #expect(folded.count == 1)
        #expect(folded["X-Flood"]?.split(separator: ",").count == 10_000)
        #expect(head.value(forHTTPHeaderField: "X-FLOOD")?.hasSuffix(",9999") == true)
    }

    @Test func settingsOfAFoundationRequestSurviveChangesToItsHead() {
        var given = URLRequest(url: url)
        given.httpMethod = "POST"
        given.allowsCellularAccess = false
        given.httpShouldHandleCookies = false
        given.setValue("secret", forHTTPHeaderField: "X-Old")
        given.httpBody = Data("body".utf8)
        var request = TransportRequest(given)
        #expect(!request.httpShouldHandleCookies)
        request.setValue(nil, forHTTPHeaderField: "X-Old")
        request.setValue("1", forHTTPHeaderField: "X-New")
        request.url = URL(string: "https://api.test/moved")!

        let made = request.urlRequest
        #expect(made.allowsCellularAccess == false)
        #expect(made.httpShouldHandleCookies == false)
        #expect(made.url?.path == "/moved")
        #expect(made.httpMethod == "POST")
        #expect(made.value(forHTTPHeaderField: "X-Old") == nil, "a removed field must not come back from the settings")
        #expect(made.value(forHTTPHeaderField: "X-New") == "1")
        #expect(made.httpBody == Data("body".utf8))
        request.body = nil
        #expect(request.urlRequest.httpBody == nil)
    }

    @Test func everyComponentSeesTheRequestAsAdapted() async throws {
        let mock = MockTransport()
        mock.stub(.get("/posts/1"), .json(["id": 1]))
        let seen = Lock<[String]>([])
        struct Seeing: KonexPlugin {
            let seen: Lock<[String]>
            func didSendRequest(_ request: TransportRequest) async {
                seen.withLock { $0.append("plugin " + (request.value(forHTTPHeaderField: "Authorization") ?? "-")) }
            }
        }
        let interceptor = TransportInterceptorProbe { request in
            seen.withLock { $0.append("interceptor " + (request.value(forHTTPHeaderField: "authorization") ?? "-")) }
        }
        let client = KonexClient.mocked(mock)
        _ = try await client.request("/posts/1")
            .withAdapter { request in
                var request = request
                request.setValue("Bearer t", forHTTPHeaderField: "Authorization")
                return request
            }
            .withPlugin(Seeing(seen: seen))
            .withInterceptor(interceptor)
            .responseData()
        #expect(seen.value == ["plugin Bearer t", "interceptor Bearer t"])
        let sent = try #require(mock.requests.first?.sent)
        #expect(sent.value(forHTTPHeaderField: "Authorization") == "Bearer t")
        // A request that sets no timeout waits as long as a URLRequest would, over every transport.
        #expect(sent.head.timeout == .seconds(60))

        _ = try await client.request("/posts/1").timeout(.seconds(3)).responseData()
        #expect(mock.requests.last?.sent.head.timeout == .seconds(3))
    }

    @Test func aReadyRequestIsCheckedLikeABuiltOne() async throws {
        let mock = MockTransport()
        mock.stub(.put("/posts/1"), .status(204))
        let client = KonexClient(
            baseURL: URL(string: "https://api.test")!, headers: ["X-Client": "konex"], transport: mock,
            clock: ImmediateClock())

        var put = TransportRequest(head: RequestHead(method: .put, url: url), body: .data(Data("{}".utf8)))
        put.setValue("application/json", forHTTPHeaderField: "Content-Type")
        _ = try await client.request(put).validate().responseData()
        let sent = try #require(mock.requests.first)
        #expect(sent.body == Data("{}".utf8))
        #expect(sent.header("X-Client") == "konex")
        #expect(sent.header("Content-Type") == "application/json")

        var injected = TransportRequest(head: RequestHead(method: .get, url: url))
        injected.addValue("a\r\nX-Evil: 1", forHTTPHeaderField: "X-Tag")
        let refused = try await requireThrows(KonexError.self) { try await client.request(injected).responseData() }
        #expect(refused.stage == .invalidRequest)
        #expect(refused.message.contains("header injection"))

        let bodyOnGet = TransportRequest(head: RequestHead(method: .get, url: url), body: .data(Data("x".utf8)))
        #expect(
            try await requireThrows(KonexError.self) { try await client.request(bodyOnGet).responseData() }.stage
                == .invalidRequest)

        let file = TransportRequest(head: RequestHead(method: .get, url: URL(string: "file:///etc/passwd")!))
        let scheme = try await requireThrows(KonexError.self) { try await client.request(file).responseData() }
        #expect(scheme.message.contains("unsupported URL scheme"))
        #expect(mock.requests.count == 1, "nothing refused reached the transport")
    }
}

/// An interceptor that reports each request it sees, then passes it on.
private struct TransportInterceptorProbe: TransportInterceptor {
    let see: @Sendable (TransportRequest) -> Void
    init(_ see: @escaping @Sendable (TransportRequest) -> Void) { self.see = see }
    func intercept(_ request: TransportRequest, next: TransportNext) async throws -> TransportReply {
        see(request)
        return try await next(request)
    }
}
