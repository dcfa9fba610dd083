import Foundation
import Konex
import KonexTesting
import TestSupport
import Testing

@Suite struct MockTransportTests {
    let base = URL(string: "https://api.test")!

    @Test func respondsWithEveryBodyKind() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/data"), .data(Data([1, 2, 3])))
        mock.stub(.get("/string"), .string("hi", status: 201))
        mock.stub(.get("/json"), .json(Post(id: 1, title: "t"), headers: ["X-A": "b"]))
        let client = KonexClient.mocked(mock, baseURL: base)
        #expect(try await client.request("/data").responseData() == Data([1, 2, 3]))
        let string = try await client.request("/string").response()
        #expect(string.statusCode == 201)
        #expect(string.value(forHTTPHeaderField: "Content-Type") == "text/plain; charset=utf-8")
        let json = try await client.request("/json").response(of: Post.self)
        #expect(json.value == Post(id: 1, title: "t"))
        #expect(json.headers["X-A"] == "b")
    }

    @Test func sequencesThenRepeatTheLast() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/flaky"), .status(503), .status(502), .string("ok"))
        let client = KonexClient.mocked(mock, baseURL: base)
        var statuses: [Int] = []
        for _ in 0..<5 { statuses.append(try await client.request("/flaky").response().statusCode) }
        #expect(statuses == [503, 502, 200, 200, 200])
    }

    @Test func timesLimitsThenFallsThroughToLaterEndpoints() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/x"), .string("first"), times: .once)
        mock.stub(.get("/x"), .string("second"), times: .times(2))
        let client = KonexClient.mocked(mock, baseURL: base)
        #expect(try await client.request("/x").responseString() == "first")
        #expect(try await client.request("/x").responseString() == "second")
        #expect(try await client.request("/x").responseString() == "second")
        let error = try await requireThrows(KonexError.self) { try await client.request("/x").responseString() }
        let unmatched = try #require(error.underlyingError as? UnmatchedRequestError)
        #expect(
            unmatched.nearest.map(\.differences) == [
                ["already answered 1 time(s) (limit 1)"], ["already answered 2 time(s) (limit 2)"],
            ])
    }

    @Test func scenariosScriptAuthFlows() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(MockEndpoint(.get("/me"), responses: [.status(401)]).inScenario("auth", whenState: "started"))
        mock.stub(
            MockEndpoint(.post("/refresh"), responses: [.json(["token": "new"])]).inScenario(
                "auth", willSetStateTo: "refreshed"))
        mock.stub(MockEndpoint(.get("/me"), responses: [.string("me")]).inScenario("auth", whenState: "refreshed"))
        let client = KonexClient.mocked(mock, baseURL: base)
        #expect(try await client.request("/me").response().statusCode == 401)
        var refresh = URLRequest(url: URL(string: "https://api.test/refresh")!)
        refresh.httpMethod = "POST"
        _ = try await client.request(refresh).response()
        #expect(mock.state(ofScenario: "auth") == "refreshed")
        #expect(try await client.request("/me").responseString() == "me")
    }

    @Test(arguments: [
        (Fault.timeout, URLError.Code.timedOut), (.notConnected, .notConnectedToInternet),
        (.connectionLost, .networkConnectionLost), (.connectionRefused, .cannotConnectToHost),
    ])
    func transportFaults(fault: Fault, code: URLError.Code) async throws {
        let mock = MockTransport(clock: ImmediateClock()).stubbing(.get("/f"), .fault(fault))
        let error = try await requireThrows(URLError.self) {
            try await mock.data(for: request(url: "https://api.test/f"))
        }
        #expect(error.code == code)
    }

    @Test func truncatedAndMalformedBodies() async throws {
        let body = Data(String(repeating: "a", count: 10).utf8)
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/t"), .data(body).withFault(.truncatedBody))
        mock.stub(.get("/m"), .json(Post(id: 1, title: "x")).withFault(.malformedJSON))
        #expect(try await mock.data(for: request(url: "https://api.test/t")).0.count == 5)
        let malformed = try await mock.data(for: request(url: "https://api.test/m")).0
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Post.self, from: malformed) }
    }

    @Test func hangEndsOnlyWithCancellation() async throws {
        let mock = MockTransport(clock: ImmediateClock()).stubbing(.get("/h"), .fault(.hang))
        let task = Task { try await mock.data(for: request(url: "https://api.test/h")) }
        try await mock.waitForRequests(1)
        for _ in 0..<100 { await Task.yield() }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func journalRecordsRequestsInOrderAndIsBounded() async throws {
        let mock = MockTransport(clock: ImmediateClock(), journalLimit: 3)
        mock.stub(.anything, .status(200))
        let client = KonexClient.mocked(mock, baseURL: base)
        struct Note: Codable, Sendable, Equatable { var n: Int }
        struct Send: KonexRequest {
            let n: Int
            var path: String { "/notes" }
            var method: HTTPMethod { .post }
            var body: RequestBody? { .json(Note(n: n)) }
            var headers: [String: String]? { ["X-N": "\(n)"] }
        }
        for n in 1...5 { _ = try await client.request(Send(n: n)).response() }
        #expect(mock.requestCount == 5)
        #expect(mock.requests.map(\.sequenceNumber) == [2, 3, 4])
        #expect(try mock.requests.map { try $0.decodedBody(as: Note.self).n } == [3, 4, 5])
        #expect(mock.requests.last?.header("x-n") == "5")
        #expect(mock.requests(matching: RequestMatcher.post("/notes").header("X-N", "4")).count == 1)
    }

    @Test func unmatchedRequestNamesTheNearestEndpoints() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/users/{id}").query(["page": "2"]), .status(200))
        mock.stub(.post("/users"), .status(201))
        mock.stub(.delete("/a/b/c"), .status(204))
        mock.stub(.put("/zzz"), .status(204))
        let error = try await requireThrows(UnmatchedRequestError.self) {
            try await mock.data(for: request(url: "https://api.test/users/2?page=1"))
        }
        #expect(error.nearest.count == 3)
        #expect(
            error.description == """
                No mock endpoint matches GET https://api.test/users/2?page=1
                Nearest endpoints:
                  - GET /users/{id} query page=2: query item "page": expected "2", got "1"
                  - POST /users: method: expected POST, got GET; path: expected /users, got /users/2
                  - DELETE /a/b/c: method: expected DELETE, got GET; path: expected /a/b/c, got /users/2
                """)
    }

    @Test func noEndpointsIsSaidPlainly() async throws {
        let error = try await requireThrows(UnmatchedRequestError.self) {
            try await MockTransport().data(for: request(url: "https://api.test/x"))
        }
        #expect(error.description.hasSuffix("(no endpoints are declared)"))
    }

    @Test func verifyAllEndpointsUsed() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/used"), .status(200))
        mock.stub(.get("/unused"), .status(200))
        _ = try await mock.data(for: request(url: "https://api.test/used"))
        let error = try await requireThrows(MockConfigurationError.self) { try mock.verifyAllEndpointsUsed() }
        #expect(error.description == "1 mock endpoint(s) never used: GET /unused")
    }

    @Test func unreadableBodyFileIsAClearError() async throws {
        let mock = MockTransport(clock: ImmediateClock()).stubbing(
            .get("/f"), .file(URL(fileURLWithPath: "/nonexistent/x.json")))
        let error = try await requireThrows(MockConfigurationError.self) {
            try await mock.data(for: request(url: "https://api.test/f"))
        }
        #expect(error.description.hasPrefix("the mock body file /nonexistent/x.json cannot be read"))
    }
}

@Suite struct MockScopeTests {
    @Test func verifyingPassesWhenEveryEndpointIsUsed() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/me"), .string("me"))
        let value = try await mock.verifying { client in try await client.request("/me").responseString() }
        #expect(value == "me")
    }

    @Test func verifyingFailsOnAnUnusedEndpoint() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/me"), .string("me"))
        mock.stub(.get("/never"), .string("x"))
        let error = try await requireThrows(MockConfigurationError.self) {
            try await mock.verifying { client in _ = try await client.request("/me").responseString() }
        }
        #expect(error.description == "1 mock endpoint(s) never used: GET /never")
    }
}
