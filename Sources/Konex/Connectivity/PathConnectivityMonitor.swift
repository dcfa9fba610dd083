#if canImport(Network)
    import Foundation
    @preconcurrency import Network

    /// A ``ConnectivityMonitor`` over `NWPathMonitor`: the platform's monitor on Apple platforms.
    ///
    /// The path monitor starts when this is made and stops when it is released; until its first report the status
    /// is ``ConnectivityStatus/unknown`` (a request goes ahead). A path that needs a connection to come up (a VPN on
    /// demand, cellular waking) is ``ConnectivityStatus/unknown`` too: only a connection attempt brings it up.
    /// ```swift
    /// client.retriers = [ConnectivityRetrier(monitor: .system), RetryPolicy()]
    /// ```
    public final class PathConnectivityMonitor: ConnectivityMonitor, @unchecked Sendable {
        // `@unchecked`: `monitor` is only started (in init) and cancelled (in deinit); its handler runs on its queue
        // and touches nothing but `waiters`, which locks.

        /// The monitor the process shares (``ConnectivityMonitor/system`` on Apple platforms).
        public static let shared = PathConnectivityMonitor()

        private let monitor: NWPathMonitor
        private let waiters = ConnectivityWaiters(.unknown)

        /// Starts watching the path.
        /// - Parameter requiredInterfaceType: Watch only paths over this kind of interface (`.wifi`, `.cellular`,
        ///   …); `nil` (the default) for any.
        public init(requiredInterfaceType: NWInterface.InterfaceType? = nil) {
            monitor = requiredInterfaceType.map { NWPathMonitor(requiredInterfaceType: $0) } ?? NWPathMonitor()
            let waiters = self.waiters
            monitor.pathUpdateHandler = { path in waiters.update(PathConnectivityMonitor.status(of: path.status)) }
            monitor.start(queue: DispatchQueue(label: "Konex.PathConnectivityMonitor"))
        }

        deinit { monitor.cancel() }

        public var status: ConnectivityStatus { waiters.status }

        public func waitUntilOnline() async throws { try await waiters.waitUntilOnline() }

        /// A path's status as Konex reads it.
        static func status(of status: NWPath.Status) -> ConnectivityStatus {
            switch status {
            case .satisfied: .online
            case .unsatisfied: .offline
            case .requiresConnection: .unknown
            @unknown default: .unknown
            }
        }
    }
#endif
