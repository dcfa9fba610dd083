import Foundation
import Konex
import KonexTesting
import TestSupport
import Testing

/// Issue 48, item 2, over a real socket and the transport under test (URLSession, or AsyncHTTPClient with
/// `KONEX_TRANSPORT=ahc`): a request that found no server while the monitor says offline waits; it is not sent while
/// the monitor says offline, even once a server is there, and goes the moment the path is back.
@Suite struct ConnectivityIntegrationTests {
    @Test func aRequestWaitsOfflineAndGoesWhenThePathIsBack() async throws {
        let port = try MisbehavingServer.unusedPort()
        let monitor = MockConnectivityMonitor(.offline)
        let client = KonexClient(
            baseURL: URL(string: "http://127.0.0.1:\(port)")!, transport: Live.transport(), timeout: .seconds(20))
        client.retriers = [ConnectivityRetrier(monitor: monitor), RetryPolicy(budget: nil)]
        let request = Task { try await client.request("/feed").validate().responseString() }
        try await monitor.waitForWaiters()  // refused: nothing listens

        let server = try MisbehavingServer(
            reply: Data("HTTP/1.1 200 OK\r\nContent-Length: 4\r\nConnection: close\r\n\r\nfeed".utf8), port: port)
        try await Task.sleep(for: .milliseconds(500))
        #expect(server.requestLines.isEmpty, "sent while the monitor said offline")

        monitor.set(.online)
        #expect(try await request.value == "feed")
        #expect(server.requestLines == ["GET /feed HTTP/1.1"])
    }

    @Test func withoutTheRetrierTheSameRequestFailsAtOnce() async throws {
        let port = try MisbehavingServer.unusedPort()
        let client = KonexClient(
            baseURL: URL(string: "http://127.0.0.1:\(port)")!, transport: Live.transport(), timeout: .seconds(20))
        let error = try await requireThrows(KonexError.self) { try await client.request("/feed").responseString() }
        #expect(error.transportFailure == .cannotConnectToHost, "\(error)")
    }
}
