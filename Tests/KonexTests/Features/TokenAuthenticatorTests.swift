import Foundation
import KonexTesting
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

    @Test func fiftyConcurrent401sRefreshExactlyOnce() async throws {
        let mock = server(valid: "fresh")
        let refreshes = Lock(0)
        let auth = TokenAuthenticator(credential: .init(accessToken: "stale")) { _ in
            refreshes.withLock { $0 += 1 }
            try await Task.sleep(for: .milliseconds(20))  // let the other 49 requests pile up behind it
            return .init(accessToken: "fresh")
        }
        let client = KonexClient.mocked(mock, baseURL: api)
        client.adapters = [auth]
        client.retriers = [auth]
        let results = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 { group.addTask { try await client.request("me").validate().responseString() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 50)
        #expect(results.allSatisfy { $0 == "me" })
        #expect(refreshes.value == 1)
        #expect(auth.refreshCount == 1)
        #expect(
            mock.requests(matching: RequestMatcher.get("/v1/me").header("Authorization", "Bearer fresh")).count == 50)
    }

    @Test func failedRefreshFailsEveryWaiterOnceWithoutLooping() async throws {
        struct RefreshDenied: Error {}
        let mock = server(valid: "never")
        let auth = TokenAuthenticator(credential: .init(accessToken: "stale")) { _ in
            try await Task.sleep(for: .milliseconds(10))
            throw RefreshDenied()
        }
        let client = KonexClient.mocked(mock, baseURL: api, clock: ImmediateClock())
        client.adapters = [auth]
        client.retriers = [auth]
        let errors = await withTaskGroup(of: KonexError?.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    do {
                        _ = try await client.request("me").validate().response()
                        return nil
                    } catch { return error as? KonexError }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(
            errors.allSatisfy { $0?.stage == .adaptation && $0?.message.contains("the token refresh failed") == true })
        #expect(mock.requestCount <= 20)
    }

    @Test func stillUnauthorizedAfterRefreshStops() async throws {
        let mock = server(valid: "nothing-works")
        let auth = TokenAuthenticator(credential: .init(accessToken: "a")) { _ in .init(accessToken: "b") }
        let client = KonexClient.mocked(mock, baseURL: api)
        client.adapters = [auth]
        client.retriers = [auth]
        let error = try await #require(throws: KonexError.self) { try await client.request("me").validate().response() }
        #expect(error.statusCode == 401)
        #expect(mock.requestCount == 2)
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
