import Foundation
import Konex
import KonexTesting
import TestSupport
import Testing

/// Recording a streamed response as one HAR entry, and replaying it as a stream.
@Suite struct StreamRecordingTests {
    let local: [String: String] = [:]
    let three = [
        ServerSentEvent(data: "a", id: "1"), ServerSentEvent(data: "b", id: "2"), ServerSentEvent(data: "c", id: "3"),
    ]

    func events(_ stream: DataStream) async throws -> [String] {
        var seen: [String] = []
        for try await event in stream.events() { seen.append(event.data) }
        return seen
    }

    @Test func aStreamIsRecordedAsOneEntryAndReplayedEventByEvent() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("feed.har")
        let live = MockTransport(clock: ImmediateClock())
        live.stub(.get("/feed"), .events(three))
        let recorder = try RecordingTransport(live: live, fixture: file, mode: .once, environment: local)
        #expect(try await events(KonexClient.mocked(recorder).request("/feed").stream()) == ["a", "b", "c"])

        let har = try JSONDecoder().decode(HAR.self, from: Data(contentsOf: file))
        let entry = try #require(har.log.entries.first)
        #expect(har.log.entries.count == 1)
        #expect(entry.response.content.mimeType == "text/event-stream")
        #expect(entry.response.content.text == three.map(\.wireFormat).joined())
        #expect(entry._konex?.chunks?.map(\.bytes) == three.map { $0.wireFormat.utf8.count })

        let offline = MockTransport()
        let replayer = try RecordingTransport(live: offline, fixture: file, mode: .none, environment: local)
        let replayed = try await KonexClient.mocked(replayer).request("/feed").stream()
        var chunks = 0
        for try await _ in replayed.chunks { chunks += 1 }
        #expect(chunks == 3)  // one event a chunk, as recorded
        #expect(offline.requestCount == 0)
    }

    @Test func aReplayCanKeepTheRecordedPacing() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("paced.har")
        let live = MockTransport(clock: ImmediateClock())
        live.stub(.get("/feed"), .events(three))
        let recorder = try RecordingTransport(live: live, fixture: file, mode: .once, environment: local)
        _ = try await events(KonexClient.mocked(recorder).request("/feed").stream())
        // As if the server had sent them at 0, 200 and 250 ms.
        var har = try JSONDecoder().decode(HAR.self, from: Data(contentsOf: file))
        har.log.entries[0]._konex?.chunks = zip(three, [0.0, 200, 250]).map {
            HAR.ChunkTiming(bytes: $0.wireFormat.utf8.count, atMilliseconds: $1)
        }
        try JSONEncoder().encode(har).write(to: file)

        let clock = ManualClock()
        let replayer = try RecordingTransport(
            live: MockTransport(), fixture: file, mode: .none, environment: local, replaysRecordedPacing: true,
            clock: clock)
        let stream = try await KonexClient.mocked(replayer, clock: clock).request("/feed").stream()
        let seen = Lock<[String]>([])
        let reader = Task { for try await event in stream.events() { seen.withLock { $0.append(event.data) } } }
        try await WaitTimeout.wait(for: "the first event at once") { seen.value == ["a"] }
        try await clock.waitForSleepers()
        clock.advance(by: .milliseconds(199))
        #expect(seen.value == ["a"])
        clock.advance(by: .milliseconds(1))
        try await WaitTimeout.wait(for: "b at 200 ms") { seen.value == ["a", "b"] }
        try await clock.waitForSleepers()
        clock.advance(by: .milliseconds(50))
        try await reader.value
        #expect(seen.value == ["a", "b", "c"])
    }

    @Test func cancellingARecordingOfAnEndlessStreamWritesWhatArrived() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("endless.har")
        let live = MockTransport(clock: ImmediateClock())
        live.stub(.get("/forever"), .events(Array(three.prefix(2)), then: .hang))
        let recorder = try RecordingTransport(live: live, fixture: file, mode: .once, environment: local)
        let stream = try await KonexClient.mocked(recorder).request("/forever").stream()
        let seen = Lock<[String]>([])
        let reader = Task { for try await event in stream.events() { seen.withLock { $0.append(event.data) } } }
        try await WaitTimeout.wait(for: "two events") { seen.value.count == 2 }
        reader.cancel()
        let error = try await requireThrows(KonexError.self) { try await reader.value }
        #expect(error.stage == .cancelled)
        try await WaitTimeout.wait(for: "the recording to be written") {
            FileManager.default.fileExists(atPath: file.path)
        }
        let har = try JSONDecoder().decode(HAR.self, from: Data(contentsOf: file))
        #expect(har.log.entries.first?.response.content.text == three.prefix(2).map(\.wireFormat).joined())
    }
}
