import Foundation

/// Observes requests as they are sent and responses as they arrive: logging, activity indicators, metrics.
///
/// Both methods default to doing nothing, so a plugin implements only what it needs. Plugins observe;
/// to change the outgoing request use a ``RequestAdapter``.
/// ```swift
/// struct ActivityPlugin: KonexPlugin {
///     func didSendRequest(_ request: URLRequest) async { await Spinner.shared.start() }
///     func didReceiveResponse(_ result: Result<TransportResponse, KonexError>, for request: URLRequest) async {
///         await Spinner.shared.stop()
///     }
/// }
/// ```
public protocol KonexPlugin: Sendable {
    /// Called with the final request (after adapters), right before each attempt goes to the transport.
    /// - Parameter request: The request being sent.
    func didSendRequest(_ request: URLRequest) async

    /// Called after each attempt with what the transport returned, before validation.
    /// - Parameters:
    ///   - result: The response and its timing, or the transport failure.
    ///   - request: The request that was sent.
    func didReceiveResponse(_ result: Result<TransportResponse, KonexError>, for request: URLRequest) async
}

extension KonexPlugin {
    public func didSendRequest(_ request: URLRequest) async {}
    public func didReceiveResponse(_ result: Result<TransportResponse, KonexError>, for request: URLRequest) async {}
}

/// What one attempt got back from the transport, with Konex's own timing.
public struct TransportResponse: Sendable {
    /// The HTTP response head.
    public let response: HTTPURLResponse
    /// The body as received (before processors).
    public let data: Data
    /// When the attempt started and how long it took.
    public let timing: RequestTiming
    /// Where the body was written, for `download(to:)`; `data` then holds only the start of an error body (up to
    /// 64 KB, when the status is outside 200..<300) and is empty otherwise.
    public let file: URL?
    /// The body still arriving, when the request was streamed (Konex reads it; plugins see the head).
    var stream: ByteStream?

    /// Creates a transport response.
    public init(response: HTTPURLResponse, data: Data, timing: RequestTiming, file: URL? = nil) {
        self.response = response
        self.data = data
        self.timing = timing
        self.file = file
        stream = nil
    }
}

/// Timing measured by Konex itself (Linux never delivers `URLSessionTaskMetrics`).
public struct RequestTiming: Sendable, Hashable {
    /// Wall-clock time when the first attempt started.
    public var startDate: Date
    /// From the start of the first attempt to the end of the last attempt's transport call.
    public var total: Duration
    /// The last attempt's transport call alone.
    public var transport: Duration
    /// The attempt number, starting at 1.
    public var attempt: Int

    /// Creates a timing.
    public init(startDate: Date, total: Duration, transport: Duration, attempt: Int) {
        self.startDate = startDate
        self.total = total
        self.transport = transport
        self.attempt = attempt
    }
}
