import Foundation

/// The certificate a client presents when a server asks for one (mutual TLS), with its private key.
///
/// Transports take the forms they can use: AsyncHTTPClient takes PEM, URLSession on Apple platforms PKCS#12. A
/// transport given a form it cannot use refuses the request with a ``TLSFailure`` naming the form it needs.
/// ```swift
/// let identity = try ClientIdentity.pem(certificateChain: chainPEM, privateKey: keyPEM)
/// let client = KonexClient(baseURL: api, tls: TLSSettings(clientIdentity: identity))
/// ```
public struct ClientIdentity: Sendable, Hashable, CustomStringConvertible {
    /// How the certificate and key are held.
    public enum Form: Sendable, Hashable {
        /// A certificate chain (the client's own first) and its private key as a PEM text.
        case pem(certificateChain: [TLSCertificate], privateKey: String)
        /// A PKCS#12 archive and its password.
        case pkcs12(Data, password: String)
    }

    /// The certificate and key.
    public let form: Form

    /// A client identity from PEM texts.
    /// - Parameters:
    ///   - certificateChain: The client's certificate, then any intermediates, as PEM.
    ///   - privateKey: The certificate's private key, as an unencrypted PEM block (`PRIVATE KEY`, `RSA PRIVATE KEY`
    ///     or `EC PRIVATE KEY`).
    /// - Throws: ``TLSSettingsError`` when the chain holds no certificate or the key text no private key.
    public static func pem(certificateChain: String, privateKey: String) throws -> ClientIdentity {
        let chain = try TLSCertificate.certificates(pem: certificateChain)
        let keyLabels: Set = ["PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY"]
        guard PEMBlock.all(in: privateKey).contains(where: { keyLabels.contains($0.label) }) else {
            throw TLSSettingsError(
                "the private key text holds no unencrypted PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY block")
        }
        return ClientIdentity(form: .pem(certificateChain: chain, privateKey: privateKey))
    }

    /// A client identity from a PKCS#12 archive (a `.p12` or `.pfx` file).
    /// - Parameters:
    ///   - archive: The archive's bytes.
    ///   - password: Its password.
    public static func pkcs12(_ archive: Data, password: String) -> ClientIdentity {
        ClientIdentity(form: .pkcs12(archive, password: password))
    }

    // The key never reaches a log.
    public var description: String {
        switch form {
        case .pem(let chain, _): "ClientIdentity(PEM, \(chain.count) certificates, key \(chain[0].publicKeyPin))"
        case .pkcs12(let archive, _): "ClientIdentity(PKCS#12, \(archive.count) bytes)"
        }
    }
}
