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
    /// Best effort, and honest about it: when the transport cannot observe bytes in flight
    /// (``Transport/reportsIncrementalProgress`` is `false`, as for `URLSessionTransport` on FoundationNetworking,
    /// whose `data(for:)` reports nothing), only the start and the end of each direction are reported, never
    /// invented intermediate values.
    /// - Parameter handler: Called with each progress event, in order.
    public func onProgress(_ handler: @escaping @Sendable (TransferProgress) -> Void) -> DataRequest {
        var copy = self
        copy.progress = handler
        return copy
    }

    /// Downloads the (processed) body to `destination`, moved into place atomically.
    ///
    /// The body is written to a temporary file beside `destination` and renamed over it, so `destination` is either
    /// the old file or the complete new one; the temporary file is removed on failure and on cancellation.
    /// ```swift
    /// let file = try await client.request("/report.pdf").validate().download(to: reportsFolder.appending(path: "q3.pdf"))
    /// ```
    /// - Parameter destination: A file URL; its directory must exist.
    /// - Returns: The destination with the request, response and timing.
    /// - Throws: ``KonexError``; a failure to write is stage ``KonexError/Stage/fileSystem``.
    public func download(to destination: URL) async throws -> Response<URL> {
        let response = try await self.response()
        let temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).konex-part")
        do {
            if Task.isCancelled { throw cancellationError(response.request) }
            try response.value.write(to: temporary)
            if Task.isCancelled { throw cancellationError(response.request) }
            guard rename(temporary.path, destination.path) == 0 else {
                throw CocoaError(
                    .fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            if let error = error as? KonexError { throw error }
            throw KonexError(
                stage: .fileSystem,
                message: "cannot write the download to \(destination.path): \(error.localizedDescription)",
                method: HTTPMethod(response.request.httpMethod ?? "GET"), url: response.request.url,
                request: response.request,
                response: response.response, underlyingError: error, attempt: response.timing.attempt)
        }
        return response.map { _ in destination }
    }
}
