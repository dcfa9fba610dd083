import Foundation
import Konex
import KonexTesting
import Testing

/// Redirects followed by the pipeline over a mock: a mocked 302 is followed exactly like a real one.
struct RedirectPipelineTests {
    @Test func aMocked302IsFollowedAndTheResponseTellsTheChain() async throws {
        let (client, mock) = makeClient {
            $0.stub(.get("/v1/old"), .status(302, headers: ["Location": "/v1/older"]))
            $0.stub(.get("/v1/older"), .status(301, headers: ["Location": "https://cdn.test/new"]))
            $0.stub(.get("/new"), .string("here"))
        }
        let response = try await client.request("old").response()
        #expect(String(decoding: response.value, as: UTF8.self) == "here")
        #expect(response.statusCode == 200)
        #expect(response.response.url.absoluteString == "https://cdn.test/new")
        #expect(
            response.redirects == [
                Redirect(url: URL(string: "https://api.test/v1/old")!, statusCode: 302),
                Redirect(url: URL(string: "https://api.test/v1/older")!, statusCode: 301),
            ])
        #expect(
            mock.requests.map(\.url?.absoluteString) == [
                "https://api.test/v1/old", "https://api.test/v1/older", "https://cdn.test/new",
            ])
    }

    @Test func whatAuthAdaptersAddStaysWithItsOrigin() async throws {
        let (client, mock) = makeClient {
            $0.stub(.get("/v1/me"), .status(307, headers: ["Location": "https://api.test:8443/v1/profile"]))
            $0.stub(.get("/v1/profile"), .string("moved"))
        }
        client.adapters = [
            .bearer("bearer-secret"), .apiKey("key-secret"), .apiKey("custom-secret", header: "X-Tenant-Key"),
            .header("Cookie", "sid=cookie-secret"), .header("X-Trace", "kept"),
        ]
        _ = try await client.request("me").responseData()
        let hop = try #require(mock.requests.last)
        #expect(hop.url?.port == 8443)
        for name in ["Authorization", "X-API-Key", "X-Tenant-Key", "Cookie"] {
            #expect(hop.header(name) == nil, "\(name) went to another port")
        }
        #expect(hop.header("X-Trace") == "kept")
        #expect(mock.requests.first?.header("Authorization") == "Bearer bearer-secret")
    }

    @Test func aPostAnswered303IsFollowedAsAGetWithoutItsBody() async throws {
        let (client, mock) = makeClient {
            $0.stub(.post("/v1/orders"), .status(303, headers: ["Location": "/v1/orders/7"]))
            $0.stub(.get("/v1/orders/7"), .json(["id": 7]))
        }
        _ = try await client.request("orders").withAdapter { request in
            var request = request
            request.httpMethod = "POST"
            request.httpBody = Data(#"{"item":"tea"}"#.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            return request
        }.responseData()
        let hop = try #require(mock.requests.last)
        #expect(hop.request.httpMethod == "GET")
        #expect(hop.request.httpBody == nil)
        #expect(hop.header("Content-Type") == nil)
    }

    @Test func aLoopIsATypedErrorAtTheRedirectStage() async throws {
        let (client, _) = makeClient {
            $0.stub(.get("/v1/a"), .status(302, headers: ["Location": "/v1/b"]))
            $0.stub(.get("/v1/b"), .status(302, headers: ["Location": "/v1/a"]))
        }
        let error = try await #require(throws: KonexError.self) { try await client.request("a").responseData() }
        #expect(error.stage == .redirect)
        #expect(error.message.contains("loop"))
        #expect(error.url?.path == "/v1/b")
        #expect(error.response?.statusCode == 302)
    }

    @Test(arguments: [
        "http+unix://%2Fvar%2Frun%2Fdocker.sock/containers/json", "unix:///var/run/docker.sock", "file:///etc/passwd",
        "ftp://api.test/x", "data:text/plain,hi", "http://api.test/v1/plain",
    ])
    func aRedirectOutOfHTTPSIsRefusedBeforeAnyRequest(location: String) async throws {
        let (client, mock) = makeClient {
            $0.stub(.get("/v1/go"), .status(302, headers: ["Location": location]))
        }
        let error = try await #require(throws: KonexError.self) { try await client.request("go").responseData() }
        #expect(error.stage == .redirect)
        #expect(mock.requestCount == 1)
    }

    @Test func theClientsPolicyDecides() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/go"), .status(302, headers: ["Location": "/v1/there"]))
        let client = KonexClient(baseURL: api, transport: mock, redirectPolicy: .doNotFollow)
        let response = try await client.request("go").response()
        #expect(response.statusCode == 302)
        #expect(response.redirects.isEmpty)
        #expect(mock.requestCount == 1)
    }

    @Test func notFollowingReturnsADowngradingRedirectAsItCame() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/go"), .status(301, headers: ["Location": "http://api.test/v1/there"]))
        let client = KonexClient(baseURL: api, transport: mock, redirectPolicy: .doNotFollow)
        let response = try await client.request("go").response()
        #expect(response.statusCode == 301)
        #expect(response.headers["Location"] == "http://api.test/v1/there")
        #expect(mock.requestCount == 1)
    }

    @Test func aDowngradeAllowedByThePolicyStillDropsCredentials() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/go"), .status(302, headers: ["Location": "http://api.test/v1/there"]))
        mock.stub(.get("/v1/there"), .string("plain"))
        let client = KonexClient(
            baseURL: api, transport: mock, redirectPolicy: RedirectPolicy.follow.allowingInsecureDowngrade())
        client.adapters = [.bearer("secret")]
        #expect(try await client.request("go").responseString() == "plain")
        #expect(mock.requests.last?.header("Authorization") == nil)
    }

    @Test func cancellingDuringASecondHopEndsTheChain() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/v1/go"), .status(302, headers: ["Location": "/v1/slow"]))
        mock.stub(MockEndpoint(.get("/v1/slow"), responses: [.string("late")], delay: .fixed(.seconds(60))))
        let client = KonexClient(baseURL: api, transport: mock)
        let task = Task { try await client.request("go").responseData() }
        while mock.requestCount < 2 { await Task.yield() }
        task.cancel()
        let error = try await #require(throws: KonexError.self) { try await task.value }
        #expect(error.stage == .cancelled)
        #expect(mock.requestCount == 2)
    }
}

/// Many requests at once through one mock whose heads it builds once and shares (the head of each stubbed response
/// is kept for the next request to the same URL): every answer arrives whole and right, redirected or not. Under the
/// thread sanitizer (scripts/test runs every test under it) this is the load that would show a head read on one
/// thread before another finished making it (issue 55, item 11c).
struct SharedMockHeadTests {
    struct Item: Decodable, Equatable { let id: Int }

    @Test func concurrentRequestsShareTheMocksHeadsWithoutLosingAnAnswer() async throws {
        let (client, mock) = makeClient {
            $0.stub(.get("/v1/item"), .data(Data(#"{"id":7}"#.utf8), contentType: "application/json"))
            $0.stub(.get("/v1/moved"), .status(302, headers: ["Location": "/v1/item"]))
        }
        let callers = 32
        let each = 25
        let items = try await withThrowingTaskGroup(of: [Item].self) { group in
            for caller in 0..<callers {
                group.addTask {
                    var items: [Item] = []
                    for call in 0..<each {
                        let path = (caller + call) % 2 == 0 ? "item" : "moved"
                        items.append(try await client.request(path).validate().responseObject(of: Item.self))
                    }
                    return items
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(items.count == callers * each)
        #expect(items.allSatisfy { $0 == Item(id: 7) })
        // Half the calls were redirected once: one request more each.
        #expect(mock.requestCount == callers * each + callers * each / 2)
    }
}
