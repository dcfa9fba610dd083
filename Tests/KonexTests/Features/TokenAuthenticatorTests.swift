import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

@Suite struct TokenAuthenticatorTests {
    /// A server that accepts only `Bearer <valid>`.
    func server(valid: String) -> MockTransport {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/me").header("Authorization", "Bearer \(valid)"), .string("me"))
        mock.stub(.get("/v1/me"), .status(401))
        return mock
    }

    /// Runs `count` GET /v1/me at once and returns each one's outcome (the string, or the KonexError).
    func concurrently(_ count: Int, _ client: KonexClient, finished: Lock<Int> = Lock(0)) async
        -> [Result<String, KonexError>]
    {
        await withTaskGroup(of: Result<String, KonexError>.self) { group in
            for _ in 0..<count {
                group.addTask {
                    defer { finished.withLock { $0 += 1 } }
                    do { return .success(try await client.request("me").validate().responseString()) } catch {
                        return .failure(error as! KonexError)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test func fiftyConcurrent401sRefreshExactlyOnce() async throws {
        // The server holds every 401 until all 50 requests have reached it with the stale token.
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/v1/me").header("Authorization", "Bearer fresh"), .string("me"))
        mock.stub(.get("/v1/me"), .status(401).delayed(by: .seconds(1)))
        let auth = TokenAuthenticator(credential: .init(accessToken: "stale")) { _ in .init(accessToken: "fresh") }
        let client = KonexClient.mocked(mock, baseURL: api)
        client.adapters = [auth]
        client.retriers = [auth]
        async let outcomes = concurrently(50, client)
        try await clock.waitForSleepers(50)
        clock.advance(by: .seconds(1))
        let results = await outcomes
        #expect(results.map { try? $0.get() } == Array(repeating: "me", count: 50))
        #expect(auth.refreshCount == 1)
        #expect(mock.requests(matching: .get("/v1/me").header("Authorization", "Bearer stale")).count == 50)
        #expect(mock.requests(matching: .get("/v1/me").header("Authorization", "Bearer fresh")).count == 50)
    }

    @Test func failedRefreshFailsEveryWaiterAndLateArrivalsDoNotRefreshAgain() async throws {
        struct RefreshDenied: Error {}
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        // Five 401s come back after 1 s, five more (late arrivals, same stale token) after 2 s.
        mock.stub(.get("/v1/me"), .status(401).delayed(by: .seconds(1)), times: .times(5))
        mock.stub(.get("/v1/me"), .status(401).delayed(by: .seconds(2)), times: .times(5))
        let date = Lock(Date(timeIntervalSince1970: 1_000))
        let auth = TokenAuthenticator(
            credential: .init(accessToken: "stale"), failedRefreshBackoff: .seconds(5), now: { date.value },
            refresh: { _ in throw RefreshDenied() })
        let client = KonexClient.mocked(mock, baseURL: api)
        client.adapters = [auth]
        client.retriers = [auth]
        let finished = Lock(0)
        async let outcomes = concurrently(10, client, finished: finished)
        try await clock.waitForSleepers(10)
        clock.advance(by: .seconds(1))
        // The first five are answered and have failed with the refresh; the late five still wait.
        try await WaitTimeout.wait(for: "the first five requests to fail; \(finished.value) finished") {
            finished.value == 5
        }
        date.value += 1
        clock.advance(by: .seconds(1))
        let results = await outcomes
        for result in results {
            guard case .failure(let error) = result else {
                Issue.record("a request succeeded without a token")
                continue
            }
            #expect(error.stage == .adaptation)
            #expect(error.message == "the token refresh failed: RefreshDenied()")
        }
        #expect(auth.refreshCount == 1)
        #expect(mock.requestCount == 10)

        // Past the backoff, a 401 for the same token may try a refresh again.
        date.value += 10
        mock.stub(.get("/v1/me"), .status(401))
        _ = await concurrently(1, client)
        #expect(auth.refreshCount == 2)
    }

    @Test func refreshAfterAnotherRetrierAlreadyRetriedTheRequest() async throws {
        // An earlier refresh gave "t1"; later t1 expires while a request is being retried for a 503.
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/me").header("Authorization", "Bearer t1"), .string("me"), .status(503), .status(401))
        mock.stub(.get("/v1/me").header("Authorization", "Bearer t2"), .string("me again"))
        mock.stub(.get("/v1/me"), .status(401))
        let issued = Lock(0)
        let auth = TokenAuthenticator(credential: .init(accessToken: "t0")) { _ in
            let number = issued.withLock {
                $0 += 1
                return $0
            }
            return .init(accessToken: "t\(number)")
        }
        let clock = ManualClock()
        let client = KonexClient.mocked(mock, baseURL: api, clock: clock)
        client.adapters = [auth]
        client.retriers = [RetryPolicy(), auth]
        #expect(try await client.request("me").validate().responseString() == "me")
        #expect(auth.refreshCount == 1)

        async let second = client.request("me").validate().responseString()
        try await clock.waitForSleepers(1)  // the 503's backoff
        clock.advance(by: .seconds(60))
        #expect(try await second == "me again")
        #expect(auth.refreshCount == 2)
        #expect(
            mock.requests.map { $0.header("Authorization") } == [
                "Bearer t0", "Bearer t1", "Bearer t1", "Bearer t1", "Bearer t2",
            ])
    }

    @Test func stillUnauthorizedAfterRefreshStops() async throws {
        let mock = server(valid: "nothing-works")
        let auth = TokenAuthenticator(credential: .init(accessToken: "a")) { _ in .init(accessToken: "b") }
        let client = KonexClient.mocked(mock, baseURL: api)
        client.adapters = [auth]
        client.retriers = [auth]
        let error = try await requireThrows(KonexError.self) { try await client.request("me").validate().response() }
        #expect(error.statusCode == 401)
        #expect(mock.requestCount == 2)
        #expect(auth.refreshCount == 1)
    }

    @Test func proactiveRefreshBeforeExpiry() async throws {
        let mock = server(valid: "renewed")
        let now = Date(timeIntervalSince1970: 1_000)
        let auth = TokenAuthenticator(
            credential: .init(accessToken: "old", expiresAt: now.addingTimeInterval(30)),
            refreshBeforeExpiry: .seconds(60),
            now: { now },
            refresh: { _ in .init(accessToken: "renewed", expiresAt: now.addingTimeInterval(3_600)) })
        let client = KonexClient.mocked(mock, baseURL: api)
        client.adapters = [auth]
        #expect(try await client.request("me").validate().responseString() == "me")
        #expect(mock.requestCount == 1)
    }

    @Test func headerAdaptersCoverBearerBasicAndAPIKey() async throws {
        let (client, mock) = makeClient { $0.stub(.anything, .status(200)) }
        client.adapters = [.apiKey("k-1", header: "X-Key")]
        _ = try await client.request("x").withAdapter(.bearer("b")).response()
        #expect(mock.requests[0].header("X-Key") == "k-1")
        #expect(mock.requests[0].header("Authorization") == "Bearer b")
    }
}
