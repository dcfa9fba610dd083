import Foundation

/// A transport that hands back the response head as soon as it arrives and the body as it comes, for
/// ``DataRequest/stream(bufferLimit:idleTimeout:totalTimeout:)``.
///
/// ``URLSessionTransport`` is one; KonexTesting's `MockTransport` is another. Over a transport that is not, `stream()`
/// still works: the body arrives as one chunk once it is complete.
public protocol StreamingTransport: Transport {
    /// Sends `request` and returns when the head arrives.
    /// - Parameters:
    ///   - request: The fully built, adapted request.
    ///   - bufferLimit: The most bytes to hold for a slow reader (see ``ByteStream/makeStream(bufferLimit:onCancel:)``).
    /// - Returns: The head, and the body as it arrives.
    /// - Throws: Any error when no HTTP response head was received.
    func stream(_ request: URLRequest, bufferLimit: Int) async throws -> (HTTPURLResponse, ByteStream)

    /// Streams `request` as ``stream(_:bufferLimit:)`` does, reporting the bytes of the request body as they go out
    /// (and, where the system measures them, the phase timings) to `observer`.
    ///
    /// Konex streams through this when a progress handler is set and ``Transport/reportsIncrementalProgress`` is
    /// `true`; it counts the body's chunks itself. The default ignores `observer`.
    /// - Parameters:
    ///   - request: The fully built, adapted request.
    ///   - bufferLimit: The most bytes to hold for a slow reader.
    ///   - observer: Where upload progress and phase timings go.
    /// - Returns: The head, and the body as it arrives.
    /// - Throws: Any error when no HTTP response head was received.
    func stream(_ request: URLRequest, bufferLimit: Int, observer: TransferObserver) async throws
        -> (HTTPURLResponse, ByteStream)
}

extension StreamingTransport {
    public func stream(_ request: URLRequest, bufferLimit: Int, observer: TransferObserver) async throws
        -> (HTTPURLResponse, ByteStream)
    {
        try await stream(request, bufferLimit: bufferLimit)
    }
}
