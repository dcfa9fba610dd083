import Foundation

extension URLSessionTransport {
    /// `true` on Apple platforms, where a task's own delegate hears `didSendBodyData` and `URLSessionTaskMetrics`;
    /// `false` on Linux, where FoundationNetworking reports neither (its `data(for:)` delivers only the end).
    public var reportsIncrementalProgress: Bool {
        #if canImport(Darwin)
            true
        #else
            false
        #endif
    }

    /// Sends `request` with a delegate for this task alone that reports upload progress and the phase timings.
    public func send(_ request: URLRequest, observer: TransferObserver) async throws -> (Data, HTTPURLResponse) {
        try await exchange(request, delegate: TaskObserver(observer: observer))
    }
}

/// One task's delegate: forwards body bytes sent and folds `URLSessionTaskMetrics` into ``TransferPhases``.
final class TaskObserver: NSObject, URLSessionTaskDelegate, Sendable {
    let observer: TransferObserver

    init(observer: TransferObserver) { self.observer = observer }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        observer.progress?(
            TransferProgress(
                direction: .upload, completedBytes: totalBytesSent,
                totalBytes: totalBytesExpectedToSend > 0 ? totalBytesExpectedToSend : nil))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        guard let last = metrics.transactionMetrics.last else { return }
        func span(_ start: Date?, _ end: Date?) -> Duration? {
            guard let start, let end, end >= start else { return nil }
            return .microseconds(Int64((end.timeIntervalSince(start) * 1_000_000).rounded()))
        }
        observer.phases(
            TransferPhases(
                domainLookup: span(last.domainLookupStartDate, last.domainLookupEndDate),
                connect: span(last.connectStartDate, last.connectEndDate),
                secureConnection: span(last.secureConnectionStartDate, last.secureConnectionEndDate),
                firstByte: span(last.requestStartDate, last.responseStartDate),
                download: span(last.responseStartDate, last.responseEndDate)))
    }
}
