import Foundation

/// An X.509 certificate, as DER bytes: a trust root for ``ServerTrust``, or one link of a ``ClientIdentity``'s chain.
///
/// ```swift
/// let roots = try TLSCertificate.certificates(pem: String(contentsOf: caFile, encoding: .utf8))
/// let client = KonexClient(baseURL: api, tls: TLSSettings(serverTrust: .roots(roots)))
/// ```
public struct TLSCertificate: Sendable, Hashable, CustomStringConvertible {
    /// The certificate's DER encoding.
    public let der: Data
    /// The pin of the certificate's public key (the SHA-256 of its `SubjectPublicKeyInfo`).
    public let publicKeyPin: PublicKeyPin

    /// Reads a DER-encoded certificate.
    /// - Parameter der: The certificate's bytes.
    /// - Throws: ``TLSSettingsError`` when the bytes are not an X.509 certificate.
    public init(der: Data) throws {
        guard let info = DERReader.subjectPublicKeyInfo(ofCertificate: Array(der)) else {
            throw TLSSettingsError("\(der.count) bytes are not a DER X.509 certificate (no SubjectPublicKeyInfo found)")
        }
        self.der = der
        publicKeyPin = PublicKeyPin(subjectPublicKeyInfo: info)
    }

    /// Reads the one certificate in a PEM text.
    /// - Parameter pem: Text holding one `-----BEGIN CERTIFICATE-----` block.
    /// - Throws: ``TLSSettingsError`` when the text holds no certificate, or more than one.
    public init(pem: String) throws {
        let all = try Self.certificates(pem: pem)
        guard all.count == 1 else {
            throw TLSSettingsError("expected one certificate in the PEM text, found \(all.count)")
        }
        self = all[0]
    }

    /// Reads every certificate in a PEM text (a chain, or a bundle of roots), in order.
    /// - Parameter pem: Text holding one or more `-----BEGIN CERTIFICATE-----` blocks; other blocks are skipped.
    /// - Returns: The certificates, in the order the text has them.
    /// - Throws: ``TLSSettingsError`` when the text holds no certificate or a block is not one.
    public static func certificates(pem: String) throws -> [TLSCertificate] {
        let blocks = PEMBlock.all(in: pem).filter { $0.label == "CERTIFICATE" }
        guard !blocks.isEmpty else { throw TLSSettingsError("the PEM text holds no CERTIFICATE block") }
        return try blocks.enumerated().map { index, block in
            guard let der = block.der else {
                throw TLSSettingsError("CERTIFICATE block \(index + 1) of the PEM text is not valid base64")
            }
            return try TLSCertificate(der: der)
        }
    }

    /// The certificate as a PEM block.
    public var pem: String { PEMBlock.text(label: "CERTIFICATE", der: der) }

    public var description: String { "TLSCertificate(\(der.count) bytes, key \(publicKeyPin))" }
}
