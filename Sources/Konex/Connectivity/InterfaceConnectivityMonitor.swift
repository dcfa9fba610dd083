import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A ``ConnectivityMonitor`` that reads the network interfaces (`getifaddrs`): online while an interface other than
/// loopback is up, running and has an address beyond its link (not `169.254.0.0/16`, not `fe80::/10`).
///
/// The platform's monitor on Linux, with no package and no privilege. It reads the interfaces when asked for its
/// ``status`` and, only while a task waits in ``waitUntilOnline()``, once every ``pollInterval``: one poller for all
/// the waiters, gone with the last.
/// ```swift
/// client.retriers = [ConnectivityRetrier(monitor: InterfaceConnectivityMonitor.shared), RetryPolicy()]
/// ```
public final class InterfaceConnectivityMonitor: ConnectivityMonitor {
    /// The monitor the process shares (``ConnectivityMonitor/system`` on Linux).
    public static let shared = InterfaceConnectivityMonitor()

    /// How often the interfaces are read while a task waits.
    public let pollInterval: Duration

    private let waiters: ConnectivityWaiters
    private let read: @Sendable () -> ConnectivityStatus
    private let clock: any Clock<Duration>
    /// Time on ``clock`` since the monitor was made.
    private let elapsed: @Sendable () -> Duration
    /// The last reading and when it was made: a storm of failures asks for ``status`` once each, and listing the
    /// interfaces for every one of them would cost more than the requests.
    private let lastReading: Lock<(status: ConnectivityStatus, at: Duration)>

    /// How long a reading answers ``status``.
    static let readingLifetime = Duration.milliseconds(250)
    /// The shortest ``pollInterval``: a poller of zero would spin.
    static let shortestPoll = Duration.milliseconds(10)

    /// Creates a monitor of this machine's interfaces.
    /// - Parameter pollInterval: How often the interfaces are read while a task waits; 1 s by default, 10 ms at least.
    public convenience init(pollInterval: Duration = .seconds(1)) {
        self.init(pollInterval: pollInterval, clock: ContinuousClock(), reading: Self.readInterfaces)
    }

    /// A monitor whose reading and clock a test gives.
    init(
        pollInterval: Duration, clock: any Clock<Duration>,
        reading read: @escaping @Sendable () -> ConnectivityStatus
    ) {
        self.pollInterval = Swift.max(pollInterval, Self.shortestPoll)
        self.clock = clock
        self.read = read
        elapsed = Self.stopwatch(clock)
        let first = read()
        waiters = ConnectivityWaiters(first)
        lastReading = Lock((first, elapsed()))
    }

    private static func stopwatch<C: Clock>(_ clock: C) -> @Sendable () -> Duration where C.Duration == Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// The interfaces as they were read at most 250 ms ago (on the monitor's clock), else as they are now.
    public var status: ConnectivityStatus {
        let now = elapsed()
        let last = lastReading.value
        if now - last.at < Self.readingLifetime { return last.status }
        return reading()
    }

    /// Reads the interfaces, keeps the reading for ``status``, and wakes the waiters when it is online.
    private func reading() -> ConnectivityStatus {
        let status = read()
        lastReading.value = (status, elapsed())
        waiters.update(status)
        return status
    }

    public func waitUntilOnline() async throws {
        guard status == .offline else { return }
        try await waiters.waitUntilOnline { [waiters, clock, pollInterval] in
            Task {
                // Ends with the last waiter (`keepPolling`), or when a read finds a path and wakes them all.
                repeat {
                    try? await clock.sleep(for: pollInterval)
                    _ = self.reading()
                } while waiters.keepPolling()
            }
        }
    }

    /// This machine's interfaces read now: `.unknown` when they cannot be read.
    @Sendable static func readInterfaces() -> ConnectivityStatus {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return .unknown }
        defer { freeifaddrs(list) }
        var interfaces: [Interface] = []
        var cursor = list
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr else { continue }
            let family = Int32(address.pointee.sa_family)
            var bytes: [UInt8] = []
            if family == AF_INET {
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    bytes = withUnsafeBytes(of: $0.pointee.sin_addr) { Array($0) }
                }
            } else if family == AF_INET6 {
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    bytes = withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) }
                }
            } else {
                continue
            }
            let flags = Int32(truncatingIfNeeded: entry.pointee.ifa_flags)
            interfaces.append(
                Interface(
                    isUp: flags & Int32(IFF_UP) != 0, isRunning: flags & Int32(IFF_RUNNING) != 0,
                    isLoopback: flags & Int32(IFF_LOOPBACK) != 0, address: bytes))
        }
        return status(of: interfaces)
    }

    /// One address of one interface, as the status reads it.
    struct Interface: Sendable {
        var isUp: Bool
        var isRunning: Bool
        var isLoopback: Bool
        /// 4 bytes (IPv4) or 16 (IPv6), in network order.
        var address: [UInt8]

        /// Whether the address reaches beyond the link: not IPv4 link-local (`169.254/16`), not IPv6 link-local
        /// (`fe80::/10`), not unspecified.
        var isRoutable: Bool {
            switch address.count {
            case 4: return !(address[0] == 169 && address[1] == 254) && address != [0, 0, 0, 0]
            case 16: return !(address[0] == 0xFE && address[1] & 0xC0 == 0x80) && address.contains { $0 != 0 }
            default: return false
            }
        }
    }

    /// Online when some interface other than loopback is up, running and has a routable address.
    static func status(of interfaces: [Interface]) -> ConnectivityStatus {
        interfaces.contains { $0.isUp && $0.isRunning && !$0.isLoopback && $0.isRoutable } ? .online : .offline
    }
}
