import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// `webSocket()` against KonexTesting's scripted mock server, on a ManualClock: messages, the handshake through the
/// pipeline, faults, pings, limits, cancellation and reconnection.
@Suite struct WebSocketTests {
    let clock = ManualClock()
    let mock: MockTransport
    let client: KonexClient

    init() {
        mock = MockTransport(clock: clock)
        client = KonexClient.mocked(mock, baseURL: api, clock: clock)
    }

    struct Chat: KonexRequest {
        let path = "/chat"
        var urlTemplate: String? { "/chat" }
    }
    struct Line: Codable, Sendable, Equatable { let text: String }

    /// Reads every message in a task of its own, collecting them.
    func collect(_ socket: WebSocket) -> (Task<Void, any Error>, Lock<[WebSocketMessage]>) {
        let got = Lock<[WebSocketMessage]>([])
        let reader = Task { for try await message in socket.messages { got.withLock { $0.append(message) } } }
        return (reader, got)
    }

    @Test func messagesTwentyMillisecondsApartThenAnExpectedExchangeOnAManualClock() async throws {
        mock.stubWebSocket(
            .get("/v1/chat"),
            script: WebSocketStep.stream([.text("a"), .text("b"), .text("c")], every: .milliseconds(20)) + [
                .expect(.text("ping me")), .send("pong you"), .close(.normalClosure, reason: "bye"),
            ])
        let socket = try await client.request(Chat()).webSocket()
        #expect(socket.response.statusCode == 101)
        let (reader, got) = collect(socket)
        for count in 1...3 {
            try await clock.waitForSleepers()
            clock.advance(by: .milliseconds(19))
            #expect(got.value.count == count - 1)  // nothing early
            clock.advance(by: .milliseconds(1))
            try await WaitTimeout.wait(for: "message \(count)") { got.value.count == count }
        }
        try await socket.send("ping me")
        try await reader.value
        #expect(got.value == [.text("a"), .text("b"), .text("c"), .text("pong you")])
        #expect(socket.closeCode == .normalClosure && socket.closeReason == "bye")
        #expect(mock.webSocketSessions.first?.mismatches == [])
    }

    @Test(
        arguments: [
            (nil, "chat"), ("chat.v1", "chat.v2"), ("chat.v1, chat.v2", "chat.v1, chat.v2"), (nil, "a,b"),
        ] as [(String?, String)])
    func aSubprotocolTheClientDidNotOfferFailsTheHandshake(offered: String?, chosen: String) async throws {
        // RFC 6455 §4.1: before, any Sec-WebSocket-Protocol in the 101 was accepted.
        mock.stubWebSocket(.get("/v1/chat"), handshake: .accept(headers: ["Sec-WebSocket-Protocol": chosen]))
        var request = client.request(Chat())
        if let offered { request = request.withAdapter(.header("Sec-WebSocket-Protocol", offered)) }
        let error = try await #require(throws: KonexError.self) { try await request.webSocket() }
        let failure = try #require(error.underlyingError as? WebSocketFailure)
        #expect(failure.kind == .protocolViolation)
        #expect(failure.message.contains("subprotocol"))
    }

    @Test func anOfferedSubprotocolIsAccepted() async throws {
        mock.stubWebSocket(.get("/v1/chat"), handshake: .accept(headers: ["Sec-WebSocket-Protocol": "chat.v2"]))
        let socket = try await client.request(Chat()).withAdapter(.header("Sec-WebSocket-Protocol", "chat.v1, chat.v2"))
            .webSocket()
        #expect(socket.response.value(forHTTPHeaderField: "Sec-WebSocket-Protocol") == "chat.v2")
        await socket.close()
    }

    @Test func aWrongMessageIsNamedAndClosesWith1008() async throws {
        mock.stubWebSocket(.get("/v1/chat"), script: [.expect(.text("hello"))])
        let socket = try await client.request(Chat()).webSocket()
        try await socket.send("goodbye")
        let error = try await #require(throws: KonexError.self) { for try await _ in socket.messages {} }
        #expect(error.stage == .connection && socket.closeCode == .policyViolation)
        #expect(mock.webSocketSessions[0].mismatches == ["expected text(hello), got text(goodbye)"])
    }

    @Test func aRefusedHandshakeGoesToTheRetriersAndTheTokenIsRefreshed() async throws {
        mock.stubWebSocket(.get("/v1/chat").header("Authorization", "Bearer fresh"), script: [.send("hi")])
        mock.stubWebSocket(.get("/v1/chat"), handshake: .refuse(status: 401, body: #"{"error":"expired"}"#))
        let auth = TokenAuthenticator(credential: .init(accessToken: "stale")) { _ in .init(accessToken: "fresh") }
        let log = RequestEventLog()
        client.instruments = [log]
        let socket = try await client.request(Chat()).withAdapter(auth).retry(auth).webSocket()
        #expect(socket.request.value(forHTTPHeaderField: "Authorization") == "Bearer fresh")
        #expect(auth.refreshCount == 1)
        #expect(
            log.events.prefix(5).map(\.description) == [
                "start GET /v1/chat (webSocket)", "send #1", "receive #1: 401",
                "retry #1: 401 after 0.0 seconds, refreshing the token", "send #2",
            ])
        await socket.close()
        #expect(log.events.last == .end(attempts: 2, outcome: "101"))
    }

    @Test func aRefusedHandshakeWithoutARetrierIsAHandshakeErrorWithTheResponse() async throws {
        mock.stubWebSocket(.get("/v1/chat"), handshake: .refuse(status: 403, body: "no"))
        let error = try await #require(throws: KonexError.self) { _ = try await client.request(Chat()).webSocket() }
        #expect(error.stage == .handshake && error.statusCode == 403 && error.bodySnippet == "no")
        #expect(error.errorType == "403")
    }

    @Test(arguments: [
        (WebSocketStep.close(.internalServerError, reason: "restarting"), WebSocketCloseCode.internalServerError),
        (.abort(), .abnormalClosure),
    ])
    func aServerThatClosesWith1011OrDropsTheConnectionIsAConnectionError(
        step: WebSocketStep, code: WebSocketCloseCode
    ) async throws {
        mock.stubWebSocket(.get("/v1/chat"), script: [.send("last words"), step])
        let socket = try await client.request(Chat()).webSocket()
        var messages: [WebSocketMessage] = []
        let error = try await #require(throws: KonexError.self) {
            for try await message in socket.messages { messages.append(message) }
        }
        #expect(messages == [.text("last words")])  // what arrived before the end is read first
        #expect(error.stage == .connection)
        #expect(socket.closeCode == code)
    }

    @Test func anUnansweredPingFailsTheConnectionOnTheClientsClock() async throws {
        mock.stubWebSocket(.get("/v1/chat"), script: [.stopAnsweringPings])
        let socket = try await client.request(Chat()).webSocket(pingInterval: .seconds(5), pongTimeout: .seconds(2))
        let reader = Task { for try await _ in socket.messages {} }
        try await clock.waitForSleepers(1)  // the ping interval (the reader's receive is not a sleeper)
        clock.advance(by: .seconds(5))  // the ping goes out
        try await WaitTimeout.wait(for: "the ping") { mock.webSocketSessions[0].pingCount == 1 }
        try await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(1_999))
        #expect(!mock.webSocketSessions[0].isClosed)
        clock.advance(by: .milliseconds(1))
        let error = try await #require(throws: KonexError.self) { try await reader.value }
        #expect(error.stage == .connection)
        #expect((error.underlyingError as? WebSocketFailure)?.kind == .pongTimeout)
        #expect(error.message.contains("no pong within 2.0 seconds"))
    }

    /// A reader far behind stops the transport reading, so a pong waits in the socket behind unread data: the ping
    /// is answered by that data (the peer is evidently alive), not failed by its timeout.
    @Test func aReaderFarBehindIsNotFailedByAPongStuckBehindItsData() async throws {
        mock.stubWebSocket(
            .get("/v1/chat"), script: [.stopAnsweringPings] + (1...8).map { _ in .send(.binary(Data(count: 400))) })
        let socket = try await client.request(Chat())
            .webSocket(
                options: WebSocketOptions(receiveBufferBytes: 1_000), pingInterval: .seconds(5),
                pongTimeout: .seconds(2))
        try await clock.waitForSleepers(1)  // the ping interval
        try await Task.sleep(for: .milliseconds(100))  // the script fills the inbox and waits for room
        clock.advance(by: .seconds(5))
        try await WaitTimeout.wait(for: "the ping") { mock.webSocketSessions[0].pingCount == 1 }
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(2))  // the pong timeout, had the ping waited for a pong
        try await Task.sleep(for: .milliseconds(50))
        var messages = 0
        let reader = Task {
            for try await _ in socket.messages {
                messages += 1
                if messages == 8 { break }
            }
            return messages
        }
        #expect(try await reader.value == 8)
        #expect(!mock.webSocketSessions[0].isClosed)
        await socket.close()
    }

    /// A socket released without `close()` ends its span and its open-connections gauge, once; one closed first
    /// ends them once too (close, then release).
    @Test func aSocketReleasedWithoutCloseEndsItsRecordersOnce() async throws {
        let log = RequestEventLog()
        client.instruments = [log]
        mock.stubWebSocket(.get("/v1/chat"))
        func ends() -> Int { log.events.filter { if case .end = $0 { true } else { false } }.count }
        var socket: WebSocket? = try await client.request(Chat()).webSocket()
        #expect(socket?.connectionCount == 1 && ends() == 0)
        socket = nil
        #expect(ends() == 1)
        #expect(log.events.last == .end(attempts: 1, outcome: "101"))
        try await WaitTimeout.wait(for: "the released socket's close") { mock.webSocketSessions[0].isClosed }
        #expect(mock.webSocketSessions[0].clientCloseCode == .goingAway)

        var closed: WebSocket? = try await client.request(Chat()).webSocket()
        await closed?.close()
        #expect(ends() == 2)
        closed = nil
        #expect(ends() == 2)
    }

    @Test func aServerThatNeverAnswersTheCloseIsDroppedAfterTheCloseTimeoutOnTheClientsClock() async throws {
        mock.stubWebSocket(.get("/v1/chat"), script: [.stopAnsweringClose])
        let socket = try await client.request(Chat())
            .webSocket(options: WebSocketOptions(closeTimeout: .seconds(3)))
        let closing = Task { await socket.close(.normalClosure, reason: "bye") }
        try await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(2_999))
        #expect(socket.closeCode == nil)  // still waiting for the server's answer
        clock.advance(by: .milliseconds(1))
        await closing.value
        #expect(socket.closeCode == .abnormalClosure)
        #expect(mock.webSocketSessions[0].clientCloseCode == .normalClosure)
    }

    @Test func answeredPingsKeepTheConnectionOpen() async throws {
        mock.stubWebSocket(.get("/v1/chat"))
        let socket = try await client.request(Chat()).webSocket(pingInterval: .seconds(1), pongTimeout: .seconds(10))
        for count in 1...5 {
            // Each pong cancels its timeout's sleep; advance until the next interval's ping has gone out.
            try await WaitTimeout.wait(for: "ping \(count)") {
                if mock.webSocketSessions[0].pingCount < count { clock.advance(by: .milliseconds(250)) }
                return mock.webSocketSessions[0].pingCount >= count
            }
        }
        #expect(!mock.webSocketSessions[0].isClosed)
        await socket.close()
    }

    @Test func aMessageOverTheLimitClosesWith1009() async throws {
        mock.stubWebSocket(.get("/v1/chat"), script: [.send(.binary(Data(count: 1_001)))])
        let socket = try await client.request(Chat()).webSocket(options: WebSocketOptions(maximumMessageSize: 1_000))
        let error = try await #require(throws: KonexError.self) { for try await _ in socket.messages {} }
        #expect(error.stage == .protocolViolation)
        #expect(error.message.contains("1001 bytes is over maximumMessageSize (1000)"))
        #expect(mock.webSocketSessions[0].clientCloseCode == .messageTooBig)
    }

    @Test func invalidUTF8InATextMessageClosesWith1007() async throws {
        mock.stubWebSocket(.get("/v1/chat"), script: [.sendInvalidUTF8])
        let socket = try await client.request(Chat()).webSocket()
        let error = try await #require(throws: KonexError.self) { for try await _ in socket.messages {} }
        #expect(error.stage == .protocolViolation)
        #expect(mock.webSocketSessions[0].clientCloseCode == .invalidFramePayloadData)
    }

    @Test func cancellingTheReaderClosesOnceWithGoingAway() async throws {
        mock.stubWebSocket(.get("/v1/chat"))
        let socket = try await client.request(Chat()).webSocket()
        let reader = Task { for try await _ in socket.messages {} }
        try await Task.sleep(for: .milliseconds(10))
        reader.cancel()
        let error = try await #require(throws: KonexError.self) { try await reader.value }
        #expect(error.stage == .cancelled)
        try await WaitTimeout.wait(for: "the close") { mock.webSocketSessions[0].isClosed }
        #expect(mock.webSocketSessions[0].clientCloseCode == .goingAway)
        await socket.close(.normalClosure)  // a second close does nothing
        #expect(mock.webSocketSessions[0].clientCloseCode == .goingAway)
    }

    @Test func aSlowReaderHoldsTheServerBack() async throws {
        mock.stubWebSocket(
            .get("/v1/chat"), script: (0..<5).map { .send("m\($0)") } + [.close(.normalClosure)])
        let socket = try await client.request(Chat()).webSocket(options: WebSocketOptions(receiveBufferLimit: 2))
        try await Task.sleep(for: .milliseconds(50))
        #expect(!mock.webSocketSessions[0].isClosed)  // the script waits for room: it has not reached its close
        var got: [WebSocketMessage] = []
        for try await message in socket.messages { got.append(message) }
        #expect(got == (0..<5).map { .text("m\($0)") })
    }

    @Test func jsonBothWaysAndADecodingErrorNamesTheMessage() async throws {
        mock.stubWebSocket(
            .get("/v1/chat"), script: [.expectAnyMessage, .send(#"{"text":"hi"}"#), .send(#"{"txt":"oops"}"#)])
        let socket = try await client.request(Chat()).webSocket()
        try await socket.send(json: Line(text: "hello"))
        var lines: [Line] = []
        let error = try await #require(throws: KonexError.self) {
            for try await line in socket.messages(decoding: Line.self) { lines.append(line) }
        }
        #expect(lines == [Line(text: "hi")])
        #expect(error.stage == .decoding && error.bodySnippet?.contains("oops") == true)
        #expect(mock.webSocketSessions[0].clientMessages == [.text(#"{"text":"hello"}"#)])
    }

    @Test func aBrokenConnectionReconnectsThroughThePipelineUnderThePolicy() async throws {
        mock.stubWebSocket(
            .get("/v1/chat"), script: [.send("one"), .close(.init(1012), reason: "restart")], times: .once)
        mock.stubWebSocket(.get("/v1/chat"), script: [.send("two"), .close(.normalClosure)])
        let socket = try await client.request(Chat())
            .reconnecting(ReconnectionPolicy(initialDelay: .seconds(1), jitter: 0)).webSocket()
        let (reader, got) = collect(socket)
        try await WaitTimeout.wait(for: "the first message") { got.value.count == 1 }
        try await clock.waitForSleepers()
        clock.advance(by: .seconds(1))
        try await reader.value
        #expect(got.value == [.text("one"), .text("two")])
        #expect(socket.connectionCount == 2 && mock.webSocketSessions.count == 2)
    }

    @Test func closeDuringTheReconnectionBackoffIsNotUndone() async throws {
        // Before: the reconnection opened a new connection after close() and the reader went on.
        mock.stubWebSocket(
            .get("/v1/chat"), script: [.send("one"), .close(.init(1012), reason: "restart")], times: .once)
        mock.stubWebSocket(.get("/v1/chat"), script: [.send("two")])
        let socket = try await client.request(Chat())
            .reconnecting(ReconnectionPolicy(initialDelay: .seconds(1), jitter: 0)).webSocket()
        let (reader, got) = collect(socket)
        try await WaitTimeout.wait(for: "the first message") { got.value.count == 1 }
        try await clock.waitForSleepers()
        await socket.close()
        clock.advance(by: .seconds(1))
        try await reader.value  // a clean end, not the broken connection's error
        #expect(got.value == [.text("one")])
        #expect(socket.connectionCount == 1 && mock.webSocketSessions.count == 1)
    }

    @Test func aScopedMockAnswersAClientBuiltElsewhere() async throws {
        mock.stubWebSocket(.get("/v1/chat"), script: [.send("scoped")])
        let elsewhere = KonexClient(baseURL: api)  // URLSessionTransport of its own
        let first = try await KonexClient.withTransport(mock, clock: clock) {
            let socket = try await elsewhere.request(Chat()).webSocket()
            var iterator = socket.messages.makeAsyncIterator()
            return try await iterator.next()
        }
        #expect(first == .text("scoped"))
    }

    @Test func processorsAreRefusedAndExplainSaysWhatAWebSocketSkips() async throws {
        let error = try await #require(throws: KonexError.self) {
            _ = try await client.request(Chat()).process { data, _ in data }.webSocket()
        }
        #expect(error.stage == .invalidRequest)
    }
}
