import Foundation

/// Adds a bearer token to every request and refreshes it exactly once when requests get 401,
/// however many are in flight.
///
/// A request made during a refresh waits for it; every request that got 401 with the old token is retried with the
/// new one. Only a 401 from the origin the token was sent to counts: one from a redirect target on another origin
/// (which never saw the token) is the answer, and refreshes nothing. A request whose refreshed token is refused too ends with that 401 (no loop). A failed refresh fails
/// every request waiting on it, and a 401 for the same stale token that arrives within `failedRefreshBackoff`
/// fails with the same error instead of starting another refresh. With `refreshBeforeExpiry`, a token about to
/// expire is refreshed before it is sent; when that early refresh fails, a token that has not expired yet is still
/// sent, and the same backoff applies.
///
/// Waiting for a refresh ends when the waiting request is cancelled, and a refresh that takes longer than
/// `refreshTimeout` fails (its task is cancelled), so one hung refresh never hangs every request.
///
/// The refresh may go through the same client: a request made from inside `refresh` passes this authenticator
/// untouched (no `Authorization`, no waiting on the refresh it is part of, no retry of its own 401), so it cannot
/// wait on itself. Give it what it needs itself, usually the refresh token in its body:
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
        var refreshing: SingleFlight<Credential>?
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
    private let refreshTimeout: Duration?
    private let clock: any Clock<Duration>
    private let now: @Sendable () -> Date

    /// Which authenticator's refresh the current task is running, if any (see the type's discussion).
    @TaskLocal private static var refreshingFor: ObjectIdentifier?

    /// Whether the current task is this authenticator's own refresh.
    private var isInsideOwnRefresh: Bool { Self.refreshingFor == ObjectIdentifier(self) }

    /// Creates an authenticator.
    /// - Parameters:
    ///   - credential: The current credential, if any.
    ///   - refreshBeforeExpiry: Refresh this long before `expiresAt`; `nil` to refresh only on 401.
    ///   - failedRefreshBackoff: After a refresh fails, 401s for the same stale token fail with its error for this
    ///     long instead of each starting a refresh (requests that were in flight during the refresh arrive late).
    ///   - refreshTimeout: How long a refresh may take before it fails and its task is cancelled; `nil` for no limit.
    ///     30 s by default.
    ///   - clock: The clock `refreshTimeout` runs on (inject a test clock).
    ///   - now: The current date (injectable for tests).
    ///   - refresh: Gets a new credential from the stale one. Runs once for any number of concurrent 401s.
    public init(
        credential: Credential?, refreshBeforeExpiry: Duration? = nil, failedRefreshBackoff: Duration = .seconds(5),
        refreshTimeout: Duration? = .seconds(30), clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = Date.init,
        refresh: @escaping @Sendable (Credential?) async throws -> Credential
    ) {
        state = Lock(State(credential: credential))
        self.refreshBeforeExpiry = refreshBeforeExpiry
        self.failedRefreshBackoff = failedRefreshBackoff
        self.refreshTimeout = refreshTimeout
        self.clock = clock
        self.now = now
        self.refresh = refresh
    }

    /// The current credential.
    public var currentCredential: Credential? { state.value.credential }

    /// How many refreshes have started (for tests and metrics).
    public var refreshCount: Int { state.value.refreshCount }

    public func adapt(_ request: consuming TransportRequest) async throws -> TransportRequest {
        let (header, expiry, pending) = state.withLock { ($0.header, $0.credential?.expiresAt, $0.refreshing) }
        var value = header
        if pending != nil || isExpiring(expiry) {
            if isInsideOwnRefresh { return request }
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
        return expiry.timeIntervalSince(now()) <= refreshBeforeExpiry.seconds
    }

    /// The slow path: wait for the refresh in progress, or refresh a credential about to expire.
    private func freshHeader(waitingFor pending: SingleFlight<Credential>?) async throws -> String? {
        do {
            var token = try await pending?.value() ?? state.value.credential
            if isExpiring(token?.expiresAt) {
                if let failed = recentFailure(replacing: token?.accessToken) { throw failed }
                token = try await refreshed(replacing: token?.accessToken)
            }
            return token.map { "Bearer \($0.accessToken)" }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // An early refresh failed, but the token it was to replace has not expired: it still works.
            if let current = state.value.credential, let expiry = current.expiresAt, expiry > now() {
                return "Bearer \(current.accessToken)"
            }
            throw RefreshFailure(underlying: error)
        }
    }

    /// The error of a refresh of `stale` that failed less than `failedRefreshBackoff` ago, if there was one.
    private func recentFailure(replacing stale: String?) -> (any Error)? {
        guard let failed = state.value.failedRefresh, failed.stale == stale,
            now().timeIntervalSince(failed.at) < failedRefreshBackoff.seconds
        else { return nil }
        return failed.error
    }

    public func shouldRetry(_ request: TransportRequest, dueTo error: KonexError, attempt: Int, elapsed: Duration) async
        -> RetryDecision
    {
        var note: String?
        return await shouldRetry(request, dueTo: error, attempt: attempt, elapsed: elapsed, note: &note)
    }

    /// The pipeline keeps `note` per request: the token a refresh handed this request, if one did.
    func shouldRetry(
        _ request: TransportRequest, dueTo error: KonexError, attempt: Int, elapsed: Duration, note: inout String?
    ) async -> RetryDecision {
        guard error.statusCode == 401, !isInsideOwnRefresh else { return .doNotRetry }
        // A 401 from another origin than the token went to (a redirect changed origin, and the rules stripped the
        // token from that hop) says nothing of the token: refreshing for it would let any redirect target force a
        // refresh, a forced rotation where refresh tokens rotate.
        if let answeredBy = error.response?.url, !RedirectRules.sameOrigin(answeredBy, request.url) {
            return .doNotRetry
        }
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
            now().timeIntervalSince(failed.at) < failedRefreshBackoff.seconds
        {
            return .fail(refreshFailure(failed.error, request: request))
        }
        do {
            note = try await refreshed(replacing: sent).accessToken
            return .retry(after: .zero)
        } catch is CancellationError {
            return .fail(.cancelled(request, method: request.method, url: request.url))
        } catch {
            return .fail(refreshFailure(error, request: request))
        }
    }

    private func refreshFailure(_ error: any Error, request: TransportRequest) -> KonexError {
        KonexError(
            stage: .adaptation, message: "\(RefreshFailure(underlying: error))",
            method: request.method, url: request.url, request: request, underlyingError: error)
    }

    /// Single flight: joins the refresh in progress, or starts one unless the stale token was already replaced.
    private func refreshed(replacing stale: String?) async throws -> Credential {
        let flight: SingleFlight<Credential> = state.withLock { state in
            if let refreshing = state.refreshing { return refreshing }
            let flight = SingleFlight<Credential>()
            if let credential = state.credential, credential.accessToken != stale {
                flight.finish(.success(credential))
                return flight
            }
            state.refreshing = flight
            state.refreshCount += 1
            startRefresh(of: state.credential, stale: stale, into: flight)
            return flight
        }
        return try await flight.value()
    }

    /// Runs `refresh` for `flight`, and a timer that fails the flight (and cancels the refresh) when it runs late.
    private func startRefresh(of previous: Credential?, stale: String?, into flight: SingleFlight<Credential>) {
        let refresh = self.refresh
        let lock = self.state
        let now = self.now
        let me = ObjectIdentifier(self)
        // Whoever ends the flight first (the refresh, or the timer) records the outcome; the other's is dropped.
        let complete: @Sendable (Result<Credential, any Error>) -> Bool = { result in
            let first = lock.withLock { state -> Bool in
                guard state.refreshing === flight else { return false }
                state.refreshing = nil
                switch result {
                case .success(let fresh):
                    state.credential = fresh
                    state.failedRefresh = nil
                case .failure(let error):
                    state.failedRefresh = (stale, error, now())
                }
                return true
            }
            return first && flight.finish(result)
        }
        let work = Lock<Task<Void, Never>?>(nil)
        let timer: Task<Void, Never>? = refreshTimeout.map { limit in
            let clock = self.clock
            return Task {
                do { try await clock.sleep(for: limit) } catch { return }  // the refresh ended first
                if complete(.failure(RefreshTimeout(limit: limit))) { work.value?.cancel() }
            }
        }
        work.value = Task {
            let result: Result<Credential, any Error>
            do {
                result = .success(try await Self.$refreshingFor.withValue(me) { try await refresh(previous) })
            } catch {
                result = .failure(error)
            }
            timer?.cancel()
            _ = complete(result)
        }
    }

    /// A refresh took longer than `refreshTimeout`.
    struct RefreshTimeout: Error, CustomStringConvertible {
        let limit: Duration
        var description: String { "the token refresh took longer than its timeout of \(limit)" }
    }

    /// What requests waiting on a failed refresh see.
    struct RefreshFailure: Error, CustomStringConvertible {
        let underlying: any Error
        var description: String { "the token refresh failed: \(underlying)" }
    }
}
