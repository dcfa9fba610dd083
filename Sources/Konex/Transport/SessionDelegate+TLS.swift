import Foundation

extension SessionDelegate {
    /// Answers the challenges a client's ``TLSSettings`` own: server trust (custom roots, pins) and, with an identity,
    /// the client certificate. `false` for every other challenge, and always on FoundationNetworking, which raises
    /// neither (``URLSessionTransport/checkCanApply(_:)`` refuses settings there before a request is sent).
    func answerUnderTLS(
        _ challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) -> Bool {
        #if canImport(Security)
            guard !tls.isDefault else { return false }
            let space = challenge.protectionSpace
            switch space.authenticationMethod {
            case NSURLAuthenticationMethodServerTrust:
                guard let trust = space.serverTrust else {
                    completionHandler(.cancelAuthenticationChallenge, nil)
                    return true
                }
                if let failure = TrustEvaluation.failure(of: trust, host: space.host, under: tls.serverTrust) {
                    trustFailures.withLock { $0[space.host] = failure }
                    completionHandler(.cancelAuthenticationChallenge, nil)
                } else {
                    trustFailures.withLock { $0[space.host] = nil }
                    completionHandler(.useCredential, URLCredential(trust: trust))
                }
                return true
            case NSURLAuthenticationMethodClientCertificate:
                guard let identity = tls.clientIdentity else { return false }
                if let credential = TrustEvaluation.credential(for: identity) {
                    completionHandler(.useCredential, credential)
                } else {
                    let failure = TLSFailure(
                        .unsupported("the PKCS#12 client identity did not open (wrong password, or not PKCS#12)"),
                        host: space.host, pins: tls.serverTrust.pins)
                    trustFailures.withLock { $0[space.host] = failure }
                    completionHandler(.cancelAuthenticationChallenge, nil)
                }
                return true
            default:
                return false
            }
        #else
            return false
        #endif
    }

    /// `error` with its reason when it is URLSession's "cancelled" for a connection Konex refused under its TLS
    /// settings: a ``TransportFailure`` of kind ``TransportFailure/Kind/secureConnectionFailed`` wrapping the
    /// ``TLSFailure``; any other error as it is.
    func explained(_ error: any Error, for url: URL?) -> any Error {
        guard !tls.isDefault, (error as? URLError)?.code == .cancelled, let host = url?.host,
            let failure = trustFailures.withLock({ $0[host] })
        else { return error }
        return TransportFailure(.secureConnectionFailed, url: url, underlying: failure)
    }
}
