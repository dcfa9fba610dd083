import Foundation

/// One task's delegate: forwards body bytes sent and folds `URLSessionTaskMetrics` into ``TransferPhases``.
final class TaskObserver: NSObject, URLSessionTaskDelegate, Sendable {
    let observer: TransferObserver

    init(observer: TransferObserver) { self.observer = observer }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        observer.progress?(TransferProgress(uploaded: totalBytesSent, expected: totalBytesExpectedToSend))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        if let phases = TransferPhases(metrics) { observer.phases?(phases) }
    }
}

extension TransferProgress {
    /// Upload progress as a session delegate reports it (an expected size of 0 or less means unknown).
    init(uploaded: Int64, expected: Int64) {
        self.init(direction: .upload, completedBytes: uploaded, totalBytes: expected > 0 ? expected : nil)
    }
}

extension TransferPhases {
    /// The phases of the last transaction (the one that answered, after any redirects), or `nil` without one.
    init?(_ metrics: URLSessionTaskMetrics) {
        guard let last = metrics.transactionMetrics.last else { return nil }
        func span(_ start: Date?, _ end: Date?) -> Duration? {
            guard let start, let end, end >= start else { return nil }
            return .microseconds(Int64((end.timeIntervalSince(start) * 1_000_000).rounded()))
        }
        self.init(
            domainLookup: span(last.domainLookupStartDate, last.domainLookupEndDate),
            connect: span(last.connectStartDate, last.connectEndDate),
            secureConnection: span(last.secureConnectionStartDate, last.secureConnectionEndDate),
            firstByte: span(last.requestStartDate, last.responseStartDate),
            download: span(last.responseStartDate, last.responseEndDate))
    }
}
