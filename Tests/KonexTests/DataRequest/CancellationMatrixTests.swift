import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// The caller's task cancelled at every stage of a request: each ends with the same error (stage `.cancelled`) at
/// once, with no virtual time passing (every wait here is an hour long on a manual clock that never moves before the
/// cancel), nothing sent that had not been, and no slot, refresh or retry left behind.
@Suite struct CancellationMatrixTests {
    struct Post: KonexRequest {
        let path = "/items"
        let method: HTTPMethod = .post
        var body: RequestBody? { .data(Data(repeating: 7, count: 1_000), contentType: "application/octet-stream") }
    }

    /// Starts `run`, waits until `reached` says it is at the stage, cancels it, and returns its error. Real time
    /// bounds only the waiting for the stage and for the end, with a margin far above any stall of a loaded machine;
    /// the manual clock does not move in between.
    func cancelled(
        at stage: String, clock: ManualClock, reached: @escaping @Sendable () async throws -> Void,
        _ run: @escaping @Sendable () async throws -> Void
    ) async throws -> KonexError {
        let before = clock.now
        let task = Task { try await run() }
        try await reached()
        task.cancel()
        let outcome = await task.result
        #expect(clock.now == before, "\(stage): virtual time passed")
        switch outcome {
        case .success:
            Issue.record("\(stage): the request succeeded after its cancel")
            return KonexError(stage: .cancelled, message: "")
        case .failure(let error):
            let konex = try #require(error as? KonexError, "\(stage): \(error)")
            #expect(konex.stage == .cancelled, "\(stage): \(konex)")
            return konex
        }
    }

    func sleepers(_ clock: ManualClock, _ count: Int = 1) -> @Sendable () async throws -> Void {
        { try await clock.waitForSleepers(count, timeout: .seconds(30)) }
    }

    @Test func beforeItStarts() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.post("/v1/items"), .status(201))
        let client = KonexClient.mocked(mock, baseURL: api)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            _ = try await client.request(Post()).response()
        }
        let error = try #require(await task.result.failure as? KonexError)
        #expect(error.stage == .cancelled)
        #expect(mock.requestCount == 0)  // no byte of the POST was sent
    }

    @Test func inAnAdapter() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.post("/v1/items"), .status(201))
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        let slow = client.request(Post()).withAdapter { request in
            try await clock.sleep(for: .seconds(3_600))
            return request
        }
        _ = try await cancelled(at: "adapter", clock: clock, reached: sleepers(clock)) { _ = try await slow.response() }
        #expect(mock.requestCount == 0)
    }

    @Test func waitingForAConcurrencyLimitSlot() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.post("/v1/items"), MockResponse.status(201).delayed(by: .seconds(3_600)))
        let limit = ConcurrencyLimit(maximum: 1)
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        client.interceptors = [limit]
        let first = Task { try await client.request(Post()).response() }
        try await clock.waitForSleepers(1, timeout: .seconds(30))
        let queued: @Sendable () async throws -> Void = {
            try await WaitTimeout.wait(for: "the second request to queue", timeout: .seconds(120)) {
                limit.counts.waiting == 1
            }
        }
        _ = try await cancelled(at: "limit", clock: clock, reached: queued) {
            _ = try await client.request(Post()).response()
        }
        #expect(limit.counts == (1, 0))  // the waiter left the queue; the first still holds its slot
        #expect(mock.requestCount == 1)  // the cancelled POST sent nothing
        first.cancel()
        _ = await first.result
        try await WaitTimeout.wait(for: "the slot back", timeout: .seconds(120)) { limit.counts == (0, 0) }
    }

    @Test func duringATokenRefresh() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.post("/v1/items").header("Authorization", "Bearer fresh"), .status(201))
        mock.stub(.post("/v1/items"), .status(401))
        let auth = TokenAuthenticator(credential: .init(accessToken: "stale"), refreshTimeout: nil, clock: clock) { _ in
            try await clock.sleep(for: .seconds(3_600))
            return .init(accessToken: "fresh")
        }
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        client.adapters = [auth]
        client.retriers = [auth]
        _ = try await cancelled(at: "refresh", clock: clock, reached: sleepers(clock)) {
            _ = try await client.request(Post()).validate().response()
        }
        #expect(mock.requestCount == 1)
        // The refresh is shared, not the cancelled caller's: it ends on its own, and the next request uses it.
        clock.advance(by: .seconds(3_600))
        try await WaitTimeout.wait(for: "the refresh to end", timeout: .seconds(120)) {
            auth.currentCredential?.accessToken == "fresh"
        }
        #expect(try await client.request(Post()).validate().response().response.statusCode == 201)
        #expect(auth.refreshCount == 1)
    }

    /// A transport that takes an hour to send the request body, reporting it leave.
    struct SlowUpload: Transport {
        let clock: ManualClock
        let sent = Lock(0)
        func send(_ request: TransportRequest, context: TransportContext) async throws -> (ResponseHead, ResponseBody) {
            context.reportUpload(TransferProgress(direction: .upload, completedBytes: 100, totalBytes: 1_000))
            try await clock.sleep(for: .seconds(3_600))
            sent.withLock { $0 += 1 }
            return (ResponseHead(statusCode: 201, url: request.url), .empty)
        }
    }

    @Test func whileTheUploadIsSent() async throws {
        let clock = ManualClock()
        let transport = SlowUpload(clock: clock)
        let client = KonexClient(baseURL: api, transport: transport, clock: clock)
        _ = try await cancelled(at: "upload", clock: clock, reached: sleepers(clock)) {
            _ = try await client.request(Post()).onProgress { _ in }.response()
        }
        #expect(transport.sent.value == 0)
    }

    @Test func waitingForTheHead() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/v1/items"), MockResponse.json(["ok": true]).delayed(by: .seconds(3_600)))
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        _ = try await cancelled(at: "head", clock: clock, reached: sleepers(clock)) {
            _ = try await client.request("items").response()
        }
    }

    @Test func whileTheBodyArrives() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(
            .get("/v1/items"),
            .chunks([.text("{\"items\": ["), MockChunk(Data("1]}".utf8), after: .seconds(3_600))]))
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        let seen = Lock(0)
        _ = try await cancelled(at: "body", clock: clock, reached: sleepers(clock)) {
            // Counted as it comes, so the body is read chunk by chunk.
            _ = try await client.request("items").onProgress { _ in seen.withLock { $0 += 1 } }.response()
        }
    }

    @Test func duringCacheRevalidation() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(
            .get("/v1/items"),
            .json(["v": 1], headers: ["Cache-Control": "no-cache", "ETag": "\"1\""]), times: .once)
        mock.stub(.get("/v1/items"), MockResponse.status(304).delayed(by: .seconds(3_600)))
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        client.interceptors = [HTTPCache(storage: .memory(capacity: 1 << 20), cookieStorage: nil)]
        _ = try await client.request("items").response()
        _ = try await cancelled(at: "revalidation", clock: clock, reached: sleepers(clock)) {
            _ = try await client.request("items").response()
        }
        #expect(mock.requests.last?.header("If-None-Match") == "\"1\"")
    }

    @Test func inARetrysBackoff() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/items"), .status(503))
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        _ = try await cancelled(at: "backoff", clock: clock, reached: sleepers(clock)) {
            _ = try await client.request("items").validate()
                .retry(RetryPolicy(maximumAttempts: 3, baseDelay: .seconds(3_600), jitter: 0)).response()
        }
        clock.advance(by: .seconds(7_200))  // the backoff's time passes: no retry was left waiting for it
        try await Task.sleep(for: .milliseconds(50))
        #expect(mock.requestCount == 1)
        #expect(clock.sleeperCount == 0)
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
