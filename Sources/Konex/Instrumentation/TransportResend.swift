/// The retrier a ``RetryEvent`` names when the transport itself sent an attempt a second time (see
/// ``ResponseHead/transportResend``): instruments and metrics count it like any retry. It never decides one.
/// ```swift
/// if event.retrier is TransportResend { staleConnections.increment() }
/// ```
public struct TransportResend: RequestRetrier {
    /// The marker.
    public init() {}

    /// Never retries: the transport already did.
    public func shouldRetry(_ request: TransportRequest, dueTo error: KonexError, attempt: Int, elapsed: Duration)
        async -> RetryDecision
    {
        .doNotRetry
    }
}
