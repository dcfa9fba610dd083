import Foundation
import Konex

/// A `ConnectivityMonitor` whose path the test sets: offline, then back, at the moment (or the virtual time)
/// the test chooses.
///
/// With a `ManualClock` on the client and on the `ConnectivityRetrier`, "the request waits while offline and
/// goes when the path is back" takes no real time:
/// ```swift
/// let clock = ManualClock()
/// let monitor = MockConnectivityMonitor(.offline)
/// let client = KonexClient(transport: transport, clock: clock)
/// client.retriers = [ConnectivityRetrier(monitor: monitor, clock: clock)]
/// async let feed = client.request(GetFeed()).response()
/// try await monitor.waitForWaiters()     // the request failed and waits for the network
/// monitor.set(.online)                   // …and goes again now
/// ```
public final class MockConnectivityMonitor: ConnectivityMonitor {
    private let waiters: ConnectivityWaiters
    private let changes = Lock<[ConnectivityStatus]>([])

    /// Creates a monitor that says `status` until told otherwise.
    public init(_ status: ConnectivityStatus = .online) {
        waiters = ConnectivityWaiters(status)
    }

    public var status: ConnectivityStatus { waiters.status }

    /// Every status set since the monitor was made, in order.
    public var history: [ConnectivityStatus] { changes.value }

    /// How many tasks wait for the path.
    public var waiterCount: Int { waiters.count }

    public func waitUntilOnline() async throws { try await waiters.waitUntilOnline() }

    /// Says `status` from now on; a status other than offline wakes every waiter.
    public func set(_ status: ConnectivityStatus) {
        changes.withLock { $0.append(status) }
        waiters.update(status)
    }

    /// Says `status` once `delay` has passed on `clock` (a `ManualClock`'s virtual time, or real time).
    /// - Returns: The task that sets it; cancel it to call the change off.
    @discardableResult
    public func set(
        _ status: ConnectivityStatus, after delay: Duration, on clock: some Clock<Duration> & Sendable
    ) -> Task<Void, Never> {
        Task {
            guard (try? await clock.sleep(for: delay)) != nil else { return }
            set(status)
        }
    }

    /// Waits (in real time, without advancing any clock) until at least `count` tasks wait for the path.
    /// - Throws: ``WaitTimeout`` naming how many waited, so a regression fails instead of hanging.
    public func waitForWaiters(_ count: Int = 1, timeout: Duration = .seconds(120)) async throws {
        try await WaitTimeout.wait(
            for: "\(count) waiter(s) on the MockConnectivityMonitor; \(waiterCount) waiting", timeout: timeout
        ) { waiterCount >= count }
    }
}
