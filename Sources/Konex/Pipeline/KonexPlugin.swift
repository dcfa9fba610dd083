import Foundation

/// Observes requests as they are sent and responses as they arrive: logging, activity indicators, metrics.
///
/// Both methods default to doing nothing, so a plugin implements only what it needs. Plugins observe;
/// to change the outgoing request use a ``RequestAdapter``.
/// ```swift
/// struct ActivityPlugin: KonexPlugin {
///     func didSendRequest(_ request: TransportRequest) async { await Spinner.shared.start() }
///     func didReceiveResponse(_ result: Result<TransportResponse, KonexError>, for request: TransportRequest) async {
///         await Spinner.shared.stop()
///     }
/// }
/// ```
public protocol KonexPlugin: Sendable {
    /// Called with the final request (after adapters), right before each attempt goes to the transport.
    /// - Parameter request: The request being sent.
    func didSendRequest(_ request: TransportRequest) async

    /// Called after each attempt with what the transport returned, before validation.
    /// - Parameters:
    ///   - result: The response and its timing, or the transport failure.
    ///   - request: The request that was sent.
    func didReceiveResponse(_ result: Result<TransportResponse, KonexError>, for request: TransportRequest) async

    /// The earlier signature of `didSendRequest(_ request: TransportRequest)`, from before ``TransportRequest``:
    /// still called, with the request as a `URLRequest`, when a plugin implements it and not the new one. Write
    /// `didSendRequest(_ request: TransportRequest)` instead.
    /// - Parameter request: The request being sent, as a Foundation request.
    func didSendRequest(_ request: URLRequest) async

    /// The earlier signature of `didReceiveResponse(_:for: TransportRequest)`: still called, with the request as a
    /// `URLRequest`, when a plugin implements it and not the new one. Write
    /// `didReceiveResponse(_ result:, for request: TransportRequest)` instead.
    /// - Parameters:
    ///   - result: The response and its timing, or the transport failure.
    ///   - request: The request that was sent, as a Foundation request.
    func didReceiveResponse(_ result: Result<TransportResponse, KonexError>, for request: URLRequest) async
}

// A plugin written for the earlier signatures keeps working: without these requirements its methods would be
// unrelated ones, never called (see `EarlierSignatures`).
extension KonexPlugin {
    public func didSendRequest(_ request: TransportRequest) async {
        guard EarlierSignatures.mayImplement(Self.self, .pluginDidSend) else { return }
        await didSendRequest(request.urlRequest)
        EarlierSignatures.forwarded(Self.self, .pluginDidSend)
    }

    public func didReceiveResponse(_ result: Result<TransportResponse, KonexError>, for request: TransportRequest) async
    {
        guard EarlierSignatures.mayImplement(Self.self, .pluginDidReceive) else { return }
        await didReceiveResponse(result, for: request.urlRequest)
        EarlierSignatures.forwarded(Self.self, .pluginDidReceive)
    }

    public func didSendRequest(_ request: URLRequest) async {
        EarlierSignatures.recordDefault(Self.self, .pluginDidSend)
    }

    public func didReceiveResponse(_ result: Result<TransportResponse, KonexError>, for request: URLRequest) async {
        EarlierSignatures.recordDefault(Self.self, .pluginDidReceive)
    }
}

/// Timing measured by Konex itself, plus the system's phase timings where the platform reports them.
public struct RequestTiming: Sendable, Hashable {
    /// Wall-clock time when the first attempt started.
    public var startDate: Date
    /// From the start of the first attempt to the end of the last attempt's transport call.
    public var total: Duration
    /// The last attempt's transport call alone.
    public var transport: Duration
    /// The attempt number, starting at 1.
    public var attempt: Int
    /// DNS, connect, TLS and first-byte times of the last attempt, from `URLSessionTaskMetrics` on Apple platforms;
    /// `nil` where the platform does not report them (FoundationNetworking never does).
    public var phases: TransferPhases?
    /// How long the last attempt waited for a ``ConcurrencyLimit`` slot (part of ``transport``); zero without one.
    public var queue: Duration

    /// Creates a timing.
    public init(
        startDate: Date, total: Duration, transport: Duration, attempt: Int, phases: TransferPhases? = nil,
        queue: Duration = .zero
    ) {
        self.startDate = startDate
        self.total = total
        self.transport = transport
        self.attempt = attempt
        self.phases = phases
        self.queue = queue
    }
}

/// How long each phase of a transfer took, as the system measured it (`nil` for a phase that did not happen, such
/// as DNS and connect on a reused connection).
public struct TransferPhases: Sendable, Hashable {
    // Five optional durations are 113 bytes; every timing and every response carries a `TransferPhases?`, and the
    // pipeline's async frames keep a slot for each copy. In one immutable reference they are a word wide.
    private struct Values: Hashable {
        var domainLookup, connect, secureConnection, firstByte, download: Duration?
    }

    private final class Storage: Sendable {
        let values: Values
        init(_ values: Values) { self.values = values }
    }

    private var storage: Storage

    private mutating func update(_ change: (inout Values) -> Void) {
        var values = storage.values
        change(&values)
        storage = Storage(values)
    }

    /// Resolving the host name.
    public var domainLookup: Duration? {
        get { storage.values.domainLookup }
        set { update { $0.domainLookup = newValue } }
    }

    /// Opening the connection, TLS included.
    public var connect: Duration? {
        get { storage.values.connect }
        set { update { $0.connect = newValue } }
    }

    /// The TLS handshake.
    public var secureConnection: Duration? {
        get { storage.values.secureConnection }
        set { update { $0.secureConnection = newValue } }
    }

    /// From sending the request to the first byte of the response.
    public var firstByte: Duration? {
        get { storage.values.firstByte }
        set { update { $0.firstByte = newValue } }
    }

    /// Receiving the response, first byte to last.
    public var download: Duration? {
        get { storage.values.download }
        set { update { $0.download = newValue } }
    }

    /// Creates phase timings.
    public init(
        domainLookup: Duration? = nil, connect: Duration? = nil, secureConnection: Duration? = nil,
        firstByte: Duration? = nil, download: Duration? = nil
    ) {
        storage = Storage(
            Values(
                domainLookup: domainLookup, connect: connect, secureConnection: secureConnection, firstByte: firstByte,
                download: download))
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.storage.values == rhs.storage.values }

    public func hash(into hasher: inout Hasher) { hasher.combine(storage.values) }
}
