import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

@Suite struct CoalescingTests {
    let clock = ManualClock()
    let mock: MockTransport
    let coalescer = RequestCoalescer()
    let client: KonexClient

    init() {
        mock = MockTransport(clock: clock)
        client = KonexClient(baseURL: api, transport: mock, interceptors: [coalescer])
    }

    /// Waits until `count` callers wait on shared calls.
    func waitForWaiters(_ count: Int, calls: Int = 1) async throws {
        try await WaitTimeout.wait(for: "\(count) callers waiting") { coalescer.waiterCount == count }
        try await clock.waitForSleepers(calls)  // the shared calls sleep in the mock: advancing now wakes them
    }

    @Test func aHundredIdenticalRequestsShareOneTransportCall() async throws {
        mock.stub(.get("/v1/feed"), .json([Post(id: 1, title: "one")]).delayed(by: .seconds(1)))
        let tasks = (0..<100).map { _ in
            Task { try await client.request("feed").response(of: [Post].self) }
        }
        try await waitForWaiters(100)
        clock.advance(by: .seconds(1))
        for task in tasks {
            let response = try await task.value
            #expect(response.value == [Post(id: 1, title: "one")])
        }
        #expect(mock.requestCount == 1)
        #expect(coalescer.inFlightCount == 0)
    }

    /// Trust pass 3, item 4: per-user clients over per-user transports (their cookies below the headers) share one
    /// coalescer, send equal headers, and still never get each other's answer.
    @Test func aCoalescerSharedByTwoClientsNeverMergesTheirIdentities() async throws {
        let alice = MockTransport(clock: clock)
        let bob = MockTransport(clock: clock)
        alice.stub(.get("/v1/me"), .json(["user": "alice"]).delayed(by: .seconds(1)))
        bob.stub(.get("/v1/me"), .json(["user": "bob"]).delayed(by: .seconds(1)))
        let clients = [
            KonexClient(baseURL: api, transport: alice, interceptors: [coalescer]),
            KonexClient(baseURL: api, transport: bob, interceptors: [coalescer]),
        ]
        let tasks = (0..<6).map { index in
            Task { try await clients[index % 2].request("me").responseObject(of: [String: String].self) }
        }
        try await WaitTimeout.wait(for: "6 callers waiting") { coalescer.waiterCount == 6 }
        #expect(coalescer.inFlightCount == 2)  // one shared call per client, not one for both
        try await clock.waitForSleepers(2)
        clock.advance(by: .seconds(1))
        for (index, task) in tasks.enumerated() {
            #expect(try await task.value == ["user": index % 2 == 0 ? "alice" : "bob"])
        }
        #expect(alice.requestCount == 1)
        #expect(bob.requestCount == 1)
        // The key says so too: equal requests, different clients, different keys.
        let request = TransportRequest(head: RequestHead(method: .get, url: api))
        #expect(
            coalescer.key(for: request, client: ObjectIdentifier(clients[0]))
                != coalescer.key(for: request, client: ObjectIdentifier(clients[1])))
    }

    @Test func eachCallerGetsItsOwnDecodeAndSeesTheCallWasShared() async throws {
        mock.stub(.get("/v1/feed"), .json([Post(id: 1, title: "one")]).delayed(by: .seconds(1)))
        let shared = AnswerWatch { $0.isShared }
        let asPosts = Task { try await client.request("feed").withPlugin(shared).responseArray(of: Post.self) }
        let asText = Task { try await client.request("feed").withPlugin(shared).responseString() }
        try await waitForWaiters(2)
        clock.advance(by: .seconds(1))
        #expect(try await asPosts.value == [Post(id: 1, title: "one")])
        #expect(try await asText.value.contains("\"title\""))
        #expect(shared.seen == [true, true])
    }

    @Test func oneCancelledCallerLeavesAtOnceAndTheOthersGetTheirValue() async throws {
        mock.stub(.get("/v1/feed"), .json([Post(id: 1, title: "one")]).delayed(by: .seconds(1)))
        let tasks = (0..<3).map { _ in Task { try await client.request("feed").responseArray(of: Post.self) } }
        try await waitForWaiters(3)
        tasks[0].cancel()
        let error = try await requireThrows(KonexError.self) { _ = try await tasks[0].value }
        #expect(error.stage == .cancelled)
        #expect(coalescer.inFlightCount == 1)  // the others still wait; the call was not cancelled
        clock.advance(by: .seconds(1))
        #expect(try await tasks[1].value.count == 1)
        #expect(try await tasks[2].value.count == 1)
        #expect(mock.requestCount == 1)
    }

    @Test func whenEveryCallerLeavesTheTransportCallIsCancelled() async throws {
        mock.stub(.get("/v1/feed"), .json([Post]()).delayed(by: .seconds(60)))
        let tasks = (0..<3).map { _ in Task { try await client.request("feed").responseData() } }
        try await waitForWaiters(3)
        for task in tasks { task.cancel() }
        for task in tasks {
            let error = try await requireThrows(KonexError.self) { _ = try await task.value }
            #expect(error.stage == .cancelled)
        }
        #expect(coalescer.inFlightCount == 0)
        try await WaitTimeout.wait(for: "the mock's sleep was cancelled") { clock.sleeperCount == 0 }
    }

    @Test func aFailureReachesEveryCaller() async throws {
        mock.stub(.get("/v1/feed"), MockResponse.fault(.connectionLost).delayed(by: .seconds(1)))
        let tasks = (0..<3).map { _ in Task { try await client.request("feed").responseData() } }
        try await waitForWaiters(3)
        clock.advance(by: .seconds(1))
        for task in tasks {
            let error = try await requireThrows(KonexError.self) { _ = try await task.value }
            #expect(error.stage == .transport)
            #expect((error.underlyingError as? URLError)?.code == .networkConnectionLost)
        }
        #expect(mock.requestCount == 1)
    }

    @Test func differentCredentialsAreNeverShared() async throws {
        mock.stub(.get("/v1/me"), .json(Post(id: 1, title: "me")).delayed(by: .seconds(1)))
        let alice = Task { try await client.request("me").withAdapter(.bearer("alice")).responseData() }
        let bob = Task { try await client.request("me").withAdapter(.bearer("bob")).responseData() }
        try await waitForWaiters(2, calls: 2)
        #expect(coalescer.inFlightCount == 2)
        clock.advance(by: .seconds(1))
        _ = try await (alice.value, bob.value)
        #expect(mock.requestCount == 2)
    }

    @Test func postsAndIgnoredHeadersAreHandledAsDeclared() async throws {
        let coalescer = RequestCoalescer(ignoringHeaders: ["X-Trace-ID"])
        let a = TransportRequest(head: RequestHead(method: .get, url: api.appendingPathComponent("feed")))
        var b = a
        b.setValue("123", forHTTPHeaderField: "x-trace-id")
        #expect(coalescer.key(for: a, client: nil) == coalescer.key(for: b, client: nil))
        var post = a
        post.httpMethod = "POST"
        #expect(coalescer.key(for: post, client: nil) == nil)
        var withBody = a
        withBody.httpBody = Data("x".utf8)
        #expect(coalescer.key(for: withBody, client: nil) == nil)
    }
}
