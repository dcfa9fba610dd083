import Foundation
import Konex

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The streaming baseline: a URLSession with a plain data delegate, no Konex. It reports when the first body byte
/// arrives and how many bytes arrived in all.
final class RawStreamer: NSObject, URLSessionDataDelegate, Sendable {
    private struct Pending {
        var firstByte: CheckedContinuation<Void, Never>?
        var done: CheckedContinuation<Int, any Error>?
        var bytes = 0
    }

    private let pending = Lock<[Int: Pending]>([:])
    private let session = Lock<URLSession?>(nil)

    override init() {
        super.init()
        session.value = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
    }

    /// Waits for the first body byte, then cancels the task.
    func timeToFirstByte(_ url: URL) async {
        let task = session.value!.dataTask(with: URLRequest(url: url))
        await withCheckedContinuation { continuation in
            pending.withLock { $0[task.taskIdentifier] = Pending(firstByte: continuation) }
            task.resume()
        }
        task.cancel()
    }

    /// Reads the whole body, counting bytes.
    func count(_ url: URL) async throws -> Int {
        let task = session.value!.dataTask(with: URLRequest(url: url))
        return try await withCheckedThrowingContinuation { continuation in
            pending.withLock { $0[task.taskIdentifier] = Pending(done: continuation) }
            task.resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let first = pending.withLock { pending -> CheckedContinuation<Void, Never>? in
            pending[dataTask.taskIdentifier]?.bytes += data.count
            defer { pending[dataTask.taskIdentifier]?.firstByte = nil }
            return pending[dataTask.taskIdentifier]?.firstByte
        }
        first?.resume()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error { entry.done?.resume(throwing: error) } else { entry.done?.resume(returning: entry.bytes) }
    }
}
