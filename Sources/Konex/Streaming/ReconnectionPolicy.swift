import Foundation

/// When and how a Server-Sent Events stream reconnects after it ends or breaks.
///
/// Between attempts it waits the reconnection time the server asked for with `retry:` (or `initialDelay`), growing
/// by `multiplier` after each failed attempt up to `maximumDelay`, spread by `jitter` so that the clients of a server
/// that restarts do not all come back in the same millisecond, on the client's clock, and never shorter than
/// `minimumDelay`. A connection that ends without delivering an event counts as a failed attempt. Each reconnection is a new
/// request through the whole pipeline (plugins see it) carrying `Last-Event-ID`. It stops on 204, on a status it
/// does not retry, after `maximumAttempts` failures in a row, and when the reader cancels. The stream's idle and
/// total timeouts apply to every connection (an idle timeout is a reason to reconnect; the total one spans them all).
/// ```swift
/// let feed = try await client.request(LiveFeed()).reconnecting(ReconnectionPolicy()).validate().stream()
/// for try await event in feed.events() { … }
/// ```
public struct ReconnectionPolicy: Sendable, Hashable {
    /// Failed attempts in a row before giving up.
    public var maximumAttempts: Int
    /// The wait before reconnecting when the server did not send `retry:`.
    public var initialDelay: Duration
    /// How much the wait grows after each failed attempt.
    public var multiplier: Double
    /// The longest wait.
    public var maximumDelay: Duration
    /// The statuses a reconnection may answer with and still be retried (any other non-2xx ends the stream).
    public var retryableStatusCodes: Set<Int>
    /// The fraction of each wait that is randomised (0.2: ±20 %); 0 for exact waits (tests on a manual clock).
    public var jitter: Double
    /// The shortest wait, whatever the server's `retry:` says: `retry: 0` from a server that closes at once would
    /// otherwise reconnect in a loop as fast as the network allows.
    public var minimumDelay: Duration

    /// Creates a policy.
    public init(
        maximumAttempts: Int = 5, initialDelay: Duration = .seconds(3), multiplier: Double = 2,
        maximumDelay: Duration = .seconds(60), retryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504],
        jitter: Double = 0.2, minimumDelay: Duration = .milliseconds(250)
    ) {
        self.maximumAttempts = maximumAttempts
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.retryableStatusCodes = retryableStatusCodes
        self.jitter = jitter
        self.minimumDelay = max(.zero, minimumDelay)
    }

    /// The wait before the next attempt, after `failures` failed attempts in a row; `random` is in 0..<1.
    func delay(serverRetry: Duration?, failures: Int, random: Double = Double.random(in: 0..<1)) -> Duration {
        let wait = Backoff.delay(
            base: max(serverRetry ?? initialDelay, minimumDelay), multiplier: multiplier, exponent: failures,
            maximum: maximumDelay, jitter: jitter, random: random)
        return max(wait, minimumDelay)
    }
}
