import Foundation

extension Received {
    /// An attempt's exchange and what it answers.
    typealias Exchanged = (Data, ResponseHead, Body, TransportReply?)

    /// Runs one attempt's exchange within `limit` on `clock`: past it the caller gets a timeout at once and the
    /// exchange is cancelled. The caller does not wait for the exchange to stop (a transport slow to honour
    /// cancellation would stretch the limit to the body's end); whatever it answers late is cleaned up. Only a call
    /// with a total timeout pays for this: two tasks and a sleep.
    /// - Throws: ``TransportFailure`` of kind ``TransportFailure/Kind/timedOut`` past the limit; the exchange's errors.
    static func within(
        _ limit: Duration, on clock: any Clock<Duration>, url: URL,
        _ exchange: @escaping @Sendable () async throws -> Exchanged
    ) async throws -> Exchanged {
        let race = Race()
        // Unstructured, so the caller can leave before it ends; it inherits the task-local values (the operation,
        // the redaction, a scoped transport) as a child would.
        let work = Task {
            do {
                let answer = try await exchange()
                if !race.finish(.success(answer)) {
                    // Too late: nobody reads it.
                    BodyFile.remove(answer.2.file)
                    answer.2.stream?.cancel()
                    answer.2.webSocket?.abort()
                }
            } catch {
                race.finish(.failure(error))
            }
        }
        let timer = Task {
            do { try await clock.sleep(for: limit) } catch { return }
            race.finish(.failure(TransportFailure(.timedOut, url: url, underlying: TotalTimeoutExceeded(limit: limit))))
            {
                work.cancel()
            }
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await race.value
        } onCancel: {
            race.finish(.failure(CancellationError())) { work.cancel() }
        }
    }

    /// The first of the exchange, the timer and the caller's cancellation to finish decides; the others are ignored.
    private final class Race: Sendable {
        private enum State {
            case waiting(CheckedContinuation<Exchanged, any Error>?)
            case decided(Result<Exchanged, any Error>?)
        }

        private let state = Lock(State.waiting(nil))

        /// Decides with `result` when nothing has yet; `beforeResuming` runs between deciding and resuming the caller
        /// (cancelling the exchange there means it has stopped sleeping by the time the caller looks).
        /// - Returns: Whether `result` decided.
        @discardableResult
        func finish(_ result: Result<Exchanged, any Error>, beforeResuming: () -> Void = {}) -> Bool {
            let waiter: CheckedContinuation<Exchanged, any Error>?? = state.withLock { state in
                guard case .waiting(let continuation) = state else { return nil }
                state = .decided(continuation == nil ? result : nil)
                return .some(continuation)
            }
            guard let waiter else { return false }
            beforeResuming()
            waiter?.resume(with: result)
            return true
        }

        /// The deciding result, once there is one.
        var value: Exchanged {
            get async throws {
                try await withCheckedThrowingContinuation { continuation in
                    let decided: Result<Exchanged, any Error>? = state.withLock { state in
                        switch state {
                        case .waiting:
                            state = .waiting(continuation)
                            return nil
                        case .decided(let result):
                            return result
                        }
                    }
                    if let decided { continuation.resume(with: decided) }
                }
            }
        }
    }
}

/// Why an attempt timed out when its total timeout passed: the underlying error of its ``TransportFailure``.
public struct TotalTimeoutExceeded: Error, Sendable, CustomStringConvertible {
    /// The limit that passed.
    public let limit: Duration

    public var description: String { "the exchange ran longer than its total timeout of \(limit)" }
}
