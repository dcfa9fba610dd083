import Foundation

/// A request's upload and download progress as an `AsyncSequence`: each direction from 0 to its total, in order and
/// never backwards, ending when the request does.
///
/// Made by ``DataRequest/trackingProgress()``. Every successful request reports both ends of both directions, also
/// when its body was whole already, served by a cache or answered by a mock (which report only the ends); a transport
/// that streams reports the chunks in between, and `stream()` counts its body as it arrives. Within an attempt each
/// direction only moves forward; a retry starts its transfer again from zero (upload at 0), so the last update is
/// always the answer's own. A body of unknown length ends with its byte count as the total. The sequence finishes
/// when the request ends: after the body for `response…` and `download(to:)`, when the body ends for `stream()`, and
/// at once on a failure (without a made-up end), a refusal before anything was sent included.
/// ```swift
/// let (upload, progress) = client.request(UploadVideo(file: movie)).trackingProgress()
/// async let sent = upload.validate().response()
/// for await update in progress where update.direction == .upload {
///     bar.fraction = update.fractionCompleted ?? 0
/// }
/// let response = try await sent
/// ```
/// One sequence follows one terminal call: call `trackingProgress()` again for another. Updates wait for a reader
/// without bound, one per chunk the transport hands over.
public struct ProgressUpdates: AsyncSequence, Sendable {
    public typealias Element = TransferProgress

    let updates: AsyncStream<TransferProgress>

    public func makeAsyncIterator() -> AsyncStream<TransferProgress>.Iterator { updates.makeAsyncIterator() }

    /// The writing side, held by the request: it keeps each direction moving forward and finishes the sequence once.
    final class Sink: Sendable {
        private let continuation: AsyncStream<TransferProgress>.Continuation
        /// The furthest each direction has been said (upload, download), and whether the download's total was.
        private let said = Lock<(upload: Int64, download: Int64, downloadTotal: Bool, finished: Bool)>(
            (-1, -1, false, false))

        init(_ continuation: AsyncStream<TransferProgress>.Continuation) { self.continuation = continuation }

        /// Passes `progress` on when it moves its direction forward, first says where it starts, or first says a
        /// total that was unknown (a chunked body's end). An attempt's first event (upload at 0) after a transfer
        /// started begins again from zero: a retry's progress is its own, so the last update is the answer's.
        func yield(_ progress: TransferProgress) {
            let forward = said.withLock { said -> Bool in
                guard !said.finished else { return false }
                switch progress.direction {
                case .upload:
                    if progress.completedBytes == 0, said.upload > 0 || said.download >= 0 {
                        said = (-1, -1, false, false)  // a retry starts its transfer again
                    }
                    guard progress.completedBytes > said.upload else { return false }
                    said.upload = progress.completedBytes
                case .download:
                    let totalNewlyKnown =
                        progress.completedBytes == said.download && progress.totalBytes != nil && !said.downloadTotal
                    guard progress.completedBytes > said.download || totalNewlyKnown else { return false }
                    said.download = progress.completedBytes
                    said.downloadTotal = progress.totalBytes != nil
                }
                return true
            }
            if forward { continuation.yield(progress) }
        }

        /// Ends the sequence (once).
        func finish() {
            let first = said.withLock { said -> Bool in
                defer { said.finished = true }
                return !said.finished
            }
            if first { continuation.finish() }
        }
    }
}

extension DataRequest {
    /// This request, reporting its progress to the sequence returned with it.
    ///
    /// A closure set with ``onProgress(_:)`` still hears every event too.
    /// ```swift
    /// let (download, progress) = client.request("/exports/q3.pdf").trackingProgress()
    /// Task { for await update in progress { print(update.direction, update.fractionCompleted ?? 0) } }
    /// let file = try await download.download(to: destination)
    /// ```
    /// - Returns: The request to send, and its ``ProgressUpdates``.
    public func trackingProgress() -> (request: DataRequest, progress: ProgressUpdates) {
        let (stream, continuation) = AsyncStream<TransferProgress>.makeStream(bufferingPolicy: .unbounded)
        let sink = ProgressUpdates.Sink(continuation)
        var copy = self
        let earlier = progress
        copy.progress = { update in
            earlier?(update)
            sink.yield(update)
        }
        copy.progressSink = sink
        return (copy, ProgressUpdates(updates: stream))
    }

    /// ``execute(body:)`` for a request whose progress is a sequence: it ends with the request (for a stream, when its
    /// body ends).
    @inline(never) func tracked(body target: BodyTarget, into sink: ProgressUpdates.Sink) async throws
        -> ReceivedResponse
    {
        var untracked = self
        untracked.progressSink = nil
        do {
            let answer = try await untracked.execute(body: target)
            if let stream = answer.reply.stream {
                stream.buffer.onEnd { sink.finish() }
            } else {
                sink.finish()
            }
            return answer
        } catch {
            sink.finish()
            throw error
        }
    }
}
