import Foundation

/// Bounds the retries to one host to a share of the requests sent to it, over a sliding window, so retries cannot
/// multiply the load on a dependency that is down.
///
/// Backoff spaces one caller's retries; it does nothing about a thousand callers each retrying three times when a
/// server fails every request. A budget lets a retry through only while the retries to a host in the last
/// ``window`` stay within ``ratio`` of the requests to it (and at least ``minimumRetries``, so a quiet client still
/// retries its one failed request). Past it, ``RetryPolicy`` returns the original failure at once, saying the budget
/// was spent. First attempts are never held back, so requests succeed again as soon as the server does.
///
/// A ``RetryPolicy`` spends its client's budget by default (``perClient``), so policies made per call
/// (`.retry(RetryPolicy())`) are bounded together: 100 failing calls make about 120 attempts, not 300. The client's
/// budget keeps its window on the client's `clock` (as the policies' waits do), so on a test clock it does not depend
/// on how long a test takes. Give policies the same instance of your own to share one across clients, or `nil` for
/// no bound.
/// ```swift
/// let budget = RetryBudget(ratio: 0.1)                        // retries at most 10 % of requests per host
/// client.retriers = [RetryPolicy(maximumAttempts: 4, budget: budget)]
/// ```
///
/// Hosts are counted by origin: scheme and host case-folded, the scheme's default port left out. A budget counts
/// the requests that reached the network (an answer from ``HTTPCache`` sent nothing). Values out of range are
/// clamped, never trapped on: a negative or NaN `ratio` is 0, a `window` of zero or less is one millisecond.
public final class RetryBudget: Sendable {
    /// The default of ``RetryPolicy/budget``: the budget of the client that sends the request, one per client,
    /// counted by the client itself (so a retrier that wraps a `RetryPolicy` is bounded too). Outside a client's
    /// request (a policy asked directly) it bounds nothing.
    public static let perClient = RetryBudget()

    /// The budget of the client whose retriers are deciding: bound by the pipeline around each decision.
    @TaskLocal static var ofClient: RetryBudget?

    /// The most retries as a share of requests, per host, over ``window``.
    public let ratio: Double
    /// Retries always allowed per host within ``window``, whatever the share.
    public let minimumRetries: Int
    /// How far back requests and retries count.
    public let window: Duration

    private struct Counts {
        var requests = 0
        var retries = 0
    }

    /// One host's counts in ten slices of the window; `latest` is the number of the slice last written.
    private struct Host {
        var slices = [Counts](repeating: Counts(), count: RetryBudget.slices)
        var latest: Int64 = 0

        /// Moves the window to slice `now`, clearing the slices that fell out of it.
        mutating func advance(to now: Int64) {
            guard now > latest else { return }
            if now - latest >= RetryBudget.slices {
                for index in slices.indices { slices[index] = Counts() }
            } else {
                for slice in (latest + 1)...now { slices[RetryBudget.index(of: slice)] = Counts() }
            }
            latest = now
        }

        var totals: Counts {
            slices.reduce(into: Counts()) { total, slice in
                total.requests += slice.requests
                total.retries += slice.retries
            }
        }
    }

    private static let slices = 10
    /// Hosts kept at most; past it the quietest are forgotten (a forgotten host starts with a full budget).
    private static let hostLimit = 1_024

    /// The number of the window's slice the clock is in now. An `Int64`: where `Int` is 32 bits (arm64_32, the Apple
    /// Watch) a slice number is past its range after 2^31 slices, and the clamp below would trap converting to it.
    private let slice: @Sendable () -> Int64

    /// Where slice `number` is kept among the window's slices.
    private static func index(of number: Int64) -> Int { Int(number % Int64(slices)) }
    private let hosts = Lock<[String: Host]>([:])

    /// Creates a budget.
    /// - Parameters:
    ///   - ratio: The most retries as a share of requests; 0.2 (20 %) by default.
    ///   - minimumRetries: Retries always allowed per host within the window; 10 by default.
    ///   - window: How far back requests and retries count; 10 s by default.
    ///   - clock: What the window is measured on; a `ContinuousClock` by default (a `ManualClock` in tests).
    public init<C: Clock<Duration>>(
        ratio: Double = 0.2, minimumRetries: Int = 10, window: Duration = .seconds(10), clock: C = ContinuousClock()
    ) {
        self.ratio = ratio.isNaN ? 0 : Swift.max(0, ratio)
        self.minimumRetries = Swift.max(0, minimumRetries)
        let window = window > .zero ? window : .milliseconds(1)
        self.window = window
        let start = clock.now
        // Seconds as a Double, divided once: cheaper than Duration's own division, on every request. A slice number
        // past Int's range (a nanosecond window after centuries) stays at the last one instead of trapping.
        let width = Swift.max((window / Self.slices).seconds, 1e-12)
        slice = { Int64(Swift.min(start.duration(to: clock.now).seconds / width, 1e15)) }
    }

    /// Counts a first attempt to `host` (the client does for its own budget; ``RetryPolicy`` for one of yours).
    func recordRequest(to host: String) { count(retry: false, to: host) }

    /// Counts a retry that already happened (a transport's own resend): it spends the budget, never asks it.
    func recordRetry(to host: String) { count(retry: true, to: host) }

    private func count(retry: Bool, to host: String) {
        let now = slice()
        hosts.withLock { hosts in
            if hosts[host] == nil, hosts.count >= Self.hostLimit { forgetQuietHosts(&hosts, now: now) }
            hosts[host, default: Host(latest: now)].advance(to: now)
            if retry {
                hosts[host]!.slices[Self.index(of: now)].retries += 1
            } else {
                hosts[host]!.slices[Self.index(of: now)].requests += 1
            }
        }
    }

    /// Takes a retry to `host` from the budget; `nil` when there was room, otherwise what was spent.
    func withdraw(for host: String) -> (retries: Int, requests: Int)? {
        let now = slice()
        return hosts.withLock { hosts in
            var counts = hosts[host] ?? Host(latest: now)
            counts.advance(to: now)
            let totals = counts.totals
            // An infinite ratio times no requests is NaN: no share at all then, only the minimum.
            let share = totals.requests == 0 ? 0 : ratio * Double(totals.requests)
            let allowed = max(Double(minimumRetries), share)
            guard Double(totals.retries) + 1 <= allowed else {
                hosts[host] = counts
                return (totals.retries, totals.requests)
            }
            counts.slices[Self.index(of: now)].retries += 1
            hosts[host] = counts
            return nil
        }
    }

    /// Drops the hosts with nothing in the window, or, when every host is busy, all of them.
    private func forgetQuietHosts(_ hosts: inout [String: Host], now: Int64) {
        hosts = hosts.filter { now - $0.value.latest < Self.slices }
        if hosts.count >= Self.hostLimit { hosts.removeAll() }
    }
}
