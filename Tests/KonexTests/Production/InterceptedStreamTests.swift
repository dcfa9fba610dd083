import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// Streams and downloads pass the interceptors: a concurrency limit bounds them (a stream holds its slot until its
/// body ends), a cache and a coalescer let them by, and an interceptor's own reply reaches them as a body.
@Suite struct InterceptedStreamTests {
    let clock = ManualClock()

    /// An endless feed: one event, then nothing until the reader goes.
    func feed() -> MockTransport {
        let mock = MockTransport(clock: clock)
        mock.stub(
            .get("/v1/feed"),
            .chunks(
                [.text("data: 1\n\n"), MockChunk(Data("data: 2\n\n".utf8), after: .seconds(3_600))],
                contentType: "text/event-stream"))
        mock.stub(.get("/v1/posts"), .json([["id": 1]]))
        return mock
    }

    @Test func aStreamHoldsItsLimitSlotUntilItsBodyEnds() async throws {
        let limit = ConcurrencyLimit(maximum: 1)
        let mock = feed()
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        client.interceptors = [limit]
        let stream = try await client.request("feed").stream()
        #expect(limit.counts.inFlight == 1)  // the head arrived; the body has not ended
        let waiting = Task { try await client.request("posts").responseData() }
        try await WaitTimeout.wait(for: "the second request to queue") { limit.counts.waiting == 1 }
        #expect(mock.requests.count == 1)  // it is not sent while the stream runs
        stream.cancel()  // the reader goes: the slot is free
        _ = try await waiting.value
        #expect(mock.requests.count == 2)
        #expect(limit.counts == (0, 0))
    }

    @Test func aStreamThatEndsOnItsOwnGivesItsSlotBack() async throws {
        let limit = ConcurrencyLimit(maximum: 1)
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/feed"), .chunks([.text("data: 1\n\n")], contentType: "text/event-stream"))
        let client = KonexClient.mocked(mock, baseURL: api)
        client.interceptors = [limit]
        for _ in 1...3 {
            let stream = try await client.request("feed").stream()
            for try await _ in stream.chunks {}
            try await WaitTimeout.wait(for: "the slot back") { limit.counts == (0, 0) }
        }
    }

    @Test func aDownloadPassesTheLimitAndTheCacheStoresNoStream() async throws {
        let limit = ConcurrencyLimit(maximum: 2)
        let cache = HTTPCache(storage: .memory(capacity: 1 << 20), cookieStorage: nil)
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/report"), .string("report", headers: ["Cache-Control": "max-age=600"]))
        let client = KonexClient.mocked(mock, baseURL: api)
        client.interceptors = [cache, RequestCoalescer(), limit]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let saved = try await client.request("report").download(to: folder.appendingPathComponent("report.txt"))
        #expect(try String(contentsOf: saved.value, encoding: .utf8) == "report")
        let streamed = try await client.request("report").stream()
        var text = ""
        for try await chunk in streamed.chunks { text += String(decoding: chunk, as: UTF8.self) }
        #expect(text == "report")
        // Neither was stored (their bodies were never in a reply), so the whole-body request goes to the network.
        #expect(try await client.request("report").responseString() == "report")
        #expect(mock.requests.count == 3)
        #expect(try await client.request("report").responseString() == "report")
        #expect(mock.requests.count == 3)  // now it is stored
        #expect(limit.counts == (0, 0))
    }

    /// An interceptor that answers by itself, as a mock or an offline mode would.
    struct Canned: TransportInterceptor {
        let deliveries = Lock<[BodyDelivery]>([])
        func intercept(_ request: TransportRequest, next: TransportNext) async throws -> TransportReply {
            deliveries.withLock { $0.append(next.delivery) }
            let response = HTTPURLResponse(
                url: request.url, statusCode: 200, httpVersion: nil, headerFields: ["Content-Type": "text/plain"])!
            return TransportReply(data: Data("canned".utf8), response: response)
        }
    }

    @Test func anInterceptorsOwnReplyReachesAStreamAndADownload() async throws {
        let canned = Canned()
        let client = KonexClient.mocked(MockTransport(clock: ImmediateClock()), baseURL: api)
        client.interceptors = [canned]
        #expect(try await client.request("any").responseString() == "canned")
        let stream = try await client.request("any").stream()
        var streamed = Data()
        for try await chunk in stream.chunks { streamed += chunk }
        #expect(streamed == Data("canned".utf8))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try await client.request("any").download(to: folder.appendingPathComponent("canned"))
        #expect(try Data(contentsOf: file.value) == Data("canned".utf8))
        #expect(canned.deliveries.value == [.whole, .incremental, .file])
    }
}
