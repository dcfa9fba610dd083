import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// A component written for an earlier signature is never a silent no-op: a plugin or a recorder is still called, and a
/// request's stored property whose type differs from the requirement's is refused with a typed error naming the type
/// to write.
@Suite struct EarlierSignatureTests {
    func client() -> (KonexClient, MockTransport) {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/posts"), .json([Post(id: 1, title: "one")]))
        return (KonexClient(baseURL: api, transport: mock), mock)
    }

    /// 2017-style requests whose stored properties have another type than the requirement: they would compile as
    /// unrelated properties, and the request would go out as a GET without them.
    struct StringMethod: KonexRequest {
        let path = "/posts"
        let method = "POST"
    }

    struct PlainHeaders: KonexRequest {
        let path = "/posts"
        let headers: [String: String] = ["X-Client": "2017"]
    }

    struct SecondsTimeout: KonexRequest {
        let path = "/posts"
        let timeout: TimeInterval = 5
    }

    struct AnyParameters: KonexRequest, @unchecked Sendable {
        let path = "/posts"
        let parameters: [String: Any] = ["page": 2]
    }

    struct Sound: KonexRequest {
        let path = "/posts"
        let method: HTTPMethod = .get
        let headers: [String: String]? = ["X-Client": "2026"]
        let timeout: Duration? = .seconds(5)
    }

    @Test func aStoredPropertyOfAnotherTypeIsRefusedNamingTheTypeToWrite() async throws {
        let (client, mock) = client()
        let cases: [(any KonexRequest, String)] = [
            (StringMethod(), "StringMethod.method is a stored String, but KonexRequest reads `method: HTTPMethod`"),
            (PlainHeaders(), "`headers: [String: String]?`"),
            (SecondsTimeout(), "SecondsTimeout.timeout is a stored Double"),
            (AnyParameters(), "`parameters: Parameters?`"),
        ]
        for (endpoint, expected) in cases {
            for _ in 0..<2 {  // found on the first request, remembered for the next
                let error = try await requireThrows(KonexError.self) {
                    try await client.request(endpoint).responseData()
                }
                #expect(error.stage == .invalidRequest)
                #expect(error.message.contains(expected), "\(error.message)")
            }
        }
        #expect(mock.requests.isEmpty, "nothing was sent")
        _ = try await client.request(Sound()).responseData()
        #expect(mock.requests.last?.header("X-Client") == "2026")
    }

    /// A Moya-style endpoint: an enum whose cases' payloads are named like requirements. Reflection names an enum's
    /// payload by its case, so the payload of `.timeout(seconds:)` once read as a stored `timeout` of another type.
    enum SearchAPI: KonexRequest {
        case timeout(seconds: Int)
        case headers(String)
        case search(query: String)

        var path: String {
            switch self {
            case .timeout(let seconds): "/delay/\(seconds)"
            case .headers: "/headers"
            case .search: "/search"
            }
        }
        var parameters: Parameters? {
            if case .search(let query) = self { return ["q": .string(query)] }
            return nil
        }
    }

    @Test(arguments: [
        [SearchAPI.timeout(seconds: 2), .search(query: "swift"), .headers("x")],
        [SearchAPI.search(query: "swift"), .headers("x"), .timeout(seconds: 2)],
    ])
    func anEnumEndpointIsSentWhicheverCaseGoesFirst(order: [SearchAPI]) async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/delay/2"), .json([Post]()))
        mock.stub(.get("/v1/search"), .json([Post]()))
        mock.stub(.get("/v1/headers"), .json([Post]()))
        let client = KonexClient(baseURL: api, transport: mock)
        for endpoint in order { _ = try await client.request(endpoint).responseData() }
        #expect(mock.requests.count == 3)
    }

    /// A plugin as Konex 2.0's documentation had it, before `TransportRequest`.
    struct EarlierPlugin: KonexPlugin {
        let calls: Lock<[String]>
        func didSendRequest(_ request: URLRequest) async {
            calls.withLock { $0.append("send \(request.httpMethod ?? "") \(request.url?.path ?? "")") }
        }
        func didReceiveResponse(_ result: Result<ReceivedResponse, KonexError>, for request: URLRequest) async {
            let status = (try? result.get().response.statusCode).map(String.init) ?? "failure"
            calls.withLock { $0.append("receive \(status) \(request.url?.path ?? "")") }
        }
    }

    struct CurrentPlugin: KonexPlugin {
        let calls: Lock<[String]>
        func didSendRequest(_ request: TransportRequest) async { calls.withLock { $0.append("send") } }
        func didReceiveResponse(_ result: Result<ReceivedResponse, KonexError>, for request: TransportRequest) async {
            calls.withLock { $0.append("receive") }
        }
    }

    /// Both signatures: the current one is called, the earlier one never (no call twice).
    struct BothPlugin: KonexPlugin {
        let calls: Lock<[String]>
        func didSendRequest(_ request: TransportRequest) async { calls.withLock { $0.append("new send") } }
        func didSendRequest(_ request: URLRequest) async { calls.withLock { $0.append("old send") } }
    }

    struct SilentPlugin: KonexPlugin {}

    @Test func aPluginWrittenForTheEarlierSignatureIsStillCalledInOrder() async throws {
        let (client, _) = client()
        let calls = Lock<[String]>([])
        for _ in 0..<3 {  // the first call learns the type; the next ones look it up
            _ = try await client.request("posts").withPlugin(EarlierPlugin(calls: calls)).responseData()
        }
        #expect(
            calls.value == Array(repeating: ["send GET /v1/posts", "receive 200 /v1/posts"], count: 3).flatMap { $0 })
    }

    @Test func theCurrentSignatureAloneIsCalledOnceAndASilentPluginStaysSilent() async throws {
        let (client, _) = client()
        let current = Lock<[String]>([])
        let both = Lock<[String]>([])
        for _ in 0..<2 {
            _ = try await client.request("posts").withPlugin(CurrentPlugin(calls: current))
                .withPlugin(BothPlugin(calls: both)).withPlugin(SilentPlugin()).responseData()
        }
        #expect(current.value == ["send", "receive", "send", "receive"])
        #expect(both.value == ["new send", "new send"])
        #expect(!EarlierSignatures.mayImplement(SilentPlugin.self, .pluginDidSend))
        #expect(!EarlierSignatures.mayImplement(SilentPlugin.self, .pluginDidReceive))
        #expect(EarlierSignatures.mayImplement(EarlierPlugin.self, .pluginDidSend))
        // A plugin that implements neither is no longer called at all; the others still are.
        #expect(EarlierSignatures.isIdle(SilentPlugin.self, .pluginDidSend))
        #expect(!EarlierSignatures.isIdle(EarlierPlugin.self, .pluginDidSend))
        #expect(!EarlierSignatures.isIdle(CurrentPlugin.self, .pluginDidSend))
        #expect(!EarlierSignatures.isIdle(BothPlugin.self, .pluginDidSend))
    }

    /// A plugin that implements one hook only, in the current signature: the other is idle, the one it has is called.
    @Test func aPluginWithOneHookIsCalledForItAlone() async throws {
        struct ReceiveOnly: KonexPlugin {
            let calls: Lock<[String]>
            func didReceiveResponse(_ result: Result<ReceivedResponse, KonexError>, for request: TransportRequest)
                async
            {
                calls.withLock { $0.append("receive \(request.url.path)") }
            }
        }
        let (client, _) = client()
        let calls = Lock<[String]>([])
        for _ in 0..<3 { _ = try await client.request("posts").withPlugin(ReceiveOnly(calls: calls)).responseData() }
        #expect(calls.value == Array(repeating: "receive /v1/posts", count: 3))
        #expect(EarlierSignatures.isIdle(ReceiveOnly.self, .pluginDidSend))
        #expect(!EarlierSignatures.isIdle(ReceiveOnly.self, .pluginDidReceive))
    }

    /// A recorder whose `attemptWillSend` took an `inout URLRequest`: still called, and the headers it sets and
    /// removes are what is sent.
    struct EarlierInstrument: RequestInstrument {
        struct Recorder: RequestRecorder {
            func attemptWillSend(_ request: inout URLRequest, attempt: Int) {
                request.setValue("00-trace-\(attempt)", forHTTPHeaderField: "traceparent")
                request.setValue(nil, forHTTPHeaderField: "X-Drop")
            }
        }
        func requestWillStart(_ request: InstrumentedRequest) -> (any RequestRecorder)? { Recorder() }
    }

    @Test func aRecorderWrittenForTheEarlierSignatureStillInjectsItsHeader() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/posts"), .json([Post(id: 1, title: "one")]))
        let client = KonexClient(baseURL: api, transport: mock, instruments: [EarlierInstrument()])
        let headed = client.request("posts").withAdapter { request in
            var request = request
            request.setValue("1", forHTTPHeaderField: "X-Drop")
            request.setValue("2", forHTTPHeaderField: "X-Keep")
            return request
        }
        _ = try await headed.responseData()
        _ = try await client.request("posts").responseData()
        #expect(mock.requests.map { $0.header("traceparent") } == ["00-trace-1", "00-trace-1"])
        #expect(mock.requests.first?.header("X-Drop") == nil)
        #expect(mock.requests.first?.header("X-Keep") == "2")
    }
}
