#if AsyncHTTPClient
    import Foundation
    import Konex
    import NIOSSL

    extension TLSSettings {
        /// `base` with these settings applied: custom roots as the only trust roots, and the client identity's chain
        /// and key. Pins are not part of a `TLSConfiguration`; each transport checks them (or refuses them) itself.
        /// - Throws: ``Konex/TLSFailure`` of reason ``Konex/TLSFailure/Reason/unusable(_:)`` when NIOSSL cannot read
        ///   a certificate, the key or the PKCS#12 archive.
        func applied(to base: TLSConfiguration) throws -> TLSConfiguration {
            var configuration = base
            do {
                if case .certificates(let roots) = serverTrust.roots {
                    configuration.trustRoots = .certificates(
                        try roots.map { try NIOSSLCertificate(bytes: Array($0.der), format: .der) })
                    configuration.additionalTrustRoots = []
                }
                switch clientIdentity?.form {
                case .pem(let chain, let key):
                    configuration.certificateChain = try chain.map {
                        .certificate(try NIOSSLCertificate(bytes: Array($0.der), format: .der))
                    }
                    configuration.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(key.utf8), format: .pem))
                case .pkcs12(let archive, let password):
                    let bundle = try NIOSSLPKCS12Bundle(buffer: Array(archive), passphrase: Array(password.utf8))
                    configuration.certificateChain = bundle.certificateChain.map { .certificate($0) }
                    configuration.privateKey = .privateKey(bundle.privateKey)
                case nil:
                    break
                }
            } catch {
                throw TLSFailure(.unusable("NIOSSL cannot read \(self): \(error)"), host: nil, pins: serverTrust.pins)
            }
            return configuration
        }
    }
#endif
