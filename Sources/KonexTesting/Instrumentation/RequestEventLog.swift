import Foundation
import Konex

/// An instrument that writes down what every request did, for tests: starts, attempts, retries and ends, in order.
///
/// Assert on what the pipeline did without a tracing or metrics backend:
/// ```swift
/// let log = RequestEventLog()
/// let client = KonexClient(baseURL: api, transport: mock, retriers: [RetryPolicy()], instruments: [log])
/// _ = try await client.request(GetPosts()).validate().responseData()
/// #expect(log.events.map(\.description) == [
///     "start GET /posts (data)", "send #1", "receive #1: 503", "retry #1: 503 after 0.0 seconds",
///     "send #2", "receive #2: 200", "end after 2 attempts: 200",
/// ])
/// ```
public final class RequestEventLog: RequestInstrument {
    /// One thing that happened to a request.
    public enum Event: Sendable, Hashable, CustomStringConvertible {
        /// A request started: its method, its URL's path, its kind.
        case start(method: HTTPMethod, path: String, kind: InstrumentedRequest.Kind)
        /// An attempt is about to be sent.
        case send(attempt: Int)
        /// An attempt came back from the transport: its status code, or its error type; where from.
        case receive(attempt: Int, outcome: String, source: ResponseSource)
        /// A retrier asked for another attempt.
        case retry(attempt: Int, errorType: String, delay: Duration, refreshesToken: Bool)
        /// The request ended: its status code, or its error type.
        case end(attempts: Int, outcome: String)

        public var description: String {
            switch self {
            case .start(let method, let path, let kind): "start \(method.rawValue) \(path) (\(kind))"
            case .send(let attempt): "send #\(attempt)"
            case .receive(let attempt, let outcome, let source):
                "receive #\(attempt): \(outcome)" + (source == .network ? "" : " from \(source)")
            case .retry(let attempt, let errorType, let delay, let refreshesToken):
                "retry #\(attempt): \(errorType) after \(delay)" + (refreshesToken ? ", refreshing the token" : "")
            case .end(let attempts, let outcome):
                "end after \(attempts) attempt\(attempts == 1 ? "" : "s"): \(outcome)"
            }
        }
    }

    private let log = Lock<[Event]>([])

    /// Creates an empty log.
    public init() {}

    /// Everything recorded so far, in order (requests running at once interleave).
    public var events: [Event] { log.value }

    /// Forgets what was recorded.
    public func removeAll() { log.value = [] }

    public func requestWillStart(_ request: InstrumentedRequest) -> (any RequestRecorder)? {
        append(.start(method: request.method, path: request.url?.path ?? "", kind: request.kind))
        return Recorder(log: self)
    }

    fileprivate func append(_ event: Event) { log.withLock { $0.append(event) } }

    private struct Recorder: RequestRecorder {
        let log: RequestEventLog

        func attemptWillSend(_ request: inout TransportRequest, attempt: Int) { log.append(.send(attempt: attempt)) }

        func attemptDidEnd(_ result: Result<ReceivedResponse, KonexError>, attempt: Int) {
            switch result {
            case .success(let response):
                log.append(
                    .receive(attempt: attempt, outcome: String(response.response.statusCode), source: response.source))
            case .failure(let error):
                log.append(.receive(attempt: attempt, outcome: error.errorType, source: .network))
            }
        }

        func willRetry(_ retry: RetryEvent) {
            log.append(
                .retry(
                    attempt: retry.attempt, errorType: retry.error.errorType, delay: retry.delay,
                    refreshesToken: retry.refreshesToken))
        }

        func requestDidEnd(_ end: RequestEnd) {
            let outcome =
                switch end.result {
                case .success(let response): String(response.statusCode)
                case .failure(let error): error.errorType
                }
            log.append(.end(attempts: end.attempts, outcome: outcome))
        }
    }
}
