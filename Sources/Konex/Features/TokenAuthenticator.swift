import Foundation

/// Adds a bearer token to every request and refreshes it exactly once when requests get 401,
/// however many are in flight.
///
/// A request made during a refresh waits for it; every request that got 401 with the old token is retried once
/// with the new one; a failed refresh fails all of them with its error and is not retried in a loop. With
/// `refreshBeforeExpiry`, a token about to expire is refreshed before it is sent.
/// ```swift
/// let auth = TokenAuthenticator(credential: saved) { stale in
///     try await client.request(Refresh(token: stale?.refreshToken)).validate().responseObject(ofType: Credential.self)
/// }
/// api.adapters = [auth]
/// api.retriers = [auth]
/// ```
///
/// It is a class with a lock rather than an actor so that the common case (a valid token) costs a lock, not two
/// executor hops, on every request.
public final class TokenAuthenticator: RequestAdapter, RequestRetrier, Sendable {
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

        init(credential: Credential?) {
            self.credential = credential
            header = credential.map { "Bearer \($0.accessToken)" }
        }
    }

    private let state: Lock<State>
    private let refresh: @Sendable (Credential?) async throws -> Credential
    private let refreshBeforeExpiry: Duration?
    private let now: @Sendable () -> Date

    /// Creates an authenticator.
    /// - Parameters:
    ///   - credential: The current credential, if any.
    ///   - refreshBeforeExpiry: Refresh this long before `expiresAt`; `nil` to refresh only on 401.
    ///   - now: The current date (injectable for tests).
    ///   - refresh: Gets a new credential from the stale one. Runs once for any number of concurrent 401s.
    public init(
        credential: Credential?, refreshBeforeExpiry: Duration? = nil, now: @escaping @Sendable () -> Date = Date.init,
        refresh: @escaping @Sendable (Credential?) async throws -> Credential
    ) {
        state = Lock(State(credential: credential))
        self.refreshBeforeExpiry = refreshBeforeExpiry
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
        guard error.statusCode == 401 else { return .doNotRetry }
        let sent = request.value(forHTTPHeaderField: "Authorization").map { String($0.dropFirst("Bearer ".count)) }
        let (current, refreshes, pending) = state.withLock {
            ($0.credential?.accessToken, $0.refreshCount, $0.refreshing)
        }
        // Someone refreshed since this request went out: just retry with the new token.
        if let current, current != sent, pending == nil { return .retry(after: .zero) }
        // This request already carried a freshly refreshed token and still got 401: stop, don't loop.
        if attempt > 1 && refreshes > 0 && pending == nil { return .doNotRetry }
        do {
            _ = try await refreshed(replacing: sent)
            return .retry(after: .zero)
        } catch {
            return .fail(
                KonexError(
                    stage: .adaptation, message: "\(RefreshFailure(underlying: error))",
                    method: HTTPMethod(request.httpMethod ?? "GET"), url: request.url, request: request,
                    underlyingError: error))
        }
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
            let task = Task<Credential, any Error> {
                do {
                    let fresh = try await refresh(previous)
                    lock.withLock {
                        $0.credential = fresh
                        $0.refreshing = nil
                    }
                    return fresh
                } catch {
                    lock.withLock { $0.refreshing = nil }
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
