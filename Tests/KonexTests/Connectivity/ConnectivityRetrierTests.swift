import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// Issue 48, item 2: a request that fails because the device is offline waits for the network instead of failing,
/// bounded and cancellable, and never retries while the monitor says offline.
@Suite struct ConnectivityRetrierTests {
    struct PostFeed: KonexRequest {
        let path = "feed"
        let method = Konex.HTTPMethod.post
    }

    /// A server behind a network that is down until the test says `up`.
    static func network() -> MockTransport {
        let mock = MockTransport(clock: ImmediateClock())
        for method in [Konex.HTTPMethod.get, .post] {
            mock.stub(
                MockEndpoint(RequestMatcher(method: method, path: "/v1/feed"), responses: [.fault(.notConnected)])
                    .inScenario("network", whenState: "started"))
            mock.stub(
                MockEndpoint(RequestMatcher(method: method, path: "/v1/feed"), responses: [.fault(.connectionLost)])
                    .inScenario("network", whenState: "lost"))
            mock.stub(
                MockEndpoint(RequestMatcher(method: method, path: "/v1/feed"), responses: [.json(["items": [1, 2]])])
                    .inScenario("network", whenState: "up"))
        }
        return mock
    }

    /// A client on `clock` whose retriers wait for `monitor`, a retry policy after them.
    static func client(_ mock: MockTransport, _ monitor: MockConnectivityMonitor, clock: ManualClock) -> KonexClient {
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        client.retriers = [
            ConnectivityRetrier(monitor: monitor, maximumWait: .seconds(60), clock: clock),
            RetryPolicy(maximumAttempts: 4, jitter: 0, budget: nil),
        ]
        return client
    }

    /// A request that failed offline and now waits for the path, on a ManualClock, with a retry policy after it.
    static func requestWaitingOffline() async throws -> (
        MockTransport, MockConnectivityMonitor, ManualClock, Task<Data, any Error>
    ) {
        let (mock, monitor, clock) = (Self.network(), MockConnectivityMonitor(.offline), ManualClock())
        let client = Self.client(mock, monitor, clock: clock)
        let request = Task { try await client.request("feed").validate().responseData() }
        try await monitor.waitForWaiters()
        try await clock.waitForSleepers()  // the wait's bound
        return (mock, monitor, clock, request)
    }

    @Test func anOfflineRequestWaitsAndGoesWithin100MillisecondsOfVirtualTimeAfterThePathIsBack() async throws {
        let (mock, monitor, clock, request) = try await Self.requestWaitingOffline()
        // Offline for 59 s of virtual time: no attempt goes (a retry policy after it would have made three).
        for _ in 0..<59 {
            clock.advance(by: .seconds(1))
            await Task.yield()
            #expect(mock.requestCount == 1)
        }
        mock.setState("up", ofScenario: "network")
        let back = clock.now
        monitor.set(.online)
        let data = try await request.value
        #expect(try JSONSerialization.jsonObject(with: data) as? [String: [Int]] == ["items": [1, 2]])
        #expect(back.duration(to: clock.now) <= .milliseconds(100), "\(back.duration(to: clock.now))")
        #expect(mock.requestCount == 2)
        #expect(monitor.waiterCount == 0)
        #expect(clock.sleeperCount == 0)
    }

    @Test func theWaitEndsAfterMaximumWaitWithTheOriginalFailureSayingSo() async throws {
        let (mock, monitor, clock, request) = try await Self.requestWaitingOffline()
        clock.advance(by: .seconds(60))
        let error = try await requireThrows(KonexError.self) { try await request.value }
        #expect(error.transportFailure == .notConnectedToInternet)
        #expect(error.message.contains("the network did not come back within 60.0 seconds"), "\(error.message)")
        #expect(mock.requestCount == 1)  // the retry policy after it did not retry into the dead network
        #expect(monitor.waiterCount == 0)
    }

    @Test func cancellingTheRequestEndsTheWaitAtOnce() async throws {
        let (mock, monitor, clock, request) = try await Self.requestWaitingOffline()
        let before = clock.now
        request.cancel()
        let error = try await requireThrows(KonexError.self) { try await request.value }
        #expect(error.stage == .cancelled)
        #expect(clock.now == before)
        #expect(mock.requestCount == 1)
        #expect(monitor.waiterCount == 0)
        try await WaitTimeout.wait(for: "the wait's bound to end", timeout: .seconds(120)) { clock.sleeperCount == 0 }
    }

    @Test func whileTheMonitorSaysOnlineTheFailureIsLeftToTheRetriersAfterIt() async throws {
        let (mock, monitor) = (Self.network(), MockConnectivityMonitor(.online))
        let client = KonexClient.mocked(mock, baseURL: api)
        client.retriers = [
            ConnectivityRetrier(monitor: monitor, clock: ImmediateClock()),
            RetryPolicy(maximumAttempts: 2, budget: nil),
        ]
        let error = try await requireThrows(KonexError.self) { try await client.request("feed").responseData() }
        #expect(error.transportFailure == .notConnectedToInternet)
        #expect(mock.requestCount == 2)  // the retry policy's one retry; no wait
        #expect(monitor.waiterCount == 0)
    }

    /// A monitor that says offline and whose wait fails at once (a monitor that cannot watch the path).
    struct BrokenMonitor: ConnectivityMonitor {
        struct CannotWatch: Error {}
        var status: ConnectivityStatus { .offline }
        func waitUntilOnline() async throws { throw CannotWatch() }
    }

    @Test func aMonitorWhoseWaitFailsLeavesTheFailureToTheRetriersAfterItNotAnImmediateRetry() async throws {
        let mock = Self.network()
        let client = KonexClient.mocked(mock, baseURL: api)
        client.retriers = [ConnectivityRetrier(monitor: BrokenMonitor(), maximumAttempts: 5, clock: ImmediateClock())]
        let error = try await requireThrows(KonexError.self) { try await client.request("feed").responseData() }
        #expect(error.transportFailure == .notConnectedToInternet)
        #expect(mock.requestCount == 1, "\(mock.requestCount) attempts: no retry at once into a network still down")
    }

    @Test func aPostGoesAgainOnlyWhenTheFailureSaysNothingWasSent() async throws {
        let (mock, monitor, clock) = (Self.network(), MockConnectivityMonitor(.offline), ManualClock())
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        client.retriers = [ConnectivityRetrier(monitor: monitor, clock: clock)]

        // A lost connection may have carried the POST: it is not sent again.
        mock.setState("lost", ofScenario: "network")
        let lost = try await requireThrows(KonexError.self) {
            try await client.request(PostFeed()).responseData()
        }
        #expect(lost.transportFailure == .networkConnectionLost)
        #expect(mock.requestCount == 1)
        #expect(monitor.waiterCount == 0)

        // Not connected: nothing left the device, so it waits and goes again.
        mock.setState("started", ofScenario: "network")
        let request = Task { try await client.request(PostFeed()).responseData() }
        try await monitor.waitForWaiters()
        mock.setState("up", ofScenario: "network")
        monitor.set(.online)
        _ = try await request.value
        #expect(mock.requestCount == 3)
    }

    /// Says offline whenever an attempt fails: a network that is back only until the request goes.
    struct DropsTheNetworkOnFailure: KonexPlugin {
        let monitor: MockConnectivityMonitor
        func didReceiveResponse(_ result: Result<ReceivedResponse, KonexError>, for request: TransportRequest) async {
            if case .failure = result { monitor.set(.offline) }
        }
    }

    @Test func aNetworkThatComesAndGoesHoldsARequestForMaximumAttemptsAtMost() async throws {
        let (mock, monitor, clock) = (Self.network(), MockConnectivityMonitor(.offline), ManualClock())
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        client.retriers = [ConnectivityRetrier(monitor: monitor, maximumAttempts: 3, clock: clock)]
        let request = Task {
            try await client.request("feed").withPlugin(DropsTheNetworkOnFailure(monitor: monitor)).responseData()
        }
        for attempt in 1...2 {
            try await monitor.waitForWaiters()
            #expect(mock.requestCount == attempt)
            monitor.set(.online)
            try await mock.waitForRequests(attempt + 1)
        }
        let error = try await requireThrows(KonexError.self) { try await request.value }
        #expect(error.transportFailure == .notConnectedToInternet)
        #expect(mock.requestCount == 3)
        #expect(monitor.history == [.offline, .online, .offline, .online, .offline])
    }
}
