import Foundation

/// How far a transfer has come.
public struct TransferProgress: Sendable, Hashable {
    /// Which way the bytes move.
    public enum Direction: Sendable, Hashable {
        /// The request body going out.
        case upload
        /// The response body coming in.
        case download
    }

    /// Which way the bytes move.
    public let direction: Direction
    /// Bytes transferred so far.
    public let completedBytes: Int64
    /// Bytes expected, when known.
    public let totalBytes: Int64?

    /// Creates a progress value.
    public init(direction: Direction, completedBytes: Int64, totalBytes: Int64?) {
        self.direction = direction
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// `completedBytes / totalBytes`, when the total is known.
    public var fractionCompleted: Double? {
        guard let totalBytes, totalBytes > 0 else { return nil }
        return Double(completedBytes) / Double(totalBytes)
    }
}

extension DataRequest {
    /// Reports upload and download progress to `handler`.
    ///
    /// Events come in order: upload from 0 to the body's size, then download from 0 to what arrived, each direction
    /// ending on its total (a body without `Content-Length` learns its total at the end). Over ``URLSessionTransport``
    /// the request goes through its streaming session, whose delegate hears the request body leave and each chunk of
    /// the response arrive, on Linux as on Apple platforms; `download(to:)` then writes the chunks to its file as they
    /// come. Over a transport that returns bodies whole (a mock, say) only the start and the end of each direction are
    /// reported, never invented intermediate values.
    /// ```swift
    /// let file = try await client.request("/exports/q3.pdf")
    ///     .onProgress { progress in print(progress.direction, progress.fractionCompleted ?? 0) }
    ///     .download(to: destination)
    /// ```
    /// - Parameter handler: Called with each progress event, in order, on the transport's delegate queue.
    public consuming func onProgress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> DataRequest {
        var copy = self
        copy.progress = handler
        return copy
    }

    /// Downloads the body to `destination`, streamed to disk and moved into place atomically.
    ///
    /// Konex writes the body to a temporary file as it arrives, over every transport (``URLSessionTransport`` writes it
    /// itself, with a download task), so a 1 GB download costs kilobytes of memory and `maximumResponseSize` does not
    /// apply; a body a transport returns whole is written at once. The file is then renamed over `destination`, so `destination` is
    /// either the old file or the complete new one; the temporary file is removed on failure and on cancellation.
    /// Validators see the status and headers (and the start of an error body); processors do not apply, since the
    /// file holds the body as received.
    /// ```swift
    /// let file = try await client.request("/report.pdf").validate().download(to: reportsFolder.appendingPathComponent("q3.pdf"))
    /// ```
    /// - Parameter destination: A file URL; its directory must exist.
    /// - Returns: The destination with the request, response and timing.
    /// - Throws: ``KonexError``; a failure to write is stage ``KonexError/Stage/fileSystem``.
    public func download(to destination: URL) async throws -> Response<URL> {
        let answer = try await execute(body: .file)
        let request = answer.request
        let file = try answer.bodyFile()
        do {
            if Task.isCancelled { throw cancellationError(request) }
            try BodyFile.move(file, to: destination)
        } catch {
            BodyFile.remove(file)
            if let error = error as? KonexError { throw error }
            throw KonexError(
                stage: .fileSystem,
                message: "cannot write the download to \(destination.path): \(error.localizedDescription)",
                method: request.method, url: request.url,
                request: request, response: answer.response, underlyingError: error,
                attempt: answer.timing.attempt)
        }
        return Response(
            value: destination, request: request, response: answer.response, data: answer.data,
            timing: answer.timing, redirects: answer.redirects)
    }
}
