// The only file that names FoundationNetworking. Re-exporting it means `import Konex` alone gives Linux users
// URLRequest and HTTPURLResponse, as Foundation does on Apple platforms.
#if canImport(FoundationNetworking)
    @_exported import FoundationNetworking
#endif
import Foundation

/// The default transport: `URLSession`'s `data(for:)`, with a delegate that applies the ``RedirectPolicy`` and
/// answers authentication challenges (an unanswered 401 challenge has hung FoundationNetworking in the past).
///
/// ```swift
/// let transport = URLSessionTransport(configuration: .ephemeral, redirectPolicy: .limit(3))
/// let client = KonexClient(baseURL: url, transport: transport)
/// ```
public final class URLSessionTransport: Transport {
    /// The session requests go through.
    public let session: URLSession
    private let ownsSession: Bool

    /// Creates a transport over a session you own; its delegate, if any, stays in charge of redirects.
    /// - Parameter session: The session to use.
    public init(session: URLSession) {
        self.session = session
        ownsSession = false
    }

    /// Creates a transport with its own session.
    /// - Parameters:
    ///   - configuration: The session configuration; `.default` by default.
    ///   - redirectPolicy: What to do with 3xx redirects; `.follow` by default.
    public init(configuration: URLSessionConfiguration = .default, redirectPolicy: RedirectPolicy = .follow) {
        let delegate = SessionDelegate(redirectPolicy: redirectPolicy)
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        ownsSession = true
    }

    deinit {
        // A session retains its delegate until invalidated; ours is private, so let it go with us.
        if ownsSession { session.finishTasksAndInvalidate() }
    }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        var request = request
        #if canImport(FoundationNetworking)
            // FoundationNetworking truncates timeoutInterval to whole seconds, so 0.5 s would time out at once.
            request.timeoutInterval = request.timeoutInterval.rounded(.up)
        #endif
        let session = self.session
        let delegate = session.delegate as? SessionDelegate
        let running = RunningTask()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request) { data, response, error in
                    let challenged = running.identifier.flatMap { delegate?.takeChallengedResponse(of: $0) }
                    if let error {
                        // A challenge we declined ends as "cancelled"; it was really the server's 401.
                        if let challenged, !running.isCancelled, (error as? URLError)?.code == .cancelled {
                            continuation.resume(returning: (Data(), challenged))
                        } else {
                            continuation.resume(throwing: error)
                        }
                    } else if let http = response as? HTTPURLResponse {
                        continuation.resume(returning: (data ?? Data(), http))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                running.start(task)
            }
        } onCancel: {
            running.cancel()
        }
    }
}

/// The data task behind one `send`, so cancelling the Swift task cancels it even before it started.
private final class RunningTask: Sendable {
    private struct State: @unchecked Sendable {  // URLSessionTask is thread-safe but not marked Sendable everywhere.
        var task: URLSessionDataTask?
        var cancelled = false
    }
    private let state = Lock(State())

    var identifier: Int? { state.withLock { $0.task?.taskIdentifier } }
    var isCancelled: Bool { state.withLock { $0.cancelled } }

    func start(_ task: URLSessionDataTask) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        task.resume()
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}

/// What a transport does when the server answers with a redirect.
public struct RedirectPolicy: Sendable {
    let decide: @Sendable (_ redirect: URLRequest, _ response: HTTPURLResponse, _ count: Int) -> URLRequest?

    /// Creates a policy from a closure; return the request to follow, or `nil` to stop and return the 3xx.
    /// - Parameter decide: Given the proposed request, the 3xx response, and how many redirects came before it.
    public init(_ decide: @escaping @Sendable (URLRequest, HTTPURLResponse, Int) -> URLRequest?) {
        self.decide = decide
    }

    /// Follows every redirect (URLSession's own limit applies).
    public static let follow = RedirectPolicy { request, _, _ in request }
    /// Never follows: the 3xx response is returned as is.
    public static let doNotFollow = RedirectPolicy { _, _, _ in nil }
    /// Follows at most `maximum` redirects, then returns the last 3xx response.
    public static func limit(_ maximum: Int) -> RedirectPolicy {
        RedirectPolicy { request, _, count in count < maximum ? request : nil }
    }
}

private final class SessionDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    let redirectPolicy: RedirectPolicy
    // Redirects followed so far per task; a task lives on one session, so its identifier is a stable key.
    private let redirectCounts = Lock<[Int: Int]>([:])
    // The 401/407 responses of challenges declined on FoundationNetworking, until `send` collects them.
    private let challenged = Lock<[Int: HTTPURLResponse]>([:])

    func takeChallengedResponse(of task: Int) -> HTTPURLResponse? {
        challenged.withLock { $0.removeValue(forKey: task) }
    }

    init(redirectPolicy: RedirectPolicy) { self.redirectPolicy = redirectPolicy }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        let count = redirectCounts.withLock { counts in
            let count = counts[task.taskIdentifier, default: 0]
            counts[task.taskIdentifier] = count + 1
            return count
        }
        completionHandler(redirectPolicy.decide(request, response, count))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        redirectCounts.withLock { _ = $0.removeValue(forKey: task.taskIdentifier) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // Credentials travel as headers set by adapters, so a server challenge goes back to the caller as the 401.
        #if canImport(FoundationNetworking)
            // FoundationNetworking hangs on default handling without a credential and cancels on rejection, so
            // decline and let `send` hand back the challenge's response (its body is lost with the transfer).
            if let response = challenge.failureResponse as? HTTPURLResponse {
                challenged.withLock { $0[task.taskIdentifier] = response }
            }
            completionHandler(.cancelAuthenticationChallenge, nil)
        #else
            completionHandler(.performDefaultHandling, nil)
        #endif
    }
}
