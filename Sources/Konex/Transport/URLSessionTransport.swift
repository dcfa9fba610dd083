import Foundation

// The only file that names FoundationNetworking. Re-exporting it means `import Konex` alone gives Linux users
// URLRequest and HTTPURLResponse, as Foundation does on Apple platforms.
#if canImport(FoundationNetworking)
    @_exported import FoundationNetworking
#endif

/// The default transport: `URLSession`'s `data(for:)` (and `download(for:)` for downloads, which stream to disk),
/// with a delegate that applies the ``RedirectPolicy`` and answers authentication challenges (FoundationNetworking
/// can wait forever on a 401 challenge nobody answers).
///
/// ```swift
/// let transport = URLSessionTransport(configuration: .ephemeral, redirectPolicy: .limit(3))
/// let client = KonexClient(baseURL: url, transport: transport)
/// ```
public final class URLSessionTransport: DownloadTransport {
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
        let request = Self.prepared(request)
        do {
            // `data(for:)` is cheaper per request than a data task with a completion handler.
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
            return (data, http)
        } catch let error as URLError where error.code == .cancelled && !Task.isCancelled {
            guard let challenged = challengedResponse(for: request) else { throw error }
            return (Data(), challenged)
        }
    }

    public func download(_ request: URLRequest) async throws -> (URL, HTTPURLResponse) {
        let request = Self.prepared(request)
        do {
            let (file, response) = try await session.download(for: request)
            guard let http = response as? HTTPURLResponse else {
                try? FileManager.default.removeItem(at: file)
                throw URLError(.badServerResponse)
            }
            return (file, http)
        } catch let error as URLError where error.code == .cancelled && !Task.isCancelled {
            guard let challenged = challengedResponse(for: request) else { throw error }
            let empty = FileManager.default.temporaryDirectory.appendingPathComponent("konex-\(UUID().uuidString)")
            try Data().write(to: empty)
            return (empty, challenged)
        }
    }

    private static func prepared(_ request: URLRequest) -> URLRequest {
        var request = request
        #if canImport(FoundationNetworking)
            // FoundationNetworking truncates timeoutInterval to whole seconds, so 0.5 s would time out at once.
            let whole = request.timeoutInterval.rounded(.up)
            if whole != request.timeoutInterval { request.timeoutInterval = whole }  // writing copies the request
        #endif
        return request
    }

    /// A challenge we declined ends as "cancelled"; it was really the server's 401.
    private func challengedResponse(for request: URLRequest) -> HTTPURLResponse? {
        (session.delegate as? SessionDelegate)?.takeChallengedResponse(for: request)
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
    // The 401/407 responses of challenges declined on FoundationNetworking, by method and URL, until `send`
    // collects them (`data(for:)` does not expose its task, so the request is the key).
    private let challenged = Lock<[String: [HTTPURLResponse]]>([:])

    private static func key(_ request: URLRequest?) -> String {
        "\(request?.httpMethod ?? "GET") \(request?.url?.absoluteString ?? "")"
    }

    func takeChallengedResponse(for request: URLRequest) -> HTTPURLResponse? {
        challenged.withLock { pending in
            let key = Self.key(request)
            guard var responses = pending[key], !responses.isEmpty else { return nil }
            let response = responses.removeFirst()
            pending[key] = responses.isEmpty ? nil : responses
            return response
        }
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
                let key = Self.key(task.originalRequest)
                challenged.withLock { $0[key, default: []].append(response) }
            }
            completionHandler(.cancelAuthenticationChallenge, nil)
        #else
            completionHandler(.performDefaultHandling, nil)
        #endif
    }
}
