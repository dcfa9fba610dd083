/// Tells whether the device can reach a network, and waits for it to come back.
///
/// ``ConnectivityRetrier`` asks one after a request fails for want of a network, so the request waits for the path
/// instead of failing or retrying into nothing. Konex ships ``SystemConnectivityMonitor`` (`NWPathMonitor` on Apple
/// platforms, a watch of the interfaces elsewhere); KonexTesting's `MockConnectivityMonitor` says what a test tells it.
/// ```swift
/// let monitor: any ConnectivityMonitor = .system
/// if monitor.status == .offline { try await monitor.waitUntilOnline() }
/// ```
public protocol ConnectivityMonitor: Sendable {
    /// The path as the monitor last saw it.
    var status: ConnectivityStatus { get }

    /// Returns once ``status`` is no longer ``ConnectivityStatus/offline`` (at once when it is not).
    /// - Throws: `CancellationError` when the task is cancelled while it waits.
    func waitUntilOnline() async throws
}

/// Whether a network path is there.
public enum ConnectivityStatus: Sendable, Hashable, CustomStringConvertible {
    /// A path that can carry traffic beyond this machine.
    case online
    /// No such path: requests fail without reaching a server.
    case offline
    /// The monitor cannot tell (yet); Konex treats it as online and lets the request go.
    case unknown

    /// `online`, `offline` or `unknown`.
    public var description: String {
        switch self {
        case .online: "online"
        case .offline: "offline"
        case .unknown: "unknown"
        }
    }
}

#if canImport(Network)
    /// The platform's monitor: ``PathConnectivityMonitor`` (`NWPathMonitor`) here.
    public typealias SystemConnectivityMonitor = PathConnectivityMonitor
#else
    /// The platform's monitor: ``InterfaceConnectivityMonitor`` (a watch of the network interfaces) here.
    public typealias SystemConnectivityMonitor = InterfaceConnectivityMonitor
#endif

extension ConnectivityMonitor where Self == SystemConnectivityMonitor {
    /// The platform's monitor, shared by the process: `NWPathMonitor` on Apple platforms, the network interfaces
    /// elsewhere.
    public static var system: SystemConnectivityMonitor { .shared }
}
