/// Makes a request that failed for want of a network wait for the network to come back, then sends it again.
///
/// It acts when a request fails with one of ``failureKinds`` (not connected, connection lost, no route to the host,
/// a failed lookup, a timeout) *and* the ``monitor`` says the device is offline; otherwise it leaves the failure to the
/// retriers after it. It never retries while the monitor says offline: the retry goes when the path is back, at once,
/// or the request fails when ``maximumWait`` passes first; cancelling the request ends the wait at once. A `POST` or
/// other non-idempotent request goes again only when the failure says nothing was sent (not connected, no route, a
/// failed lookup).
///
/// Put it before a ``RetryPolicy``, which would otherwise back off and retry into the dead network:
/// ```swift
/// client.retriers = [ConnectivityRetrier(), RetryPolicy()]
/// let feed = try await client.request(GetFeed()).response()   // offline: waits up to a minute for the path
/// ```
public struct ConnectivityRetrier: RequestRetrier {
    /// What says whether the device is offline, and when it is back.
    public var monitor: any ConnectivityMonitor
    /// The longest one wait for the network lasts; past it the request fails with the original error, saying so.
    public var maximumWait: Duration
    /// Attempts in all, the first included (a network that comes and goes cannot hold a request for ever).
    public var maximumAttempts: Int
    /// The failures that may mean the device is offline (the monitor decides whether it is).
    public var failureKinds: Set<TransportFailure.Kind>
    private let clock: any Clock<Duration>

    /// Failures after which nothing reached the server: a non-idempotent request may go again.
    private static let nothingSent: Set<TransportFailure.Kind> = [
        .notConnectedToInternet, .cannotConnectToHost, .cannotFindHost,
    ]

    /// Creates a retrier.
    /// - Parameters:
    ///   - monitor: The platform's monitor by default (``SystemConnectivityMonitor``).
    ///   - maximumWait: The longest one wait for the network; 60 s by default.
    ///   - maximumAttempts: Attempts in all; 5 by default.
    ///   - failureKinds: Not connected, connection lost, cannot connect, cannot find the host and timed out by
    ///     default.
    ///   - clock: The clock ``maximumWait`` is measured on (a `ManualClock` in tests).
    public init(
        monitor: any ConnectivityMonitor = SystemConnectivityMonitor.shared, maximumWait: Duration = .seconds(60),
        maximumAttempts: Int = 5,
        failureKinds: Set<TransportFailure.Kind> = [
            .notConnectedToInternet, .networkConnectionLost, .cannotConnectToHost, .cannotFindHost, .timedOut,
        ],
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.monitor = monitor
        self.maximumWait = maximumWait
        self.maximumAttempts = maximumAttempts
        self.failureKinds = failureKinds
        self.clock = clock
    }

    public func shouldRetry(_ request: TransportRequest, dueTo error: KonexError, attempt: Int, elapsed: Duration) async
        -> RetryDecision
    {
        guard attempt < maximumAttempts, error.stage == .transport, let kind = error.transportFailure,
            failureKinds.contains(kind), request.method.isIdempotent || Self.nothingSent.contains(kind),
            monitor.status == .offline
        else { return .doNotRetry }
        switch await waitForNetwork() {
        case .online:
            return .retry(after: .zero)
        case .cancelled:
            // The pipeline checks for cancellation before it retries: the request ends as cancelled, not as the
            // failure that started the wait.
            return .retry(after: .zero)
        case .monitorFailed:
            // A monitor that cannot wait says nothing about the network: retrying at once would only fail again
            // while offline. The next retrier (a RetryPolicy, with its backoff) decides.
            return .doNotRetry
        case .timedOut:
            var failure = error
            failure.message += "; the network did not come back within \(maximumWait) (ConnectivityRetrier waited)"
            return .fail(failure)
        }
    }

    private enum Wait: Sendable { case online, timedOut, cancelled, monitorFailed }

    /// Waits for the monitor to say online, for `maximumWait` on `clock`, or for cancellation, whichever comes first:
    /// the project's `firstOf` race, which returns at the deadline even from a monitor that ignores cancellation.
    private func waitForNetwork() async -> Wait {
        let monitor = self.monitor
        let cameBack = await firstOf(
            { () async -> Bool in (try? await monitor.waitUntilOnline()) != nil }, orDeadline: maximumWait, on: clock)
        if Task.isCancelled { return .cancelled }
        switch cameBack {
        case nil: return .timedOut
        case true?: return .online
        case false?: return .monitorFailed  // the monitor's wait threw, and not for cancellation
        }
    }
}
