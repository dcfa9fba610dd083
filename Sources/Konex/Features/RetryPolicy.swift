import Foundation

/// Retries failed requests with exponential backoff and jitter, within an attempt count and a total deadline,
/// honouring `Retry-After`.
///
/// It retries transport failures (timeouts, lost connections …) and responses rejected by validation with a
/// retryable status (408, 429, 500, 502, 503, 504), only for idempotent methods unless told otherwise, and
/// never after cancellation. Statuses reach it only as validation failures, so pair it with `.validate()`. A
/// ``RetryBudget`` bounds its retries per host to 20 % of the client's requests, so a server that is down is not hit again
/// by every caller (``budget``).
/// ```swift
/// client.retriers = [RetryPolicy()]                                   // every request
/// client.request(Upload()).validate().retry(RetryPolicy(maximumAttempts: 5, retryingNonIdempotent: true))
/// ```
public struct RetryPolicy: RequestRetrier {
    /// Attempts in all, the first included.
    public var maximumAttempts: Int
    /// Time allowed across all attempts and waits; no retry starts that would end after it.
    public var deadline: Duration?
    /// The wait before the first retry.
    public var baseDelay: Duration
    /// The factor applied to the wait after each retry.
    public var multiplier: Double
    /// The longest computed wait.
    public var maximumDelay: Duration
    /// The fraction of each wait that is randomised (0.2: ±20 %), so clients do not retry in lockstep.
    public var jitter: Double
    /// Statuses worth retrying.
    public var retryableStatusCodes: Set<Int>
    /// Transport failures worth retrying, by `URLError` code; a ``TransportFailure`` from another transport is
    /// retried when its kind's ``TransportFailure/Kind/urlErrorCode`` is here.
    public var retryableURLErrorCodes: Set<URLError.Code>
    /// Whether POST, PATCH and other non-idempotent methods are retried.
    public var retryingNonIdempotent: Bool
    /// The longest `Retry-After` honoured; a server asking for longer is not retried.
    public var maximumRetryAfter: Duration
    /// Bounds retries per host to a share of requests (20 % by default); `nil` for no bound.
    public var budget: RetryBudget?
    private let random: @Sendable () -> Double
    private let now: @Sendable () -> Date

    /// Creates a policy.
    /// - Parameters:
    ///   - maximumAttempts: Attempts in all; 3 by default.
    ///   - deadline: Total time allowed; 60 s by default.
    ///   - baseDelay: The first wait; 0.5 s by default.
    ///   - multiplier: Growth per retry; 2 by default.
    ///   - maximumDelay: The longest computed wait; 30 s by default.
    ///   - jitter: Random fraction of each wait; 0.2 by default.
    ///   - retryableStatusCodes: 408, 429, 500, 502, 503, 504 by default.
    ///   - retryableURLErrorCodes: Timeouts and connection failures by default.
    ///   - retryingNonIdempotent: `false` by default.
    ///   - maximumRetryAfter: 120 s by default.
    ///   - budget: The client's own budget by default (``RetryBudget/perClient``: retries per host at most 20 % of
    ///     the client's requests over 10 s of its clock, at least 10), so policies made per call are bounded together; a
    ///     ``RetryBudget`` of your own to share one across clients, or `nil` for no bound.
    ///   - random: A source of numbers in 0..<1 (inject for deterministic tests).
    ///   - now: The current date, for HTTP-date `Retry-After` values.
    public init(
        maximumAttempts: Int = 3, deadline: Duration? = .seconds(60), baseDelay: Duration = .milliseconds(500),
        multiplier: Double = 2, maximumDelay: Duration = .seconds(30), jitter: Double = 0.2,
        retryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504],
        retryableURLErrorCodes: Set<URLError.Code> = [
            .timedOut, .networkConnectionLost, .notConnectedToInternet, .cannotConnectToHost, .cannotFindHost,
            .dnsLookupFailed,
        ],
        retryingNonIdempotent: Bool = false, maximumRetryAfter: Duration = .seconds(120),
        budget: RetryBudget? = .perClient,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.maximumAttempts = maximumAttempts
        self.deadline = deadline
        self.baseDelay = baseDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.jitter = jitter
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableURLErrorCodes = retryableURLErrorCodes
        self.retryingNonIdempotent = retryingNonIdempotent
        self.maximumRetryAfter = maximumRetryAfter
        self.budget = budget
        self.random = random
        self.now = now
    }

    public func shouldRetry(_ request: TransportRequest, dueTo error: KonexError, attempt: Int, elapsed: Duration) async
        -> RetryDecision
    {
        guard attempt < maximumAttempts, error.stage != .cancelled, isRetryable(error) else { return .doNotRetry }
        guard retryingNonIdempotent || request.method.isIdempotent else { return .doNotRetry }
        var wait = backoff(afterAttempt: attempt)
        if let header = error.response?.value(forHTTPHeaderField: "Retry-After"),
            let asked = RetryAfter.parse(header, now: now())
        {
            guard asked <= maximumRetryAfter else { return .doNotRetry }
            wait = asked
        }
        if let deadline, elapsed + wait > deadline { return .doNotRetry }
        let budget = self.budget === RetryBudget.perClient ? RetryBudget.ofClient : self.budget
        if let budget, let spent = budget.withdraw(for: request.origin) {
            // The dependency is failing for many callers: the original failure now, not more load.
            var failure = error
            let percent = budget.ratio.isFinite ? "\(Int(Swift.min(budget.ratio, 1e6) * 100)) %" : "no share"
            failure.message +=
                "; not retried: the retry budget for \(request.origin) is spent (\(spent.retries) retries for "
                + "\(spent.requests) requests in the last \(budget.window), at most \(percent))"
            if spent.requests == 0 {
                // A budget of the caller's that never heard of a request: a retrier wrapping this policy must pass
                // `requestWillStart` on, or the budget allows only its minimum.
                failure.message +=
                    "; no request was counted in this budget: a retrier that wraps RetryPolicy must forward "
                    + "requestWillStart(_:), or use the default budget (RetryBudget.perClient)"
            }
            return .fail(failure)
        }
        return .retry(after: wait)
    }

    /// Counts the request in a budget of the caller's (the client counts its own, ``RetryBudget/perClient``).
    public func requestWillStart(_ request: TransportRequest) {
        guard let budget, budget !== RetryBudget.perClient else { return }
        budget.recordRequest(to: request.origin)
    }

    /// The wait after attempt `attempt` (1-based): base × multiplierⁿ⁻¹, capped, with jitter.
    public func backoff(afterAttempt attempt: Int) -> Duration {
        Backoff.delay(
            base: baseDelay, multiplier: multiplier, exponent: attempt - 1, maximum: maximumDelay, jitter: jitter,
            random: random())
    }

    private func isRetryable(_ error: KonexError) -> Bool {
        switch error.stage {
        case .transport:
            // A URLError by its code; another transport's failure by the code of its kind, so both retry alike.
            if let code = (error.underlyingError as? URLError)?.code { return retryableURLErrorCodes.contains(code) }
            guard let kind = error.transportFailure else { return false }
            return retryableURLErrorCodes.contains(kind.urlErrorCode)
        case .validation:
            return error.statusCode.map(retryableStatusCodes.contains) ?? false
        default:
            return false
        }
    }
}

/// Parses `Retry-After` (RFC 9110 §10.2.3): delay-seconds, or an HTTP-date.
public enum RetryAfter {
    /// The wait the header asks for, or `nil` when it is malformed. A date in the past means no wait.
    /// - Parameters:
    ///   - value: The header's value, e.g. `"120"` or `"Wed, 21 Oct 2015 07:28:00 GMT"`.
    ///   - now: The current date.
    public static func parse(_ value: String, now: Date) -> Duration? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) {
            // Digits only, read without overflow: leading zeros carry nothing, and more than a hundred years' worth
            // is a hundred years (a policy's maximumRetryAfter then declines it).
            let significant = trimmed.utf8.drop { $0 == UInt8(ascii: "0") }
            guard significant.count <= 12 else { return Duration(clampedSeconds: .infinity) }
            return Duration(clampedSeconds: Double(significant.reduce(0) { $0 * 10 + Int($1 &- UInt8(ascii: "0")) }))
        }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        return Duration(clampedSeconds: date.timeIntervalSince(now))
    }
}
