import Foundation

/// One task's delegate: forwards body bytes sent and folds `URLSessionTaskMetrics` into ``TransferPhases``.
///
/// A task delegate that implements a method takes it from the session's delegate, so both go on to the delegate of
/// a session the caller handed ``URLSessionTransport/init(session:redirectPolicy:)`` too: its metrics and upload
/// progress must not stop because Konex watches the same task.
final class TaskObserver: NSObject, URLSessionTaskDelegate, Sendable {
    let observer: TransferObserver
    /// The caller's session delegate, when the session was the caller's.
    let forwardee: (any URLSessionTaskDelegate)?

    init(observer: TransferObserver, forwardingTo forwardee: (any URLSessionDelegate)? = nil) {
        self.observer = observer
        self.forwardee = forwardee as? any URLSessionTaskDelegate
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        observer.progress?(TransferProgress(uploaded: totalBytesSent, expected: totalBytesExpectedToSend))
        #if canImport(Darwin)
            forwardee?.urlSession?(
                session, task: task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent,
                totalBytesExpectedToSend: totalBytesExpectedToSend)
        #else
            forwardee?.urlSession(
                session, task: task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent,
                totalBytesExpectedToSend: totalBytesExpectedToSend)
        #endif
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        if let phases = TransferPhases(metrics) { observer.phases?(phases) }
        #if canImport(Darwin)
            forwardee?.urlSession?(session, task: task, didFinishCollecting: metrics)
        #else
            forwardee?.urlSession(session, task: task, didFinishCollecting: metrics)
        #endif
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
