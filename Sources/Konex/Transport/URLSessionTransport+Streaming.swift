import Foundation

extension URLSessionTransport {
    /// Sends `request` through a data task whose session delegate receives the head and each chunk as it arrives
    /// (FoundationNetworking has no `bytes(for:)`; a session-level data delegate works the same on every platform),
    /// forwarding `didSendBodyData` and, on Apple platforms, `URLSessionTaskMetrics` to `observer`.
    func stream(_ request: URLRequest, bufferLimit: Int, observer: TransferObserver?) async throws
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
