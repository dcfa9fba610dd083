import Foundation

/// Adds a bearer token to every request and refreshes it exactly once when requests get 401,
/// however many are in flight.
///
/// A request made during a refresh waits for it; every request that got 401 with the old token is retried with the
/// new one. A request whose refreshed token is refused too ends with that 401 (no loop). A failed refresh fails
/// every request waiting on it, and a 401 for the same stale token that arrives within `failedRefreshBackoff`
/// fails with the same error instead of starting another refresh. With `refreshBeforeExpiry`, a token about to
/// expire is refreshed before it is sent.
/// ```swift
/// let auth = TokenAuthenticator(credential: saved) { stale in
///     try await client.request(Refresh(token: stale?.refreshToken)).validate().responseObject(of: Credential.self)
/// }
/// api.adapters = [auth]
/// api.retriers = [auth]
/// ```
///
/// It is a class with a lock rather than an actor so that the common case (a valid token) costs a lock, not two
/// executor hops, on every request.
public final class TokenAuthenticator: RequestAdapter, RequestRetrier, RememberingRetrier, Sendable {
    /// A token and when it expires.
    public struct Credential: Sendable, Hashable, Codable {
        /// The bearer token.
        public var accessToken: String
        /// A refresh token, if the server issues one.
        public var refreshToken: String?
        /// When the access token stops working, if known.
        public var expiresAt: Date?
        /// Creates a credential.
        public init(accessToken: String, refreshToken: String? = nil, expiresAt: Date? = nil) {
            self.accessToken = accessToken
            self.refreshToken = refreshToken
            self.expiresAt = expiresAt
        }
    }

    private struct State: Sendable {
        var credential: Credential? {
            didSet { header = credential.map { "Bearer \($0.accessToken)" } }
        }
        /// `Bearer <token>`, built once per credential rather than once per request.
        private(set) var header: String?
        var refreshing: Task<Credential, any Error>?
        var refreshCount = 0
        /// The last refresh that failed: which token it tried to replace, why, and when.
        var failedRefresh: (stale: String?, error: any Error, at: Date)?

        init(credential: Credential?) {
            self.credential = credential
            header = credential.map { "Bearer \($0.accessToken)" }
        }
    }

    private let state: Lock<State>
    private let refresh: @Sendable (Credential?) async throws -> Credential
    private let refreshBeforeExpiry: Duration?
    private let failedRefreshBackoff: Duration
    private let now: @Sendable () -> Date

    /// Creates an authenticator.
    /// - Parameters:
    ///   - credential: The current credential, if any.
    ///   - refreshBeforeExpiry: Refresh this long before `expiresAt`; `nil` to refresh only on 401.
    ///   - failedRefreshBackoff: After a refresh fails, 401s for the same stale token fail with its error for this
    ///     long instead of each starting a refresh (requests that were in flight during the refresh arrive late).
    ///   - now: The current date (injectable for tests).
    ///   - refresh: Gets a new credential from the stale one. Runs once for any number of concurrent 401s.
    public init(
        credential: Credential?, refreshBeforeExpiry: Duration? = nil, failedRefreshBackoff: Duration = .seconds(5),
        now: @escaping @Sendable () -> Date = Date.init,
        refresh: @escaping @Sendable (Credential?) async throws -> Credential
    ) {
        state = Lock(State(credential: credential))
        self.refreshBeforeExpiry = refreshBeforeExpiry
        self.failedRefreshBackoff = failedRefreshBackoff
        self.now = now
        self.refresh = refresh
    }

    /// The current credential.
    public var currentCredential: Credential? { state.value.credential }

    /// How many refreshes have started (for tests and metrics).
    public var refreshCount: Int { state.value.refreshCount }

    public func adapt(_ request: consuming URLRequest) async throws -> URLRequest {
        let (header, expiry, pending) = state.withLock { ($0.header, $0.credential?.expiresAt, $0.refreshing) }
        var value = header
        if pending != nil || isExpiring(expiry) {
            value = try await freshHeader(waitingFor: pending)
        }
        guard let value else { return request }
        var request = request
        request.setValue(value, forHTTPHeaderField: "Authorization")
        return request
    }

    /// Whether a credential expiring at `expiry` is due for a proactive refresh.
    private func isExpiring(_ expiry: Date?) -> Bool {
        guard let refreshBeforeExpiry, let expiry else { return false }
        return expiry.timeIntervalSince(now()) <= refreshBeforeExpiry.timeInterval
    }

    /// The slow path: wait for the refresh in progress, or refresh a credential about to expire.
    private func freshHeader(waitingFor pending: Task<Credential, any Error>?) async throws -> String? {
        do {
            var token = try await pending?.value ?? state.value.credential
            if isExpiring(token?.expiresAt) { token = try await refreshed(replacing: token?.accessToken) }
            return token.map { "Bearer \($0.accessToken)" }
        } catch {
            throw RefreshFailure(underlying: error)
        }
    }

    public func shouldRetry(_ request: URLRequest, dueTo error: KonexError, attempt: Int, elapsed: Duration) async
        -> RetryDecision
    {
        var note: String?
        return await shouldRetry(request, dueTo: error, attempt: attempt, elapsed: elapsed, note: &note)
    }

    /// The pipeline keeps `note` per request: the token a refresh handed this request, if one did.
    func shouldRetry(
        _ request: URLRequest, dueTo error: KonexError, attempt: Int, elapsed: Duration, note: inout String?
    ) async -> RetryDecision {
        guard error.statusCode == 401 else { return .doNotRetry }
        let sent = request.value(forHTTPHeaderField: "Authorization").map { String($0.dropFirst("Bearer ".count)) }
        // The token a refresh gave this very request was refused too: refreshing again would loop.
        if let note, note == sent { return .doNotRetry }
        let (current, pending, failed) = state.withLock {
            ($0.credential?.accessToken, $0.refreshing, $0.failedRefresh)
        }
        // Someone refreshed since this request went out: just retry with the new token.
        if let current, current != sent, pending == nil { return .retry(after: .zero) }
        // A late arrival for a token whose refresh just failed shares that failure rather than refreshing again.
        if pending == nil, let failed, failed.stale == sent,
            now().timeIntervalSince(failed.at) < failedRefreshBackoff.timeInterval
        {
            return .fail(refreshFailure(failed.error, request: request))
        }
        do {
            note = try await refreshed(replacing: sent).accessToken
            return .retry(after: .zero)
        } catch {
            return .fail(refreshFailure(error, request: request))
        }
    }

    private func refreshFailure(_ error: any Error, request: URLRequest) -> KonexError {
        KonexError(
            stage: .adaptation, message: "\(RefreshFailure(underlying: error))",
            method: HTTPMethod(request.httpMethod ?? "GET"), url: request.url, request: request, underlyingError: error)
    }

    /// Single flight: joins the refresh in progress, or starts one unless the stale token was already replaced.
    private func refreshed(replacing stale: String?) async throws -> Credential {
        let task: Task<Credential, any Error> = state.withLock { state in
            if let refreshing = state.refreshing { return refreshing }
            if let credential = state.credential, credential.accessToken != stale {
                return Task { credential }
            }
            let previous = state.credential
            let refresh = self.refresh
            let lock = self.state
            let now = self.now
            let task = Task<Credential, any Error> {
                do {
                    let fresh = try await refresh(previous)
                    lock.withLock {
                        $0.credential = fresh
                        $0.refreshing = nil
                        $0.failedRefresh = nil
                    }
                    return fresh
                } catch {
                    let failedAt = now()
                    lock.withLock {
                        $0.refreshing = nil
                        $0.failedRefresh = (stale, error, failedAt)
                    }
                    throw error
                }
            }
            state.refreshing = task
            state.refreshCount += 1
            return task
        }
        return try await task.value
    }

    /// What requests waiting on a failed refresh see.
    struct RefreshFailure: Error, CustomStringConvertible {
        let underlying: any Error
        var description: String { "the token refresh failed: \(underlying)" }
    }
}
