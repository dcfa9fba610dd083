import Foundation

/// The progress events of one attempt, in the order a caller can rely on: upload from 0 to the body's size, then
/// download from 0 to what arrived, each direction ending on its total, each event moving forward.
struct ProgressReport: Sendable {
    let handler: @Sendable (TransferProgress) -> Void
    let uploadSize: Int64
    /// The last upload count said (libcurl's progress callback repeats itself, and a late one must not go
    /// backwards), and whether the download's end was said.
    private let said = Lock<(uploaded: Int64, finished: Bool)>((-1, false))

    init(_ handler: @escaping @Sendable (TransferProgress) -> Void, request: TransportRequest) {
        self.handler = handler
        uploadSize = Self.uploadSize(of: request)
    }

    /// The request body's size, a file's included (a compressed body past 1 MiB is one).
    // Not inlined: inlined where the report is made, it took room in every request's async frame.
    @inline(never) private static func uploadSize(of request: TransportRequest) -> Int64 {
        Int64(request.body?.byteCount ?? 0)
    }

    /// Nothing has moved yet.
    func started() { upload(TransferProgress(direction: .upload, completedBytes: 0, totalBytes: uploadSize)) }

    /// Upload progress from a transport: passed on only when it moves forward.
    func upload(_ progress: TransferProgress) {
        let forward = said.withLock { said in
            guard progress.completedBytes > said.uploaded else { return false }
            said.uploaded = progress.completedBytes
            return true
        }
        if forward { handler(progress) }
    }

    /// The head arrived: the request body is all sent, and the response body starts.
    func headArrived(_ response: ResponseHead) {
        upload(TransferProgress(direction: .upload, completedBytes: uploadSize, totalBytes: uploadSize))
        handler(TransferProgress(direction: .download, completedBytes: 0, totalBytes: Self.expected(response)))
    }

    /// `received` bytes of the body so far.
    func received(_ received: Int64, of response: ResponseHead) {
        handler(TransferProgress(direction: .download, completedBytes: received, totalBytes: Self.expected(response)))
    }

    /// The body is complete; the total is now known (said once more only when the last event did not say it).
    func finished(_ received: Int64, of response: ResponseHead, counted: Bool) {
        said.withLock { $0.finished = true }
        if counted, received > 0, Self.expected(response) == received { return }
        handler(TransferProgress(direction: .download, completedBytes: received, totalBytes: received))
    }

    /// Says the ends of an answer whose body was not counted as it came: whole already (a transport's, a cache's, a
    /// mock's), in a file, or a stream counted from now on.
    // Not inlined: it would take room in every request's async frame, reported or not.
    @inline(never) func answered(by reply: TransportReply) {
        headArrived(reply.response)
        if let stream = reply.stream {
            counts(stream, of: reply.response)
        } else {
            let size = reply.body.file.map(BodyFile.size(of:)) ?? Int64(reply.dataInMemory.count)
            finished(size, of: reply.response, counted: false)
        }
    }

    /// Counts a streamed body as its chunks arrive (the bytes already held first), and says its end when it ends
    /// cleanly: what `stream()` reports, read however the caller reads it.
    func counts(_ stream: ByteStream, of response: ResponseHead) {
        let received = Lock(Int64(0))
        let heldBeforeHook = stream.buffer.onArrival { count in
            let total = received.withLock { received in
                received += Int64(count)
                return received
            }
            self.received(total, of: response)
        }
        let held = Int64(stream.heldBytes + heldBeforeHook)
        let start = received.withLock { received in
            received += held
            return received
        }
        if start > 0 { self.received(start, of: response) }
        stream.buffer.onEnd { [buffer = stream.buffer] in
            guard buffer.endError == nil else { return }
            self.finished(received.value, of: response, counted: true)
        }
    }

    /// Whether the download's end was said already (the body was counted as it came).
    var hasFinished: Bool { said.withLock { $0.finished } }

    private static func expected(_ response: ResponseHead) -> Int64? {
        response.expectedContentLength >= 0 ? response.expectedContentLength : nil
    }
}
