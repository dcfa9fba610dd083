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
}
