import Foundation

extension URLSessionTransport {
    /// Sends `request` through a data task whose session delegate receives the head and each chunk as it arrives
    /// (FoundationNetworking has no `bytes(for:)`; a session-level data delegate works the same on every platform).
    public func stream(_ request: URLRequest, bufferLimit: Int) async throws -> (HTTPURLResponse, ByteStream) {
        try await stream(request, bufferLimit: bufferLimit, observer: nil)
    }

    /// Streams `request`; the session delegate forwards `didSendBodyData` (FoundationNetworking sends it too) and,
    /// on Apple platforms, `URLSessionTaskMetrics` to `observer`.
    public func stream(_ request: URLRequest, bufferLimit: Int, observer: TransferObserver) async throws
        -> (HTTPURLResponse, ByteStream)
    {
        try await stream(request, bufferLimit: bufferLimit, observer: Optional(observer))
    }

    private func stream(_ request: URLRequest, bufferLimit: Int, observer: TransferObserver?) async throws
        -> (HTTPURLResponse, ByteStream)
    {
        let (session, delegate) = streamingSession()
        let task = session.dataTask(with: Self.prepared(request))
        let (body, chunks) = ByteStream.makeStream(bufferLimit: bufferLimit) { task.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { head in
                delegate.register(task, head: head, body: body, chunks: chunks, observer: observer)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }
}
