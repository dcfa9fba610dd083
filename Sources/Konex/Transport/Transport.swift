import Foundation

/// Sends one request and returns the response: the only way Konex touches the network.
///
/// ``URLSessionTransport`` is the default. Everything above a transport (building, adapters, plugins,
/// validation, retries, decoding) works the same over any transport, so a test double is a few lines;
/// KonexTesting ships `MockTransport` and `FixtureTransport`.
/// ```swift
/// struct Teapot: Transport {
///     func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
///         (Data("short and stout".utf8),
///          HTTPURLResponse(url: request.url!, statusCode: 418, httpVersion: "HTTP/1.1", headerFields: [:])!)
///     }
/// }
/// let client = KonexClient(transport: Teapot())
/// ```
///
/// A transport should throw `CancellationError` (or `URLError(.cancelled)`) when its task is cancelled; any
/// other error is reported as stage ``KonexError/Stage/transport`` with the error as `underlyingError`.
public protocol Transport: Sendable {
    /// Sends `request` and returns the body and response head.
    /// - Parameter request: The fully built, adapted request.
    /// - Returns: The body and the HTTP response.
    /// - Throws: Any error when no HTTP response was received.
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)

    /// Whether the transport can observe bytes while they move; `false` by default. When it is `false`, progress
    /// handlers hear only the start and the end of a transfer. A ``StreamingTransport`` that says `true` is streamed
    /// through the streaming transport's `stream(_:bufferLimit:observer:)` when a progress handler is set, and Konex
    /// counts the body's chunks as they arrive.
    var reportsIncrementalProgress: Bool { get }

    /// The redirects a client over this transport follows when the client sets no ``RedirectPolicy`` of its own;
    /// ``RedirectPolicy/follow`` by default. A transport never follows a redirect itself: it returns the 3xx, and Konex
    /// follows it by the rules ``RedirectPolicy`` lists, the same over every transport.
    var redirectPolicy: RedirectPolicy { get }
}

extension Transport {
    public var reportsIncrementalProgress: Bool { false }
    public var redirectPolicy: RedirectPolicy { .follow }
}

/// A transport that can write a response body straight to a file, so a download costs kilobytes of memory
/// whatever its size. `download(to:)` uses it when the client's transport has it; over any other transport the
/// body is received whole and then written.
public protocol DownloadTransport: Transport {
    /// Sends `request` and writes the body to a new temporary file, which the caller then owns (moves or removes).
    /// - Parameter request: The fully built, adapted request.
    /// - Returns: The file holding the body and the HTTP response.
    /// - Throws: Any error when no HTTP response was received.
    func download(_ request: URLRequest) async throws -> (URL, HTTPURLResponse)
}

/// A transport that reports what it sees of a transfer while it runs: the system's phase timings, and bytes sent.
/// Konex sends through it when ``reportsTransferPhases`` is `true` (and no streamed path is taken for progress).
public protocol ObservingTransport: Transport {
    /// Sends `request`, reporting to `observer` as the transfer goes.
    func send(_ request: URLRequest, observer: TransferObserver) async throws -> (Data, HTTPURLResponse)

    /// Whether ``send(_:observer:)`` is worth its cost for every request; `true` by default. Read once, when a client
    /// (or a `withTransport` scope) is made with this transport.
    var reportsTransferPhases: Bool { get }
}

extension ObservingTransport {
    public var reportsTransferPhases: Bool { true }
}

/// Where an ``ObservingTransport`` reports.
public struct TransferObserver: Sendable {
    /// Bytes moved so far, in either direction.
    public let progress: (@Sendable (TransferProgress) -> Void)?
    /// The phase timings, once known.
    public let phases: @Sendable (TransferPhases) -> Void

    /// Creates an observer.
    public init(
        progress: (@Sendable (TransferProgress) -> Void)?, phases: @escaping @Sendable (TransferPhases) -> Void
    ) {
        self.progress = progress
        self.phases = phases
    }
}
