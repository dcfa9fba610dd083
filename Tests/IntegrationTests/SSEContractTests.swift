import Foundation
import Konex
import KonexTesting
import TestSupport
import Testing

/// The facts of the SSE contract cases (LaunchDarkly's sse-contract-tests: parsing, the byte order mark, comments,
/// line ends, reconnection), ported as tests against a real server: scripts/sse_server.py's `/scripted/{name}` answers
/// each connection with the next raw text of a scenario and logs what the client sent.
@Suite(.enabled(if: SSEServer.isAvailable, SSEServer.skipReason))
struct SSEContractTests {
    /// What one connection sent, as the server logged it.
    struct Sent: Decodable, Sendable {
        let method: String
        let body: String
        let last_event_id: String?
        let at: Double
        /// The request's headers, names in lower case.
        let headers: [String: String]
    }

    /// A scripted scenario, by GET or POST.
    struct Scripted: KonexRequest {
        let name: String
        let key = UUID().uuidString
        var method: HTTPMethod = .get
        var body: RequestBody?
        var headers: [String: String]?
        var path: String { "/scripted/\(name)" }
        var parameters: Parameters? { ["key": .string(key)] }
    }

    /// Reconnects at once: no server wait in these scenarios comes from the policy but `retry`'s.
    static let quick = ReconnectionPolicy(
        maximumAttempts: 5, initialDelay: .milliseconds(10), maximumDelay: .seconds(1), jitter: 0,
        minimumDelay: .milliseconds(10))

    /// Every event of `scenario` (read to the server's final 204), and what each connection sent. A watchdog cancels
    /// a read that outlives 60 s: a hang detector, not a speed target.
    static func run(
        _ scenario: Scripted, policy: ReconnectionPolicy = quick, idleTimeout: Duration? = nil,
        clock: any Clock<Duration> = ContinuousClock()
    ) async throws -> (events: [ServerSentEvent], sent: [Sent]) {
        let reader = Task {
            let stream = try await SSEServer.client(clock: clock).request(scenario).reconnecting(policy).validate()
                .stream(idleTimeout: idleTimeout)
            var events: [ServerSentEvent] = []
            for try await event in stream.events() { events.append(event) }
            return events
        }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(60))
            reader.cancel()
        }
        defer { watchdog.cancel() }
        let events = try await reader.value
        let sent = try await SSEServer.client().request("/scripted-log?key=\(scenario.key)").responseObject(
            of: [Sent].self)
        return (events, sent)
    }

    @Test func aPartialEventIsDiscardedAndTheReconnectionResumesAfterTheLastWholeOne() async throws {
        let (events, sent) = try await Self.run(Scripted(name: "partial"))
        #expect(events.map(\.data) == ["one", "two"])
        #expect(sent.map(\.last_event_id) == [nil, "1", "1"])
    }

    /// An event without `id` keeps the last ID; an empty `id` clears it, and a cleared ID is not sent.
    @Test func theLastEventIDIsTheLastOneSetAndAnEmptyIDClearsIt() async throws {
        let (events, sent) = try await Self.run(Scripted(name: "ids"))
        #expect(events.map(\.data) == ["1", "2", "3", "4"])
        #expect(events.map(\.id) == ["a", "a", nil, nil] || events.map(\.id) == ["a", "a", "", ""])
        #expect(sent.map(\.last_event_id) == [nil, "a", nil, nil])
    }

    @Test func theMethodAndTheBodyGoAgainOnEveryReconnection() async throws {
        let (events, sent) = try await Self.run(Scripted(name: "body", method: .post, body: .text("q=1")))
        #expect(events.map(\.data) == ["x", "y"])
        #expect(sent.map(\.method) == ["POST", "POST", "POST"])
        #expect(sent.map(\.body) == ["q=1", "q=1", "q=1"])
    }

    @Test func aByteOrderMarkCommentsAndEveryLineEndAreRead() async throws {
        let (events, _) = try await Self.run(Scripted(name: "lines"))
        #expect(events.map(\.data) == ["a", "b", "c\nd", " two spaces", ""])
    }

    @Test func aConnectionGoneSilentIsReconnectedByTheIdleTimeout() async throws {
        let (events, sent) = try await Self.run(Scripted(name: "stall"), idleTimeout: .seconds(1))
        #expect(events.map(\.data) == ["one", "two"])
        #expect(sent.map(\.last_event_id) == [nil, "1", "1"])  // "two" had no id: "1" is still the last
    }

    /// What an `EventSource` sends: GET, `Accept: text/event-stream`, `Cache-Control: no-cache`, no `Last-Event-ID`.
    @Test func theDefaultMethodAndHeaders() async throws {
        let (_, sent) = try await Self.run(Scripted(name: "once"))
        let first = try #require(sent.first)
        #expect(first.method == "GET")
        #expect(first.headers["accept"] == "text/event-stream")
        #expect(first.headers["cache-control"] == "no-cache")
        #expect(first.last_event_id == nil)
    }

    /// Custom headers, a POST and a REPORT with a JSON body, and a `Last-Event-ID` set by the caller for the first
    /// request go as given, on the first connection and on the next.
    @Test(arguments: [HTTPMethod.post, HTTPMethod(rawValue: "REPORT")])
    func customHeadersAMethodWithABodyAndAFirstLastEventID(method: HTTPMethod) async throws {
        var scenario = Scripted(name: "body", method: method, body: .data(Data(#"{"hello": "world"}"#.utf8)))
        scenario.headers = [
            "header-name-1": "value-1", "header-name-2": "value-2",
            "Content-Type": "application/json; charset=utf-8", "Last-Event-ID": "abc",
        ]
        let (_, sent) = try await Self.run(scenario)
        try #require(sent.count == 3)
        for request in sent {
            #expect(request.method == method.rawValue)
            #expect(request.body == #"{"hello": "world"}"#)
            #expect(request.headers["content-type"] == "application/json; charset=utf-8")
            #expect(request.headers["header-name-1"] == "value-1")
            #expect(request.headers["header-name-2"] == "value-2")
            // No event of "body" sets an ID, so the caller's own is the last one on every connection.
            #expect(request.last_event_id == "abc")
        }
    }

    /// `retry: 300` is waited (the policy alone would wait 5 s); `retry: 99999999999` is held to the policy's maximum
    /// of 5 s (unbounded, the watchdog would end the read). The waits are read from the clock the client slept on, not
    /// from the server's wall times: a loaded CI machine once stalled 7 s between two connections, and a wall-time
    /// bound that tells 0.3 s from 5 s cannot also allow that.
    @Test func retryIsHonouredWithinThePolicysBounds() async throws {
        let policy = ReconnectionPolicy(
            maximumAttempts: 5, initialDelay: .seconds(30), maximumDelay: .seconds(5), jitter: 0,
            minimumDelay: .milliseconds(10))
        let clock = SleepLogClock()
        let (events, sent) = try await Self.run(Scripted(name: "retry"), policy: policy, clock: clock)
        #expect(events.map(\.data) == ["one", "two", "three"])
        try #require(sent.count == 4)
        // Each request's own 30 s timeout sleeps on the same clock; the rest are the reconnection waits, in order.
        let waits = clock.sleeps.filter { $0 != SSEServer.requestTimeout }
        #expect(waits == [.milliseconds(300), .seconds(5), .seconds(5)])
        // The waits were real: the server saw the connections at least that far apart.
        #expect(sent[1].at - sent[0].at >= 0.3 && sent[2].at - sent[1].at >= 4.99)
    }
}
