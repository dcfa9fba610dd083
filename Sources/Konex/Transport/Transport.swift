import Foundation

/// Moves one request's bytes and hands back the response head and body: the only way Konex touches the network.
///
/// A transport does one thing: send the head and body, and return the response head as soon as it arrives with the
/// body as it comes. Konex owns the policy above it, the same over every transport: redirects (a transport never
/// follows one; it returns the 3xx), writing bodies to files, progress, ``KonexClient/maximumResponseSize``, the
/// interceptors, retries and decoding. ``URLSessionTransport`` is the default; KonexTesting ships `MockTransport`,
/// `FixtureTransport` and `RecordingTransport`, and `TransportContract` checks a transport of your own.
/// ```swift
/// struct Teapot: Transport {
///     func send(_ request: TransportRequest, context: TransportContext) async throws -> (ResponseHead, ResponseBody) {
///         (ResponseHead(statusCode: 418, url: request.url), ResponseBody(Data("short and stout".utf8)))
///     }
/// }
/// let client = KonexClient(transport: Teapot())
/// ```
///
/// A transport should throw `CancellationError` (or `URLError(.cancelled)`) when its task is cancelled; any
/// other error is reported as stage ``KonexError/Stage/transport`` with the error as `underlyingError`.
public protocol Transport: TLSCapable {
    /// Sends `request` and returns when the response head arrives, with the body as it comes.
    /// - Parameters:
    ///   - request: The fully built, adapted request: head and body.
    ///   - context: How the caller takes the body, and where to report upload progress and phase timings.
    /// - Returns: The head, and the body: whole when the transport has it all (cheapest for
    ///   ``BodyDelivery/whole``), else a stream.
    /// - Throws: Any error when no response head was received; a body's errors come through the body.
    func send(_ request: TransportRequest, context: TransportContext) async throws -> (ResponseHead, ResponseBody)

    /// The redirects a client over this transport follows when the client sets no ``RedirectPolicy`` of its own;
    /// ``RedirectPolicy/follow`` by default. A transport never follows a redirect itself: it returns the 3xx, and Konex
    /// follows it by the rules ``RedirectPolicy`` lists, the same over every transport.
    var redirectPolicy: RedirectPolicy { get }
}

extension Transport {
    public var redirectPolicy: RedirectPolicy { .follow }

    /// Sends `request` and reads the whole body (for code that calls a transport directly).
    /// - Parameter request: The request.
    /// - Returns: The body and the response head.
    public func data(for request: TransportRequest) async throws -> (Data, ResponseHead) {
        let (head, body) = try await send(request, context: TransportContext())
        return (try await body.collect(upTo: .max), head)
    }

    /// Sends a Foundation request and reads the whole body (for code that calls a transport directly).
    /// - Parameter request: The request, read as a ``TransportRequest``.
    /// - Returns: The body and the response head.
    public func data(for request: URLRequest) async throws -> (Data, ResponseHead) {
        try await data(for: TransportRequest(request))
    }
}
