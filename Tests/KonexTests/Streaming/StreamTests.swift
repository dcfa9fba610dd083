import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// `stream()` over the mock transport on a ManualClock: what the pipeline does with a head, and how a body that is
/// still arriving is read, timed out and cancelled.
@Suite struct StreamTests {
    struct Delta: Codable, Sendable, Equatable { let text: String }

    static func deltas(_ count: Int) -> [ServerSentEvent] {
        (0..<count).map { ServerSentEvent(data: #"{"text":"t\#($0)"}"#, id: "\($0)") } + [
            ServerSentEvent(data: "[DONE]")
        ]
    }

    @Test func firstTokenAfter200msThenFiftyEvery20msOnAManualClock() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/chat"), .events(Self.deltas(50), firstAfter: .milliseconds(200), every: .milliseconds(20)))
        let client = KonexClient.mocked(mock, clock: clock)
        let stream = try await client.request("chat").validate().stream()
        #expect(stream.statusCode == 200)
        let received = Lock<[String]>([])
        let reader = Task {
            for try await delta in stream.events(decoding: Delta.self, until: "[DONE]") {
                received.withLock { $0.append(delta.text) }
            }
        }
        try await clock.waitForSleepers()
        clock.advance(by: .milliseconds(199))
        #expect(received.value.isEmpty)  // nothing before the first token is due
        clock.advance(by: .milliseconds(1))
        try await WaitTimeout.wait(for: "the first token; got \(received.value)") { received.value == ["t0"] }
        for index in 1...50 {
            try await clock.waitForSleepers()
            clock.advance(by: .milliseconds(20))
            try await WaitTimeout.wait(for: "token \(index)") { received.value.count == Swift.min(index + 1, 50) }
        }
        try await reader.value
        #expect(received.value == (0..<50).map { "t\($0)" })
        #expect(clock.now.offset == .milliseconds(200 + 50 * 20))
    }

    @Test func validatorsRunOnTheHeadAndANon2xxStreamCarriesItsDecodedErrorBody() async throws {
        struct APIError: Codable, Sendable, Equatable { let message: String }
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(
            .get("/chat"),
            .chunks([.text(#"{"message":"#), .text(#""no token"}"#)], status: 401, contentType: "application/json"))
        let client = KonexClient.mocked(mock)
        let error = try await requireThrows(KonexError.self) {
            try await client.request("chat").validate().decodingErrors(as: APIError.self).stream()
        }
        #expect(error.stage == .validation)
        #expect(error.statusCode == 401)
        #expect(error.errorBody(as: APIError.self) == APIError(message: "no token"))
        #expect(error.headers["content-type"] == "application/json")
    }

    @Test func withoutValidationANon2xxStreamStillDeliversItsWholeBody() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/x"), .chunks([.text("a"), .text("b")], status: 500))
        let stream = try await KonexClient.mocked(mock).request("x").stream()
        var body = Data()
        for try await chunk in stream.chunks { body.append(chunk) }
        #expect(String(decoding: body, as: UTF8.self) == "ab")
    }

    @Test func retriesHappenBeforeTheFirstByteOnly() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/feed"), .status(503), .events([ServerSentEvent(data: "a")], then: .connectionLost))
        let client = KonexClient.mocked(mock, clock: ImmediateClock())
        let stream = try await client.request("feed").validate().retry(RetryPolicy()).stream()
        var events: [String] = []
        let error = try await requireThrows(KonexError.self) {
            for try await event in stream.events() { events.append(event.data) }
        }
        #expect(events == ["a"])
        #expect(error.stage == .transport)  // the lost connection is reported, not retried
        #expect(mock.requestCount == 2)
    }

    @Test func processorsThatNeedTheWholeBodyAreRefusedAtTheCallSite() async throws {
        let client = KonexClient.mocked(MockTransport(clock: ImmediateClock()).stubbing(.anything, .string("x")))
        let error = try await requireThrows(KonexError.self) {
            try await client.request("x").process(.keyPath("data")).stream()
        }
        #expect(error.stage == .invalidRequest)
        #expect(error.message.contains("processors need the whole body"))
    }

    @Test func cancellingTheReadingTaskStopsTheTransferAndEndsWithCancelledOnce() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/forever"), .events([ServerSentEvent(data: "hello")], then: .hang))
        let stream = try await KonexClient.mocked(mock, clock: clock).request("forever").stream()
        let seen = Lock<[String]>([])
        let reader = Task {
            for try await event in stream.events() { seen.withLock { $0.append(event.data) } }
        }
        try await WaitTimeout.wait(for: "the first event") { seen.value == ["hello"] }
        reader.cancel()
        let error = try await requireThrows(KonexError.self) { try await reader.value }
        #expect(error.stage == .cancelled)
        #expect(stream.body.buffer.isEnded)
        // Read again: the end was already told, once.
        var again = stream.chunks.makeAsyncIterator()
        #expect(try await again.next() == nil)
    }

    @Test func aCancelledStreamLeavesNothingBehind() async throws {
        weak var released: DataStream?
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/forever"), .events([ServerSentEvent(data: "a")], then: .hang))
        do {
            let stream = try await KonexClient.mocked(mock, clock: clock).request("forever").stream(
                idleTimeout: .seconds(30), totalTimeout: .seconds(60))
            released = stream
            var events = stream.events().makeAsyncIterator()
            _ = try await events.next()
            stream.cancel()
            await expectThrows(KonexError.self) { _ = try await events.next() }
        }
        // The stream, its watchdog and the mock's producer are all gone: nothing sleeps on the clock any more.
        try await WaitTimeout.wait(for: "the stream to be released and the clock idle") {
            released == nil && clock.sleeperCount == 0
        }
    }

    @Test func aStreamNobodyHoldsStopsItsTransfer() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/feed"), .chunks([.text("later", after: .seconds(10))], then: .hang))
        do {
            let stream = try await KonexClient.mocked(mock, clock: clock).request("feed").stream()
            #expect(stream.statusCode == 200)
            try await clock.waitForSleepers()  // the producer waits for its chunk
        }
        // Dropped unread: the producer is cancelled instead of waiting and buffering for nobody.
        try await WaitTimeout.wait(for: "the producer to stop; \(clock.sleeperCount) sleeping") {
            clock.sleeperCount == 0
        }
    }

    @Test func cancellingTheHandleEndsAWaitingReaderWithCancelled() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/forever"), .chunks([], then: .hang))
        let stream = try await KonexClient.mocked(mock).request("forever").stream()
        let reader = Task { for try await _ in stream.lines() {} }
        stream.cancel()
        let error = try await requireThrows(KonexError.self) { try await reader.value }
        #expect(error.stage == .cancelled)
    }

    @Test func idleAndTotalTimeoutsAreDistinctTypedErrorsOnTheClientsClock() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/slow"), .chunks([.text("a"), .text("b", after: .seconds(10))]))
        mock.stub(.get("/long"), .chunks((0..<100).map { .text("x", after: .seconds($0 == 0 ? 0 : 1)) }))
        let client = KonexClient.mocked(mock, clock: clock)

        let slow = try await client.request("slow").stream(idleTimeout: .seconds(5))
        let idle = Task { for try await _ in slow.chunks {} }
        try await clock.waitForSleepers(2)  // the chunk's delay and the watchdog
        clock.advance(by: .seconds(5))
        let idleError = try await requireThrows(KonexError.self) { try await idle.value }
        #expect((idleError.underlyingError as? StreamFailure)?.kind == .idleTimeout)
        #expect(idleError.stage == .transport)

        let long = try await client.request("long").stream(idleTimeout: .seconds(5), totalTimeout: .seconds(30))
        let total = Task { for try await _ in long.chunks {} }
        for _ in 0..<30 {
            try await clock.waitForSleepers(2)
            clock.advance(by: .seconds(1))
        }
        let totalError = try await requireThrows(KonexError.self) { try await total.value }
        #expect((totalError.underlyingError as? StreamFailure)?.kind == .totalTimeout)
        #expect(totalError.message.contains("total timeout"))
    }

    /// Issue 46, item 2: the stream's timeouts start where its body is taken, so the start of an error body read for
    /// validators is watched too; before, a server that sent half an error body and stalled held `stream()` until the
    /// transport gave up.
    @Test func theStartOfAStalledErrorBodyIsReadUnderTheStreamsIdleTimeout() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(
            .get("/broken"),
            .chunks([.text("{\"error\":"), .text("\"late\"}", after: .seconds(600))], status: 500))
        let client = KonexClient.mocked(mock, clock: clock)
        let opening = Task { try await client.request("broken").validate().stream(idleTimeout: .seconds(5)) }
        try await clock.waitForSleepers(2)  // the chunk's delay and the watch
        clock.advance(by: .seconds(5))
        let error = try await requireThrows(KonexError.self) { try await opening.value }
        #expect((error.underlyingError as? StreamFailure)?.kind == .idleTimeout, "\(error)")
        #expect(clock.now.offset == .seconds(5))
    }

    @Test func aReaderThatFallsBehindTheBufferLimitGetsATypedErrorNotUnboundedMemory() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/flood"), .chunks((0..<100).map { _ in MockChunk(Data(count: 1_024)) }))
        let stream = try await KonexClient.mocked(mock).request("flood").stream(bufferLimit: 10_000)
        try await WaitTimeout.wait(for: "the buffer to overflow") { stream.body.buffer.isEnded }
        var count = 0
        let error = try await requireThrows(KonexError.self) { for try await _ in stream.chunks { count += 1 } }
        #expect((error.underlyingError as? StreamFailure)?.kind == .bufferOverflow)
        #expect(count <= 10)
    }

    /// A stream refused for its size (an error body past `maximumResponseSize`) is cancelled: its `ConcurrencyLimit`
    /// slot is free for the next request, not held by a body nobody will read.
    @Test func aStreamRefusedForItsSizeGivesBackItsSlot() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        // More than the 64 KiB of error body Konex reads for validators, then a body that never ends.
        mock.stub(
            .get("/v1/big"), .chunks((0..<80).map { _ in MockChunk(Data(count: 1_000)) }, status: 500, then: .hang))
        mock.stub(.get("/v1/small"), .string("ok"))
        let client = KonexClient(
            baseURL: api, transport: mock, maximumResponseSize: 2_000, interceptors: [ConcurrencyLimit(maximum: 1)])
        let error = try await requireThrows(KonexError.self) { try await client.request("big").stream() }
        #expect(error.message.contains("2000") || error.message.contains("2,000"), "\(error.message)")
        let next = Task { try await client.request("small").responseString() }
        let done = Lock(false)
        let watcher = Task {
            _ = try? await next.value
            done.withLock { $0 = true }
        }
        do {
            try await WaitTimeout.wait(for: "the next request to get the slot") { done.value }
        } catch {
            next.cancel()  // unstick it, so the failure below is reported instead of a hang
            Issue.record("the refused stream kept its slot")
        }
        _ = await watcher.value
        #expect(try await next.value == "ok")
    }

    /// The start of an error body kept for validators says whether the body went on past it: a longer one is never
    /// passed off as whole, for a stream or a download.
    @Test(arguments: [1_000, 65_536, 65_537, 200_000])
    func anErrorBodyLongerThanWhatIsKeptSaysSo(size: Int) async throws {
        let body = Data((0..<size).map { UInt8(truncatingIfNeeded: $0) })
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(
            .get("/v1/fail"),
            .chunks(
                stride(from: 0, to: size, by: 7_000).map {
                    MockChunk(body[$0..<min($0 + 7_000, size)])
                }, status: 500))
        let client = KonexClient.mocked(mock, baseURL: api)
        let streamed = try await requireThrows(KonexError.self) { try await client.request("fail").validate().stream() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("konex-partial-\(UUID().uuidString)")
        let downloaded = try await requireThrows(KonexError.self) {
            try await client.request("fail").validate().download(to: file)
        }
        for error in [streamed, downloaded] {
            #expect(error.statusCode == 500)
            #expect(error.data == body.prefix(65_536))
            #expect(error.isDataPartial == (size > 65_536))
            #expect(error.message.contains("goes on past the 65536 bytes kept") == (size > 65_536), "\(error.message)")
        }
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    /// One chunk larger than the whole buffer never fails the stream by itself: an empty buffer holds it alone, and
    /// a producer that can pause waits for the reader before the next one.
    @Test func oneChunkLargerThanTheBufferIsHeldAlone() async throws {
        let (stream, continuation) = ByteStream.makeStream(bufferLimit: 4_096) {}
        #expect(continuation.yield(Data(count: 65_536)))
        let second = Task { await continuation.send(Data(count: 65_536)) }
        try await Task.sleep(for: .milliseconds(20))
        var total = 0
        var iterator = stream.makeAsyncIterator()
        total += try await iterator.next()?.count ?? 0
        #expect(await second.value)
        continuation.finish()
        while let chunk = try await iterator.next() { total += chunk.count }
        #expect(total == 131_072)
        // A second chunk into a buffer that still holds one, from a producer that cannot pause, overflows as before.
        let (full, feed) = ByteStream.makeStream(bufferLimit: 4_096) {}
        #expect(feed.yield(Data(count: 3_000)))
        #expect(!feed.yield(Data(count: 3_000)))
        #expect(full.buffer.isEnded)
    }

    @Test func linesAndJSONLines() async throws {
        struct Item: Codable, Sendable, Equatable { let id: Int }
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/lines"), .chunks([.text("a\r"), .text("\nb\nc")]))
        mock.stub(.get("/jsonl"), .chunks([.text("{\"id\":1}\n\n{\"i"), .text("d\":2}\n")]))
        mock.stub(.get("/bad"), .chunks([.text("{\"id\":1}\n{\"id\":\"x\"}\n")]))
        let client = KonexClient.mocked(mock)
        var lines: [String] = []
        for try await line in try await client.request("lines").stream().lines() { lines.append(line) }
        #expect(lines == ["a", "b", "c"])
        var items: [Item] = []
        for try await item in try await client.request("jsonl").stream().jsonLines(decoding: Item.self) {
            items.append(item)
        }
        #expect(items == [Item(id: 1), Item(id: 2)])
        let error = try await requireThrows(KonexError.self) {
            for try await _ in try await client.request("bad").stream().jsonLines(decoding: Item.self) {}
        }
        #expect(error.stage == .decoding)
        #expect(error.message.hasPrefix("line 2 of the stream: "))
        #expect(error.codingPath == "id")
    }

    /// Lines a hostile server could send: a repeated name, an escaped name, nesting past every parser's limit. Each
    /// reads as `JSONDecoder` reads it on its own, and the one it refuses fails naming its line.
    @Test func hostileJSONLinesDecodeAsJSONDecoderDecodesThem() async throws {
        struct Item: Codable, Sendable, Equatable { let id: Int }
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let lines = [#"{"id":1,"id":2}"#, #"{"\u0069d":3}"#, #"{"id":4,"junk":"# + deep + "}"]
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/jsonl"), .chunks([.text(lines.joined(separator: "\n") + "\n")]))
        var items: [Item] = []
        let failure = await #expect(throws: KonexError.self) {
            for try await item in try await KonexClient.mocked(mock).request("jsonl").stream()
                .jsonLines(decoding: Item.self)
            {
                items.append(item)
            }
        }
        let expected = try lines.prefix(2).map { try JSONDecoder().decode(Item.self, from: Data($0.utf8)) }
        #expect(items == expected)
        #expect(throws: (any Error).self) { try JSONDecoder().decode(Item.self, from: Data(lines[2].utf8)) }
        #expect(failure?.stage == .decoding)
        #expect(failure?.message.hasPrefix("line 3 of the stream: ") == true)
    }

    @Test func eventsOfAResponseThatIsNotAnEventStreamSayWhatCame() async throws {
        let mock = MockTransport(clock: ImmediateClock()).stubbing(.anything, .json(["a": 1] as JSON))
        let stream = try await KonexClient.mocked(mock).request("x").stream()
        let error = try await requireThrows(KonexError.self) { for try await _ in stream.events() {} }
        #expect(error.stage == .validation)
        #expect(error.message == "events() needs a text/event-stream response, and this one is \"application/json\"")
    }

    @Test func malformedEventsAndAServerClosingMidEvent() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        let head = MockChunk.text("data: ok\n\n")
        mock.stub(
            .get("/latin1"),
            .chunks(
                [head, MockChunk(Data([0x64, 0x61, 0x74, 0x61, 0x3A, 0xE9, 0x0A, 0x0A]))],
                contentType: "text/event-stream"))
        mock.stub(.get("/cut"), .chunks([head, .text("data: half an ev")], contentType: "text/event-stream"))
        mock.stub(
            .get("/long"),
            .chunks([head, .text("data: " + String(repeating: "x", count: 2_000))], contentType: "text/event-stream"))
        let client = KonexClient.mocked(mock)
        var seen: [String] = []
        // Latin-1 where UTF-8 belongs: decoded with U+FFFD, as the standard says, and the stream goes on.
        for try await event in try await client.request("latin1").stream().events() { seen.append(event.data) }
        #expect(seen == ["ok", "\u{FFFD}"])
        // The server closes mid-event: the half event is discarded and the stream simply ends.
        seen = []
        for try await event in try await client.request("cut").stream().events() { seen.append(event.data) }
        #expect(seen == ["ok"])
        let long = try await requireThrows(KonexError.self) {
            for try await _ in try await client.request("long").stream().events(maximumLineLength: 1_024) {}
        }
        #expect((long.underlyingError as? StreamFailure)?.kind == .lineTooLong)
    }

    @Test func aTransportThatCannotStreamDeliversTheBodyAsOneChunk() async throws {
        struct Plain: Transport {
            func send(_ request: TransportRequest, context: TransportContext) async throws -> (
                ResponseHead, ResponseBody
            ) {
                let head = ResponseHead(
                    statusCode: 200, headerFields: ["Content-Type": "text/event-stream"], url: request.url)
                return (head, ResponseBody(Data("data: one\n\ndata: two\n\n".utf8)))
            }
        }
        let stream = try await KonexClient(baseURL: api, transport: Plain()).request("x").stream()
        var chunks = 0
        var events: [String] = []
        var parser = ServerSentEventParser()
        for try await chunk in stream.chunks {
            chunks += 1
            try parser.parse(chunk) { events.append($0.data) }
        }
        #expect(chunks == 1)
        #expect(events == ["one", "two"])
    }
}

/// Reconnecting Server-Sent Events: Last-Event-ID, the server's retry, the policy's backoff, 204 and plugins.
@Suite struct ReconnectionTests {
    final class Sent: KonexPlugin, Sendable {
        let lastEventIDs = Lock<[String?]>([])
        func didSendRequest(_ request: TransportRequest) async {
            lastEventIDs.withLock { $0.append(request.value(forHTTPHeaderField: "Last-Event-ID")) }
        }
    }

    @Test func reconnectsWithLastEventIDAfterTheServersRetryAndStopsOn204() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/feed").header("Last-Event-ID", "3"), .status(204))
        mock.stub(
            .get("/feed").header("Last-Event-ID", "2"), .events([ServerSentEvent(data: "c", id: "3")]))
        mock.stub(
            .get("/feed"),
            .events([
                ServerSentEvent(data: "a", id: "1"), ServerSentEvent(data: "b", id: "2", retry: .milliseconds(500)),
            ]),
            times: .once)
        let sent = Sent()
        let client = KonexClient.mocked(mock, clock: clock)
        let stream = try await client.request("feed").withPlugin(sent).reconnecting(ReconnectionPolicy(jitter: 0))
            .stream()
        let seen = Lock<[String]>([])
        let reader = Task { for try await event in stream.events() { seen.withLock { $0.append(event.data) } } }
        try await clock.waitForSleepers()  // the server's retry: 500 ms, not the policy's 3 s
        #expect(seen.value == ["a", "b"])
        clock.advance(by: .milliseconds(499))
        #expect(mock.requestCount == 1)
        clock.advance(by: .milliseconds(1))
        try await WaitTimeout.wait(for: "event c") { seen.value == ["a", "b", "c"] }
        try await clock.waitForSleepers()
        clock.advance(by: .milliseconds(500))
        try await reader.value  // 204: the stream is over
        #expect(seen.value == ["a", "b", "c"])
        #expect(sent.lastEventIDs.value == [nil, "2", "3"])  // every reconnection went through the plugins
    }

    @Test func backsOffOnRetryableStatusesAndStopsOnOthers() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/feed").header("Last-Event-ID", "1"), .status(503), .status(503), .status(404))
        mock.stub(.get("/feed"), .events([ServerSentEvent(data: "a", id: "1")]), times: .once)
        let client = KonexClient.mocked(mock, clock: clock)
        let policy = ReconnectionPolicy(maximumAttempts: 5, initialDelay: .seconds(1), multiplier: 2, jitter: 0)
        let stream = try await client.request("feed").reconnecting(policy).stream()
        let reader = Task { for try await _ in stream.events() {} }
        var waits: [Duration] = []
        for wait in [Duration.seconds(1), .seconds(2), .seconds(4)] {
            try await clock.waitForSleepers()
            let before = clock.now
            clock.advance(by: wait)
            waits.append(before.duration(to: clock.now))
        }
        let error = try await requireThrows(KonexError.self) { try await reader.value }
        #expect(error.statusCode == 404)
        #expect(error.message.contains("404, which is not retried"))
        #expect(waits == [.seconds(1), .seconds(2), .seconds(4)])
        #expect(mock.requestCount == 4)
    }

    @Test func withoutAPolicyTheStreamSimplyEnds() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/feed"), .events([ServerSentEvent(data: "a")]))
        var seen: [String] = []
        for try await event in try await KonexClient.mocked(mock).request("feed").stream().events() {
            seen.append(event.data)
        }
        #expect(seen == ["a"])
        #expect(mock.requestCount == 1)
    }
}

/// Item 8: reconnection keeps the request's timeouts, reconnects after an idle timeout, and sends only the current
/// `Last-Event-ID`.
@Suite struct ReconnectionTrustTests {
    @Test func anIdleTimeoutReconnectsAndEveryConnectionKeepsIt() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        let silent = { (id: String) in
            MockResponse.chunks([.text("id: \(id)\ndata: \(id)\n\n")], contentType: "text/event-stream", then: .hang)
        }
        mock.stub(.get("/feed").header("Last-Event-ID", "2"), .status(204))
        mock.stub(.get("/feed").header("Last-Event-ID", "1"), silent("2"))
        mock.stub(.get("/feed"), silent("1"), times: .once)
        let client = KonexClient.mocked(mock, clock: clock)
        let policy = ReconnectionPolicy(initialDelay: .seconds(1), jitter: 0)
        let stream = try await client.request("feed").reconnecting(policy).stream(idleTimeout: .seconds(5))
        let seen = Lock<[String]>([])
        let reader = Task { for try await event in stream.events() { seen.withLock { $0.append(event.data) } } }
        for _ in 0..<40 {
            try await WaitTimeout.wait(for: "a sleeper or the last request") {
                clock.sleeperCount > 0 || mock.requestCount == 3
            }
            if mock.requestCount == 3 { break }
            clock.advance(by: .seconds(1))
        }
        try await reader.value  // the third connection's 204 ends the stream
        #expect(seen.value == ["1", "2"])
        #expect(mock.requests.map { $0.header("Last-Event-ID") } == [nil, "1", "2"])
    }

    @Test func anIDResetByTheServerIsNotSentAgain() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(
            .get("/feed").header("Last-Event-ID", "1"),
            .chunks([.text("id\ndata: reset\n\n")], contentType: "text/event-stream"))
        mock.stub(.get("/feed"), .chunks([.text("id: 1\ndata: a\n\n")], contentType: "text/event-stream"), times: .once)
        mock.stub(.get("/feed"), .status(204))
        let client = KonexClient.mocked(mock, clock: ImmediateClock())
        var seen: [String] = []
        let stream = try await client.request("feed").reconnecting(ReconnectionPolicy(jitter: 0)).stream()
        for try await event in stream.events() { seen.append(event.data) }
        #expect(seen == ["a", "reset"])
        #expect(mock.requests.map { $0.header("Last-Event-ID") } == [nil, "1", nil])
    }

    @Test func aServersRetryOfZeroIsFlooredAndStillJittered() {
        let policy = ReconnectionPolicy()
        #expect(policy.delay(serverRetry: .zero, failures: 0, random: 0) == .milliseconds(250))
        #expect(policy.delay(serverRetry: .zero, failures: 0, random: 0.999) > .milliseconds(250))
        #expect(policy.delay(serverRetry: .milliseconds(1), failures: 3, random: 0.5) == .seconds(2))
        #expect(ReconnectionPolicy(minimumDelay: .seconds(-5)).minimumDelay == .zero)
    }

    @Test func aServerThatSendsRetryZeroAndClosesAtOnceIsNotALoop() async throws {
        // Before: `retry: 0` and an empty connection reconnected with no wait, forever.
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/feed"), .chunks([.text("retry: 0\n\n")], contentType: "text/event-stream"))
        let client = KonexClient.mocked(mock, clock: clock)
        let policy = ReconnectionPolicy(maximumAttempts: 4, jitter: 0)
        let stream = try await client.request("feed").reconnecting(policy).stream()
        let reader = Task { for try await _ in stream.events() {} }
        // Each empty connection is a failed attempt: 250 ms doubled from the first, then the attempts end.
        for (index, wait) in [Duration.milliseconds(500), .seconds(1), .seconds(2)].enumerated() {
            try await clock.waitForSleepers()
            clock.advance(by: wait - .milliseconds(1))
            #expect(mock.requestCount == index + 1)
            clock.advance(by: .milliseconds(1))
            try await WaitTimeout.wait(for: "reconnection \(index + 1)") { mock.requestCount == index + 2 }
        }
        try await reader.value
        #expect(mock.requestCount == 4)
    }

    @Test func theDelayIsSpreadByJitterWithinItsBounds() {
        let policy = ReconnectionPolicy(initialDelay: .seconds(10), jitter: 0.2)
        #expect(policy.delay(serverRetry: nil, failures: 0, random: 0) == .seconds(8))
        #expect(policy.delay(serverRetry: nil, failures: 0, random: 0.5) == .seconds(10))
        #expect(policy.delay(serverRetry: .seconds(1), failures: 1, random: 0.999_999) < .milliseconds(2_400))
        // Absurd inputs are clamped, never a trap: a server's 18-digit retry and a thousand failures.
        let huge = ReconnectionPolicy(maximumAttempts: 10_000, maximumDelay: .seconds(3_600))
        #expect(
            huge.delay(serverRetry: .milliseconds(999_999_999_999_999_999), failures: 1_000, random: 1)
                <= .seconds(4_320))
    }
}
