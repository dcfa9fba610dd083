import Foundation

#if canImport(Security)
    import Security

    /// How ``URLSessionTransport`` answers server-trust and client-certificate challenges under a client's
    /// ``TLSSettings`` on Apple platforms: custom roots as the only anchors, the chain verified for the host, then the
    /// pins checked against every key in the verified chain; a PKCS#12 identity for the client certificate.
    enum TrustEvaluation {
        /// Verifies `trust` for `host` under `serverTrust`; `nil` when it passes, else why not.
        static func failure(of trust: SecTrust, host: String, under serverTrust: ServerTrust) -> TLSFailure? {
            SecTrustSetPolicies(trust, SecPolicyCreateSSL(true, host as CFString))
            if case .certificates(let roots) = serverTrust.roots {
                let anchors = roots.compactMap { SecCertificateCreateWithData(nil, $0.der as CFData) }
                SecTrustSetAnchorCertificates(trust, anchors as CFArray)
                SecTrustSetAnchorCertificatesOnly(trust, true)
            }
            var error: CFError?
            guard SecTrustEvaluateWithError(trust, &error) else {
                let reason = error.map { ($0 as any Error).localizedDescription } ?? "not trusted"
                return TLSFailure(.untrusted(reason), host: host, pins: serverTrust.pins)
            }
            guard !serverTrust.pins.isEmpty else { return nil }
            let chain = (SecTrustCopyCertificateChain(trust) as? [SecCertificate]) ?? []
            let presented = chain.compactMap { PublicKeyPin(certificateDER: SecCertificateCopyData($0) as Data) }
            guard serverTrust.accepts(presented) else {
                return TLSFailure(.pinMismatch(presented: presented), host: host, pins: serverTrust.pins)
            }
            return nil
        }

        /// The credential for a client-certificate challenge: the PKCS#12 identity with its chain, or `nil` when the
        /// archive does not open (the challenge is then declined and the server decides).
        static func credential(for identity: ClientIdentity) -> URLCredential? {
            guard case .pkcs12(let archive, let password) = identity.form else { return nil }
            var items: CFArray?
            let options = [kSecImportExportPassphrase as String: password] as CFDictionary
            guard SecPKCS12Import(archive as CFData, options, &items) == errSecSuccess,
                let first = (items as? [[String: Any]])?.first,
                let found = first[kSecImportItemIdentity as String],
                CFGetTypeID(found as CFTypeRef) == SecIdentityGetTypeID()
            else { return nil }
            let secIdentity = found as! SecIdentity
            // The chain's first certificate is the identity's own; the credential takes the rest.
            let chain = (first[kSecImportItemCertChain as String] as? [SecCertificate]) ?? []
            return URLCredential(
                identity: secIdentity, certificates: Array(chain.dropFirst()), persistence: .forSession)
        }
    }
#endif
