import Foundation

/// Decides whether a failed attempt is tried again, and after how long.
///
/// Retriers are asked in order (client, request, call site) after a transport or validation failure; the first
/// that answers `.retry` wins. The wait goes through the client's `clock`, so tests never really sleep.
/// See ``RetryPolicy`` for the built-in exponential backoff.
public protocol RequestRetrier: Sendable {
    /// Whether to retry after `error`.
    /// - Parameters:
    ///   - request: The request that failed (after adapters).
    ///   - error: Why it failed; its `response` is set for validation failures.
    ///   - attempt: The number of the attempt that failed, starting at 1.
    ///   - elapsed: Time since the first attempt started.
    /// - Returns: `.retry(after:)` to try again, `.doNotRetry` to give up.
    func shouldRetry(_ request: TransportRequest, dueTo error: KonexError, attempt: Int, elapsed: Duration) async
        -> RetryDecision

    /// Called once a request, before its first attempt is sent (after adapters): a retry budget counts requests
    /// here, successful ones too. Does nothing unless implemented.
    /// - Parameter request: The request about to be sent.
    func requestWillStart(_ request: TransportRequest)
}

extension RequestRetrier {
    public func requestWillStart(_ request: TransportRequest) {}
}

/// A retrier's answer.
public enum RetryDecision: Sendable {
    /// Give up: the error is reported.
    case doNotRetry
    /// Try again after the delay.
    case retry(after: Duration)
    /// Give up with this error instead (e.g. the token refresh that would have allowed a retry failed).
    case fail(KonexError)
}

/// A retrier that keeps a note about one request across its attempts, held by the pipeline so the retrier itself
/// stays free of per-request state. ``TokenAuthenticator`` notes the token a refresh gave the request, so that
/// token failing too ends the request instead of refreshing in a loop.
protocol RememberingRetrier: RequestRetrier {
    /// Like ``RequestRetrier/shouldRetry(_:dueTo:attempt:elapsed:)``, with this request's note (`nil` at first).
    func shouldRetry(
        _ request: TransportRequest, dueTo error: KonexError, attempt: Int, elapsed: Duration, note: inout String?
    ) async -> RetryDecision
}
