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
public actor TokenAuthenticator: RequestAdapter, RequestRetrier {
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

    private var credential: Credential?
    private var refreshing: Task<Credential, any Error>?
    private let refresh: @Sendable (Credential?) async throws -> Credential
    private let refreshBeforeExpiry: Duration?
    private let now: @Sendable () -> Date
    /// How many refreshes have run (for tests and metrics).
    public private(set) var refreshCount = 0

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
        self.credential = credential
        self.refreshBeforeExpiry = refreshBeforeExpiry
        self.now = now
        self.refresh = refresh
    }

    /// The current credential.
    public var currentCredential: Credential? { credential }

    public func adapt(_ request: URLRequest) async throws -> URLRequest {
        var token = try await validCredential()
        if let refreshBeforeExpiry, let expiry = token?.expiresAt,
            expiry.timeIntervalSince(now()) <= refreshBeforeExpiry.timeInterval
        {
            token = try await refreshed(replacing: token?.accessToken)
        }
        guard let token else { return request }
        var request = request
        request.setValue("Bearer \(token.accessToken)", forHTTPHeaderField: "Authorization")
        return request
    }

    public func shouldRetry(_ request: URLRequest, dueTo error: KonexError, attempt: Int, elapsed: Duration) async
        -> RetryDecision
    {
        guard error.statusCode == 401 else { return .doNotRetry }
        let sent = request.value(forHTTPHeaderField: "Authorization").map { String($0.dropFirst("Bearer ".count)) }
        // Someone refreshed since this request went out: just retry with the new token.
        if let current = credential?.accessToken, current != sent { return .retry(after: .zero) }
        // This request already carried a freshly refreshed token and still got 401: stop, don't loop.
        if attempt > 1 && refreshCount > 0 && refreshing == nil { return .doNotRetry }
        do {
            _ = try await refreshed(replacing: sent)
            return .retry(after: .zero)
        } catch {
            return .fail(
                KonexError(
                    stage: .adaptation, message: "the token refresh failed: \(error)",
                    method: HTTPMethod(request.httpMethod ?? "GET"), url: request.url, request: request,
                    response: error as? HTTPURLResponse, underlyingError: error))
        }
    }

    /// Waits for a refresh in progress, then returns the current credential.
    private func validCredential() async throws -> Credential? {
        guard let refreshing else { return credential }
        do { return try await refreshing.value } catch { throw RefreshFailure(underlying: error) }
    }

    /// What requests waiting on a failed refresh see.
    struct RefreshFailure: Error, CustomStringConvertible {
        let underlying: any Error
        var description: String { "the token refresh failed: \(underlying)" }
    }

    /// Single flight: joins the refresh in progress, or starts one unless the stale token was already replaced.
    private func refreshed(replacing stale: String?) async throws -> Credential {
        if let refreshing { return try await refreshing.value }
        if let credential, credential.accessToken != stale { return credential }
        let previous = credential
        let task = Task { [refresh] in try await refresh(previous) }
        refreshing = task
        refreshCount += 1
        defer { refreshing = nil }
        let fresh = try await task.value
        credential = fresh
        return fresh
    }
}
