import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// WebSocket sessions in HAR, in Chrome DevTools' `_webSocketMessages`: a session Chrome recorded replays in a Konex
/// test, and a session Konex records reads back the same way.
@Suite struct WebSocketHARTests {
    let api = URL(string: "https://api.test/v1")!
    static let chromeHAR = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/websocket/chrome-chat.har").standardized

    @Test func aSessionChromeRecordedReplaysAndTheClientMustSendWhatChromeSent() async throws {
        let (archive, skipped) = try HAR.read(from: Self.chromeHAR)
        #expect(skipped.isEmpty)
        #expect(archive.log.creator.name == "WebInspector")  // DevTools' own HAR writer wrote the file
        let entry = try #require(archive.log.entries.first)
        #expect(entry._resourceType == "websocket" && entry.request.url.hasPrefix("ws://"))
        #expect(entry._webSocketMessages?.map(\.type) == ["receive", "send", "receive", "send", "receive"])
        let mock = MockTransport(clock: ImmediateClock())
        #expect(mock.stubWebSockets(from: archive, strictSends: true) == 1)
        let client = KonexClient.mocked(mock, baseURL: URL(string: "https://chat.test")!)
        let socket = try await client.request("chat").webSocket()
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("welcome"))
        try await socket.send("hello from chrome")
        #expect(try await iterator.next() == .text("you said: hello from chrome"))
        try await socket.send(Data([1, 2, 3, 255]))  // Chrome's binary frame, base64 in the HAR
        #expect(try await iterator.next() == .text(#"you said: b'\x01\x02\x03\xff'"#))
        await socket.close()
        #expect(mock.webSocketSessions[0].mismatches.isEmpty)
    }

    @Test func replayKeepsTheRecordedPacingOnTheMocksClockWhenAsked() async throws {
        // Three messages a second and two seconds apart, as Chrome would write them.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("konex-paced-\(UUID().uuidString).har")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(
            #"""
            {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "entries": [{
              "startedDateTime": "2026-11-23T10:00:00.000Z", "time": 3000,
              "request": {"method": "GET", "url": "wss://chat.test/feed", "headers": []},
              "response": {"status": 101, "statusText": "Switching Protocols", "headers": [], "content": {}},
              "_resourceType": "websocket",
              "_webSocketMessages": [
                {"type": "receive", "time": 100.0, "opcode": 1, "data": "first"},
                {"type": "receive", "time": 101.0, "opcode": 1, "data": "a second later"},
                {"type": "receive", "time": 103.0, "opcode": 1, "data": "two more"}]}]}}
            """#.utf8
        ).write(to: file)
        let (archive, _) = try HAR.read(from: file)
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stubWebSockets(from: archive, pacing: true)
        let socket = try await KonexClient.mocked(mock, clock: clock).request("https://chat.test/feed").webSocket()
        let got = Lock<[String]>([])
        let reader = Task {
            for try await message in socket.messages {
                if case .text(let text) = message { got.withLock { $0.append(text) } }
            }
        }
        try await WaitTimeout.wait(for: "the first message, at once") { got.value == ["first"] }
        try await clock.waitForSleepers()
        clock.advance(by: .milliseconds(999))
        #expect(got.value == ["first"])
        clock.advance(by: .milliseconds(1))
        try await WaitTimeout.wait(for: "the second, a second later") { got.value.count == 2 }
        try await clock.waitForSleepers()
        clock.advance(by: .seconds(2))
        try await WaitTimeout.wait(for: "the third") { got.value.count == 3 }
        await socket.close()
        _ = await reader.result
    }

    @Test func aRecordedSessionIsWrittenInChromesFormatRedactedAndReplays() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("konex-ws-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let fixture = folder.appendingPathComponent("session.har")
        let live = MockTransport(clock: ImmediateClock())
        live.stubWebSocket(
            .get("/v1/chat"),
            script: [.send("welcome"), .expectAnyMessage, .send(.binary(Data([9, 8]))), .close(.normalClosure)])
        let recorder = try RecordingTransport(live: live, fixture: fixture, mode: .once, environment: [:])
        let client = KonexClient.mocked(recorder, baseURL: api)
        let socket = try await client.request("chat").webSocket()
        var iterator = socket.messages.makeAsyncIterator()
        #expect(try await iterator.next() == .text("welcome"))
        try await socket.send(json: ["token": "s3cr3t-token", "text": "hi"])
        #expect(try await iterator.next() == .binary(Data([9, 8])))
        #expect(try await iterator.next() == nil)

        let written = try String(contentsOf: fixture, encoding: .utf8)
        #expect(!written.contains("s3cr3t-token"))
        let (archive, _) = try HAR.read(from: fixture)
        let messages = try #require(archive.log.entries.first?._webSocketMessages)
        #expect(archive.log.entries.first?._resourceType == "websocket")
        #expect(messages.map(\.type) == ["receive", "send", "receive"])
        #expect(messages.map(\.opcode) == [1, 1, 2])
        #expect(messages[2].data == Data([9, 8]).base64EncodedString())
        #expect(messages[1].data.contains("REDACTED"))

        // The recording replays (mode .none: no live connection is made).
        let replaying = try RecordingTransport(live: MockTransport(), fixture: fixture, mode: .none, environment: [:])
        let again = try await KonexClient.mocked(replaying, baseURL: api).request("chat").webSocket()
        var replayed = again.messages.makeAsyncIterator()
        #expect(try await replayed.next() == .text("welcome"))
        try await again.send("anything")
        #expect(try await replayed.next() == .binary(Data([9, 8])))
        await again.close()
    }
}
