import Foundation
import Konex
import KonexTesting
import TestSupport
import Testing

/// Where the Server-Sent Events server is: scripts/test starts scripts/sse_server.py and exports KONEX_SSE_URL.
enum SSEServer {
    static let url: URL? = ProcessInfo.processInfo.environment["KONEX_SSE_URL"].flatMap(URL.init(string:))
    static var isAvailable: Bool { url != nil }
    static let skipReason: Comment = "KONEX_SSE_URL is not set: run scripts/test, which starts the SSE server"

    /// Every request's timeout.
    static let requestTimeout: Duration = .seconds(30)

    static func client(clock: any Clock<Duration> = ContinuousClock()) -> KonexClient {
        KonexClient(
            baseURL: url!, transport: Live.transport(), timeout: requestTimeout,
            clock: clock)
    }

    struct Stats: Decodable, Sendable {
        let open: Int
        let closed: Int
    }

    static func stats() async throws -> Stats { try await client().request("/stats").responseObject(of: Stats.self) }
}

@Suite struct StreamingPrerequisites {
    @Test func sseServerIsConfiguredWhenRequired() {
        if Server.isRequired { #expect(SSEServer.isAvailable, "scripts/test must export KONEX_SSE_URL") }
    }
}

@Suite(.enabled(if: SSEServer.isAvailable, SSEServer.skipReason))
struct StreamingIntegrationTests {
    struct Numbered: Decodable, Sendable, Equatable { let n: Int }

    @Test func theFirstEventArrivesWhileTheServerIsStillSending() async throws {
        // The server sends one event, then waits 2 minutes before the rest (the test cancels the stream long before,
        // so the wait costs nothing). 10 s was not enough: in a fresh-clone run on a loaded machine every test of the
        // process took 18 s, and the wait was over before the stats came back.
        let stream = try await SSEServer.client().request("/first-then-wait?wait_ms=120000&n=3").validate().stream()
        var iterator = stream.events().makeAsyncIterator()
        let first = try #require(try await iterator.next())
        #expect(first.data == "first")
        #expect(first.id == "1")
        // The server's generator is still inside its wait: the response has not completed.
        #expect(try await SSEServer.stats().open >= 1)
        stream.cancel()
    }

    @Test func eventsWithAGapDecodeAsJSONWithTheirIDs() async throws {
        let stream = try await SSEServer.client().request("/events?n=5&gap_ms=20").validate().stream()
        #expect(stream.headers["content-type"]?.hasPrefix("text/event-stream") == true)
        var ids: [String?] = []
        var numbers: [Int] = []
        for try await event in stream.events() {
            ids.append(event.id)
            numbers.append(try JSONDecoder().decode(Numbered.self, from: Data(event.data.utf8)).n)
        }
        #expect(numbers == [1, 2, 3, 4, 5])
        #expect(ids == ["1", "2", "3", "4", "5"])
    }

    @Test func reconnectionSendsLastEventIDHonoursRetryAndStopsOn204() async throws {
        final class Sent: KonexPlugin, Sendable {
            let ids = Lock<[String?]>([])
            func didSendRequest(_ request: TransportRequest) async {
                ids.withLock { $0.append(request.value(forHTTPHeaderField: "Last-Event-ID")) }
            }
        }
        let sent = Sent()
        let clock = SleepLogClock()
        let stream = try await SSEServer.client(clock: clock).request("/reconnect?last=5").withPlugin(sent)
            .reconnecting(ReconnectionPolicy(initialDelay: .seconds(30), jitter: 0, minimumDelay: .milliseconds(10)))
            .validate().stream()
        var seen: [String] = []
        for try await event in stream.events() { seen.append(event.data) }
        #expect(seen == (1...5).map { "event \($0)" })
        #expect(sent.ids.value == [nil, "2", "4", "5"])  // two events a connection, then 204
        // retry: 100 ms from the server, not the policy's 30 s, read from the clock the client slept on (each
        // request's own timeout sleeps there too).
        let waits = clock.sleeps.filter { $0 != SSEServer.requestTimeout }
        #expect(waits == Array(repeating: .milliseconds(100), count: 3))
    }

    @Test func a401StreamCarriesItsDecodedJSONErrorBody() async throws {
        struct APIError: Decodable, Sendable, Equatable { let error: String }
        let error = try await requireThrows(KonexError.self) {
            try await SSEServer.client().request("/unauthorized").validate().decodingErrors(as: APIError.self).stream()
        }
        #expect(error.statusCode == 401)
        #expect(error.errorBody(as: APIError.self) == APIError(error: "missing token"))
    }

    @Test func cancellingAnEndlessStreamClosesTheConnection() async throws {
        let closedBefore = try await SSEServer.stats().closed
        let stream = try await SSEServer.client().request("/forever?gap_ms=20").stream()
        let seen = Lock(0)
        let reader = Task { for try await _ in stream.events() { seen.withLock { $0 += 1 } } }
        try await WaitTimeout.wait(for: "three ticks; \(seen.value) so far") { seen.value >= 3 }
        reader.cancel()
        let error = try await requireThrows(KonexError.self) { try await reader.value }
        #expect(error.stage == .cancelled)
        // The server sees the client leave: its generator is closed, not left running.
        let deadline = ContinuousClock.now + .seconds(30)
        var closed = closedBefore
        while closed == closedBefore, ContinuousClock.now < deadline {
            closed = try await SSEServer.stats().closed
            if closed == closedBefore { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(closed > closedBefore)
    }
}

@Suite(.enabled(if: Server.isAvailable, Server.skipReason))
struct HTTPBinStreamingTests {
    struct Line: Decodable, Sendable { let id: Int }

    @Test func jsonLinesFromStream() async throws {
        let stream = try await Server.client().request("/stream/5").validate().stream()
        var ids: [Int] = []
        for try await line in stream.jsonLines(decoding: Line.self) { ids.append(line.id) }
        #expect(ids == [0, 1, 2, 3, 4])
    }

    @Test func aSlowBodyArrivesInPieces() async throws {
        let stream = try await Server.client().request("/drip?numbytes=5&duration=1&delay=0").validate().stream()
        var chunks = 0
        var bytes = 0
        for try await chunk in stream.chunks {
            chunks += 1
            bytes += chunk.count
        }
        #expect(bytes == 5)
        #expect(chunks > 1)  // dripped over a second, not delivered whole
    }
}
