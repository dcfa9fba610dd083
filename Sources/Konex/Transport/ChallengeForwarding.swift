import Foundation

/// Asks a caller's session delegate about a challenge at the level it answers, as its own session would have.
///
/// Apple platforms send the session-wide kinds (server trust, client certificate, NTLM, Negotiate) to a delegate's
/// session-level method when it has one, else to its task-level method; every other kind (Basic, Digest) to the
/// task-level method. Pinning written either way is therefore asked. FoundationNetworking has no optional protocol
/// methods (every method has a default that answers "default handling") and no server-trust challenges (libcurl
/// verifies), so there the task-level method is asked, and "default handling" counts as not answering.
enum ChallengeForwarding {
    /// Forwards `challenge` to `delegate`; `false` when the delegate does not take it (Konex answers it then).
    /// - Parameters:
    ///   - otherwise: Konex's own answer, for a delegate that answers "default handling" on Linux.
    ///   - completionHandler: The session's handler, for the delegate's answer.
    static func forward(
        _ challenge: URLAuthenticationChallenge, of task: URLSessionTask, in session: URLSession,
        to delegate: any URLSessionDelegate, otherwise: @escaping @Sendable () -> Void,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) -> Bool {
        #if canImport(Darwin)
            if isSessionWide(challenge.protectionSpace.authenticationMethod),
                delegate.urlSession?(session, didReceive: challenge, completionHandler: completionHandler) != nil
            {
                return true
            }
            return (delegate as? any URLSessionTaskDelegate)?.urlSession?(
                session, task: task, didReceive: challenge, completionHandler: completionHandler) != nil
        #else
            guard let delegate = delegate as? any URLSessionTaskDelegate else { return false }
            delegate.urlSession(session, task: task, didReceive: challenge) { disposition, credential in
                if disposition == .performDefaultHandling {
                    otherwise()
                } else {
                    completionHandler(disposition, credential)
                }
            }
            return true
        #endif
    }

    #if canImport(Darwin)
        /// The kinds Apple platforms treat as the connection's, not one request's.
        static func isSessionWide(_ method: String) -> Bool {
            method == NSURLAuthenticationMethodServerTrust || method == NSURLAuthenticationMethodClientCertificate
                || method == NSURLAuthenticationMethodNTLM || method == NSURLAuthenticationMethodNegotiate
        }
    #endif
}
