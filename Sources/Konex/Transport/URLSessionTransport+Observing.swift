import Foundation

extension URLSessionTransport {
    /// `true`: with a progress handler set, a request goes through the streaming session, whose delegate hears
    /// `didSendBodyData` and each chunk of the body, on Linux as on Apple platforms.
    public var reportsIncrementalProgress: Bool { true }

    /// `true` on Apple platforms, where a task's own delegate receives `URLSessionTaskMetrics`; `false` on Linux,
    /// where FoundationNetworking never delivers them (so no request pays for a delegate that hears nothing).
    public var reportsTransferPhases: Bool {
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
        observer.progress?(TransferProgress(uploaded: totalBytesSent, expected: totalBytesExpectedToSend))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        if let phases = TransferPhases(metrics) { observer.phases(phases) }
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
