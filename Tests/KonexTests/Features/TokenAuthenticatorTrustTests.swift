import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// Item 10: a hung refresh never hangs every request, a failed early refresh does not fail a valid token, and a
/// refresh through the same client does not wait on itself.
@Suite struct TokenAuthenticatorTrustTests {
    /// A server that accepts only `Bearer <valid>` on /v1/me, and answers /v1/refresh with a new token.
    func server(valid: String) -> MockTransport {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/me").header("Authorization", "Bearer \(valid)"), .string("me"))
        mock.stub(.get("/v1/me"), .status(401))
        mock.stub(.post("/v1/refresh"), .json(["access_token": valid]))
        return mock
    }

    /// Trust pass 3, item 3: a redirect target on another origin never saw the token, so its 401 spends no refresh.
    @Test func aRedirectTargetsUnauthorizedSpendsNoRefresh() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/me"), .status(302, headers: ["Location": "https://elsewhere.test/trap"]))
        mock.stub(.get("/trap"), .status(401))
        mock.stub(.post("/v1/refresh"), .json(["access_token": "rotated"]))
        let auth = TokenAuthenticator(credential: .init(accessToken: "valid", refreshToken: "r1")) { _ in
            .init(accessToken: "rotated", refreshToken: "r2")
        }
        let client = KonexClient.mocked(mock, baseURL: api)
        client.adapters = [auth]
        client.retriers = [auth]
        for _ in 0..<3 {
            let error = try await requireThrows(KonexError.self) {
                try await client.request("me").validate().responseString()
            }
            #expect(error.statusCode == 401)
            #expect(error.response?.url.host == "elsewhere.test")
        }
        #expect(auth.refreshCount == 0)
        #expect(auth.currentCredential?.refreshToken == "r1")
        // The token never went to the other origin.
        #expect(
            mock.requests.filter { $0.sent.url.host == "elsewhere.test" }.allSatisfy {
                $0.header("Authorization") == nil
            })
        // A 401 after a redirect within the origin (the token went along) still refreshes.
        mock.stub(.get("/v1/inside"), .status(302, headers: ["Location": "/v1/me2"]))
        mock.stub(.get("/v1/me2").header("Authorization", "Bearer rotated"), .string("ok"))
        mock.stub(.get("/v1/me2"), .status(401))
        #expect(try await client.request("inside").validate().responseString() == "ok")
        #expect(auth.refreshCount == 1)
    }

    @Test func aRequestWaitingOnAHungRefreshEndsWhenItIsCancelled() async throws {
        let never = ManualClock()  // nobody advances it: the refresh hangs
        let auth = TokenAuthenticator(credential: .init(accessToken: "stale"), refreshTimeout: nil) { _ in
            try await never.sleep(for: .seconds(1))
            return .init(accessToken: "fresh")
        }
        let client = KonexClient.mocked(server(valid: "fresh"), baseURL: api)
        client.adapters = [auth]
        client.retriers = [auth]
        let first = Task { try await client.request("me").validate().responseString() }
        try await never.waitForSleepers(1)  // the refresh started and hangs
        let second = Task { try await client.request("me").validate().responseString() }  // waits in adapt
        try await WaitTimeout.wait(for: "both wait") { auth.refreshCount == 1 }
        first.cancel()
        second.cancel()
        for task in [first, second] {
            let error = try await requireThrows(KonexError.self) { try await task.value }
            #expect(error.stage == .cancelled)
        }
    }

    @Test func aRefreshThatOutlivesItsTimeoutFailsEveryWaiter() async throws {
        let clock = ManualClock()
        let never = ManualClock()
        let auth = TokenAuthenticator(
            credential: .init(accessToken: "stale"), refreshTimeout: .seconds(30), clock: clock
        ) { _ in
            try await never.sleep(for: .seconds(1))
            return .init(accessToken: "fresh")
        }
        let client = KonexClient.mocked(server(valid: "fresh"), baseURL: api)
        client.adapters = [auth]
        client.retriers = [auth]
        let request = Task { try await client.request("me").validate().responseString() }
        try await clock.waitForSleepers(1)
        clock.advance(by: .seconds(30))
        let error = try await requireThrows(KonexError.self) { try await request.value }
        #expect(error.stage == .adaptation)
        #expect(error.message.contains("took longer than its timeout of 30.0 seconds"))
        #expect(auth.currentCredential?.accessToken == "stale")
    }

    @Test func aFailedEarlyRefreshStillSendsTheValidTokenAndBacksOff() async throws {
        struct Down: Error {}
        let now = Date(timeIntervalSince1970: 1_000)
        let attempts = Lock(0)
        let auth = TokenAuthenticator(
            credential: .init(accessToken: "old", expiresAt: now.addingTimeInterval(30)),
            refreshBeforeExpiry: .seconds(60), now: { now },
            refresh: { _ in
                attempts.withLock { $0 += 1 }
                throw Down()
            })
        let mock = server(valid: "old")
        let client = KonexClient.mocked(mock, baseURL: api)
        client.adapters = [auth]
        #expect(try await client.request("me").validate().responseString() == "me")
        #expect(try await client.request("me").validate().responseString() == "me")
        #expect(attempts.value == 1)  // the second request is within failedRefreshBackoff: no second refresh
        #expect(mock.requests.allSatisfy { $0.header("Authorization") == "Bearer old" })
    }

    @Test func aRefreshThroughTheSameClientDoesNotWaitOnItself() async throws {
        struct Token: Decodable { let access_token: String }
        struct Refresh: KonexRequest {
            let path = "refresh"
            let method = HTTPMethod.post
        }
        let mock = server(valid: "fresh")
        let client = KonexClient.mocked(mock, baseURL: api)
        let auth = TokenAuthenticator(credential: .init(accessToken: "stale")) { [client] _ in
            // This request passes the authenticator untouched: no Authorization, no waiting, no retry of its own.
            let token = try await client.request(Refresh()).validate().responseObject(of: Token.self)
            return .init(accessToken: token.access_token)
        }
        client.adapters = [auth]
        client.retriers = [auth]
        #expect(try await client.request("me").validate().responseString() == "me")
        let refresh = try #require(mock.requests.first { $0.request.url?.path == "/v1/refresh" })
        #expect(refresh.header("Authorization") == nil)
    }
}
