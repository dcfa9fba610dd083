import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// Progress as a sequence: both ends of both directions for every successful request, in order, never backwards
/// within an attempt, finished with the request however it ends.
@Suite struct ProgressUpdatesTests {
    struct Upload: KonexRequest {
        let path = "/upload"
        let method: HTTPMethod = .post
        var body: RequestBody? { .data(Data(repeating: 1, count: 2_048), contentType: "application/octet-stream") }
    }

    /// Reads every update of `progress` (it must end) and checks its shape.
    func collected(_ progress: ProgressUpdates) async -> [TransferProgress] {
        var updates: [TransferProgress] = []
        for await update in progress { updates.append(update) }
        return updates
    }

    func bothEnds(_ updates: [TransferProgress], _ direction: TransferProgress.Direction) -> Bool {
        let way = updates.filter { $0.direction == direction }
        guard let first = way.first, let last = way.last else { return false }
        // Forward, or the same count once more with a total that was unknown (a body of unknown length ending).
        let forward = zip(way, way.dropFirst()).allSatisfy {
            $0.completedBytes < $1.completedBytes
                || ($0.completedBytes == $1.completedBytes && $0.totalBytes == nil && $1.totalBytes != nil)
        }
        return first.completedBytes == 0 && last.fractionCompleted == 1 && forward
    }

    @Test func tenThousandMockedRunsEachSeeBothEndsAndEnd() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.post("/v1/upload"), .data(Data(repeating: 2, count: 4_096)))
        let client = KonexClient.mocked(mock, baseURL: api)
        var complete = 0
        // A thousand under the thread sanitizer, whose runs are ten times slower.
        let runs = ProcessInfo.processInfo.environment["KONEX_SANITIZER"] == nil ? 10_000 : 1_000
        for _ in 0..<runs {
            let (request, progress) = client.request(Upload()).trackingProgress()
            async let updates = collected(progress)
            _ = try await request.validate().response()
            let seen = await updates
            if bothEnds(seen, .upload), bothEnds(seen, .download),
                seen.firstIndex(where: { $0.direction == .download })! > seen.lastIndex(where: {
                    $0.direction == .upload
                })!
            {
                complete += 1
            }
        }
        #expect(complete == runs)
    }

    @Test func aCachedAnswerStillSaysBothEnds() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/posts"), .json([["id": 1]], headers: ["Cache-Control": "max-age=600"]))
        let client = KonexClient.mocked(mock, baseURL: api)
        client.interceptors = [HTTPCache(storage: .memory(capacity: 1 << 20), cookieStorage: nil)]
        _ = try await client.request("posts").response()
        let (request, progress) = client.request("posts").trackingProgress()
        async let updates = collected(progress)
        let response = try await request.response()
        #expect(response.source == .cache)
        #expect(bothEnds(await updates, .download))
        #expect(mock.requestCount == 1)
    }

    /// Each attempt's updates, split where an attempt starts again (upload at 0).
    func attempts(_ updates: [TransferProgress]) -> [[TransferProgress]] {
        var attempts: [[TransferProgress]] = []
        for update in updates {
            if update.direction == .upload, update.completedBytes == 0 || attempts.isEmpty {
                attempts.append([update])
            } else {
                attempts[attempts.count - 1].append(update)
            }
        }
        return attempts
    }

    @Test func aRetrysProgressIsItsOwnAndTheLastUpdateIsTheAnswers() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.post("/v1/upload"), .data(Data(repeating: 9, count: 2_048), status: 503), times: .once)
        mock.stub(.post("/v1/upload"), .data(Data(repeating: 2, count: 512)))
        let client = KonexClient.mocked(mock, baseURL: api)
        let (request, progress) = client.request(Upload()).trackingProgress()
        async let updates = collected(progress)
        _ = try await request.validate().retry(RetryPolicy(retryingNonIdempotent: true)).response()
        let seen = await updates
        #expect(mock.requestCount == 2)
        #expect(seen.last == TransferProgress(direction: .download, completedBytes: 512, totalBytes: 512), "\(seen)")
        let split = attempts(seen)
        #expect(split.count == 2, "\(seen)")
        for attempt in split {  // within an attempt, each direction from 0 to its end, never backwards
            #expect(bothEnds(attempt, .upload) && bothEnds(attempt, .download), "\(attempt)")
        }
    }

    @Test func aStreamCountsItsBytesAndEndsOnItsSize() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/feed"), .chunks([.text("data: 1\n\n"), .text("data: 22\n\n"), .text("data: 333\n\n")]))
        let client = KonexClient.mocked(mock, baseURL: api)
        let (request, progress) = client.request("feed").trackingProgress()
        async let updates = collected(progress)
        let stream = try await request.stream()
        var read = 0
        for try await chunk in stream.chunks { read += chunk.count }
        let seen = await updates
        #expect(read == 30)
        #expect(seen.last == TransferProgress(direction: .download, completedBytes: 30, totalBytes: 30), "\(seen)")
        #expect(bothEnds(seen, .download))
    }

    @Test func aBodyOfUnknownLengthEndsWithItsByteCountAsTheTotal() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/chunked"), .chunks([.text("abc"), .text("defg")]))
        let client = KonexClient.mocked(mock, baseURL: api)
        let (request, progress) = client.request("chunked").trackingProgress()
        async let updates = collected(progress)
        _ = try await request.response()
        let seen = await updates
        #expect(seen.last == TransferProgress(direction: .download, completedBytes: 7, totalBytes: 7), "\(seen)")
    }

    @Test func aStreamOrAWebSocketRefusedBeforeItStartsEndsTheSequence() async throws {
        let client = KonexClient.mocked(MockTransport(clock: ImmediateClock()), baseURL: api)
        let (streamed, streamProgress) = client.request("feed").process(.keyPath("data")).trackingProgress()
        await #expect(throws: KonexError.self) { _ = try await streamed.stream() }
        #expect(await collected(streamProgress).isEmpty)  // returns: the sequence ended
        let (socket, socketProgress) = client.request("chat").process(.keyPath("data")).trackingProgress()
        await #expect(throws: KonexError.self) { _ = try await socket.webSocket() }
        #expect(await collected(socketProgress).isEmpty)
    }

    @Test func aFailureEndsTheSequenceWithoutAMadeUpEnd() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.post("/v1/upload"), .fault(.connectionLost))
        let client = KonexClient.mocked(mock, baseURL: api)
        let (request, progress) = client.request(Upload()).trackingProgress()
        async let updates = collected(progress)
        _ = try? await request.response()
        let seen = await updates
        #expect(seen.first == TransferProgress(direction: .upload, completedBytes: 0, totalBytes: 2_048))
        #expect(!seen.contains { $0.direction == .download })
    }

    @Test func aStreamsSequenceEndsWhenItsBodyEnds() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(
            .get("/v1/feed"),
            .chunks([.text("data: 1\n\n"), MockChunk(Data("data: 2\n\n".utf8), after: .seconds(60))]))
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        let (request, progress) = client.request("feed").trackingProgress()
        let stream = try await request.stream()
        let ended = Lock(false)
        let reader = Task {
            for await _ in progress {}
            ended.withLock { $0 = true }
        }
        try await Task.sleep(for: .milliseconds(20))
        #expect(!ended.value)  // the body has not ended: neither has the sequence
        stream.cancel()
        await reader.value
        #expect(ended.value)
    }

    @Test func theClosureStillHearsEveryEvent() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.post("/v1/upload"), .data(Data(repeating: 2, count: 64)))
        let client = KonexClient.mocked(mock, baseURL: api)
        let heard = Lock<[TransferProgress]>([])
        let (request, progress) = client.request(Upload()).onProgress { update in heard.withLock { $0.append(update) } }
            .trackingProgress()
        async let updates = collected(progress)
        _ = try await request.response()
        #expect(await updates == heard.value)
        #expect(heard.value.count == 4)
    }
}
