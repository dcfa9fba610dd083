import Foundation

/// The session delegate of ``URLSessionTransport``: redirects declined, challenges, and the chunks of streamed
/// responses.
final class SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    /// The delegate of a session a user handed ``URLSessionTransport/init(session:redirectPolicy:)``: asked about
    /// every challenge at the level it answers them (``ChallengeForwarding``) and told of what its tasks do (bytes
    /// sent, metrics, completion, waiting for connectivity), never about redirects. Set once; the session calls it
    /// from its delegate queue, as it would have.
    let forwardee: (any URLSessionDelegate)?
    /// The trust and client certificate this session's challenges are answered with (Apple platforms); a session's
    /// connections are reused without a new challenge, so each settings gets a session of its own.
    let tls: TLSSettings
    /// The last trust failure by host, for `send` to say why URLSession cancelled the task (see ``explained(_:for:)``).
    let trustFailures = Lock<[String: TLSFailure]>([:])

    init(forwardingTo forwardee: (any URLSessionDelegate)? = nil, tls: TLSSettings = .default) {
        self.forwardee = forwardee
        self.tls = tls
    }

    // The 401/407 responses of challenges declined on FoundationNetworking, by the request as sent, until `send`
    // collects them (`data(for:)` does not expose its task, and FoundationNetworking keeps no protocol property on a
    // task's request, so the request itself is the key).
    private let challenged = Lock<[String: [HTTPURLResponse]]>([:])

    /// Method, URL and every header field, sorted by name: two requests to one URL with other credentials (other
    /// users, an old and a new token) never take each other's 401. Requests equal in all of these are
    /// indistinguishable to the server too, so which of them takes which answer cannot matter.
    static func key(_ request: URLRequest?) -> String {
        var key = "\(request?.httpMethod ?? "GET") \(request?.url?.absoluteString ?? "")"
        for (name, value) in (request?.allHTTPHeaderFields ?? [:]).sorted(by: {
            $0.key.lowercased() < $1.key.lowercased()
        }) {
            key += "\n\(name.lowercased()):\(value)"
        }
        return key
    }

    func takeChallengedResponse(for request: URLRequest?) -> HTTPURLResponse? {
        challenged.withLock { pending in
            let key = Self.key(request)
            guard var responses = pending[key], !responses.isEmpty else { return nil }
            let response = responses.removeFirst()
            pending[key] = responses.isEmpty ? nil : responses
            return response
        }
    }

    /// A streamed task: who waits for its head, and where its chunks go.
    private struct Streamed: Sendable {
        var head: CheckedContinuation<(HTTPURLResponse, ByteStream), any Error>?
        let body: ByteStream
        let chunks: ByteStream.Continuation
        let observer: TransferObserver?
    }

    // Only the streaming session's tasks are here; `data(for:)` and `download(for:)` tasks never are.
    private let streams = Lock<[Int: Streamed]>([:])

    func register(
        _ task: URLSessionTask, head: CheckedContinuation<(HTTPURLResponse, ByteStream), any Error>, body: ByteStream,
        chunks: ByteStream.Continuation, observer: TransferObserver?
    ) {
        streams.withLock {
            $0[task.taskIdentifier] = Streamed(head: head, body: body, chunks: chunks, observer: observer)
        }
    }

    private func observer(of task: URLSessionTask) -> TransferObserver? {
        streams.withLock { $0[task.taskIdentifier]?.observer }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        #if canImport(Darwin)
            (forwardee as? any URLSessionTaskDelegate)?.urlSession?(
                session, task: task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent,
                totalBytesExpectedToSend: totalBytesExpectedToSend)
        #else
            (forwardee as? any URLSessionTaskDelegate)?.urlSession(
                session, task: task, didSendBodyData: bytesSent, totalBytesSent: totalBytesSent,
                totalBytesExpectedToSend: totalBytesExpectedToSend)
        #endif
        observer(of: task)?.progress?(
            TransferProgress(uploaded: totalBytesSent, expected: totalBytesExpectedToSend))
    }

    #if canImport(Darwin)
        func urlSession(_ session: URLSession, taskIsWaitingForConnectivity task: URLSessionTask) {
            (forwardee as? any URLSessionTaskDelegate)?.urlSession?(session, taskIsWaitingForConnectivity: task)
        }
    #endif

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        // The protocol's methods are optional requirements on Apple platforms, defaults in FoundationNetworking.
        #if canImport(Darwin)
            (forwardee as? any URLSessionTaskDelegate)?.urlSession?(session, task: task, didFinishCollecting: metrics)
        #else
            (forwardee as? any URLSessionTaskDelegate)?.urlSession(session, task: task, didFinishCollecting: metrics)
        #endif
        guard let observer = observer(of: task), let phases = TransferPhases(metrics) else { return }
        observer.phases?(phases)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let waiting = streams.withLock {
            streams -> (CheckedContinuation<(HTTPURLResponse, ByteStream), any Error>, ByteStream)? in
            guard let head = streams[dataTask.taskIdentifier]?.head, let body = streams[dataTask.taskIdentifier]?.body
            else { return nil }
            streams[dataTask.taskIdentifier]?.head = nil
            return (head, body)
        }
        completionHandler(.allow)
        guard let (head, body) = waiting else { return }
        if let http = response as? HTTPURLResponse {
            head.resume(returning: (http, body))
        } else {
            head.resume(throwing: URLError(.badServerResponse))
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let chunks = streams.withLock({ $0[dataTask.taskIdentifier]?.chunks }) else { return }
        // `false`: the reader left or fell too far behind, and the stream already ended.
        if !chunks.yield(data) { dataTask.cancel() }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Konex follows redirects above the transport, by its own rules (RedirectRules): the 3xx is the answer here.
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        #if canImport(Darwin)
            (forwardee as? any URLSessionTaskDelegate)?.urlSession?(session, task: task, didCompleteWithError: error)
        #else
            (forwardee as? any URLSessionTaskDelegate)?.urlSession(session, task: task, didCompleteWithError: error)
        #endif
        guard let streamed = streams.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let head = streamed.head {
            // No head arrived. A challenge we declined ends as "cancelled": it was really the server's 401.
            if (error as? URLError)?.code == .cancelled,
                let challenged = takeChallengedResponse(for: task.originalRequest)
            {
                streamed.chunks.finish()
                head.resume(returning: (challenged, streamed.body))
            } else {
                head.resume(throwing: explained(error ?? URLError(.badServerResponse), for: task.originalRequest?.url))
            }
        } else if let error {
            streamed.chunks.finish(throwing: error)
        } else {
            streamed.chunks.finish()
        }
    }

    // Every challenge comes here: with no session-level method of ours, Apple platforms send the session-wide kinds
    // (server trust, client certificates) to this task-level one too, so a caller's delegate is asked at whichever
    // level it answers (ChallengeForwarding) and nothing reaches the system's default trust behind its back.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // Under TLS settings of the client's, Konex answers server trust and the client certificate itself: a
        // delegate's own pinning must not loosen them.
        if answerUnderTLS(challenge, completionHandler: completionHandler) { return }
        if let forwardee,
            ChallengeForwarding.forward(
                challenge, of: task, in: session, to: forwardee,
                otherwise: { self.answerItself(challenge, of: task, completionHandler: completionHandler) },
                completionHandler: { disposition, credential in
                    if disposition == .cancelAuthenticationChallenge {
                        self.keepChallengedResponse(of: challenge, for: task)
                    }
                    completionHandler(disposition, credential)
                })
        {
            return
        }
        answerItself(challenge, of: task, completionHandler: completionHandler)
    }

    /// Konex's own answer, when no delegate of the caller's takes the challenge.
    private func answerItself(
        _ challenge: URLAuthenticationChallenge, of task: URLSessionTask,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // Credentials travel as headers set by adapters, so a server challenge goes back to the caller as the 401.
        #if canImport(FoundationNetworking)
            // FoundationNetworking hangs on default handling without a credential and cancels on rejection, so
            // decline and let `send` hand back the challenge's response (its body is lost with the transfer).
            keepChallengedResponse(of: challenge, for: task)
            completionHandler(.cancelAuthenticationChallenge, nil)
        #else
            completionHandler(.performDefaultHandling, nil)
        #endif
    }

    /// Keeps a declined challenge's 401 or 407 for `send`, which returns it as the answer.
    private func keepChallengedResponse(of challenge: URLAuthenticationChallenge, for task: URLSessionTask) {
        #if canImport(FoundationNetworking)
            if let response = challenge.failureResponse as? HTTPURLResponse {
                let key = Self.key(task.originalRequest)
                challenged.withLock { $0[key, default: []].append(response) }
            }
        #endif
    }
}
