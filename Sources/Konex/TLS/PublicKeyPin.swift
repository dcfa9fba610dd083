import Foundation

/// A pinned public key: the SHA-256 of a certificate's `SubjectPublicKeyInfo`, as HPKP (RFC 7469) and most pinning
/// libraries write it.
///
/// Make one from the base64 text your server team publishes (`openssl x509 -pubkey -noout | openssl pkey -pubin
/// -outform der | openssl dgst -sha256 -binary | base64`), or from a certificate you hold:
/// ```swift
/// let current = try PublicKeyPin(base64: "sha256/xmvvalwaPni4IBbhPzFPPMX6JbHlKqua257FmJsWWto=")
/// let backup = try TLSCertificate(pem: backupPEM).publicKeyPin
/// let trust = ServerTrust.pinning(current, backup: backup)
/// ```
public struct PublicKeyPin: Sendable, Hashable, CustomStringConvertible {
    /// The 32 bytes of the digest.
    public let sha256: [UInt8]

    /// A pin from its digest.
    /// - Parameter sha256: The SHA-256 of a `SubjectPublicKeyInfo`: 32 bytes.
    /// - Throws: ``TLSSettingsError`` when it is not 32 bytes.
    public init(sha256: [UInt8]) throws {
        guard sha256.count == 32 else {
            throw TLSSettingsError("a SHA-256 pin is 32 bytes, not \(sha256.count)")
        }
        self.sha256 = sha256
    }

    /// A pin from its base64 text, with or without HPKP's `sha256/` prefix.
    /// - Parameter base64: The digest in base64, e.g. `sha256/xmvvalwaPni4IBbhPzFPPMX6JbHlKqua257FmJsWWto=`.
    /// - Throws: ``TLSSettingsError`` naming the text when it is not the base64 of 32 bytes.
    public init(base64: String) throws {
        let text = base64.hasPrefix("sha256/") ? String(base64.dropFirst(7)) : base64
        guard let bytes = Data(base64Encoded: text) else {
            throw TLSSettingsError("the pin \"\(base64)\" is not base64")
        }
        try self.init(sha256: Array(bytes))
    }

    /// The pin of a DER `SubjectPublicKeyInfo` (what a transport computes from the certificates a server presents).
    /// - Parameter subjectPublicKeyInfo: The whole DER element.
    public init(subjectPublicKeyInfo: some Collection<UInt8>) {
        sha256 = SHA256.hash(subjectPublicKeyInfo)
    }

    /// The pin of the key in a DER certificate; `nil` when the bytes are not a certificate.
    /// - Parameter der: A DER X.509 certificate, as a server presents it.
    public init?(certificateDER der: some Collection<UInt8>) {
        guard let info = DERReader.subjectPublicKeyInfo(ofCertificate: Array(der)) else { return nil }
        self.init(subjectPublicKeyInfo: info)
    }

    /// The digest in base64.
    public var base64: String { Data(sha256).base64EncodedString() }

    /// HPKP's form: `sha256/` and the base64 digest.
    public var description: String { "sha256/" + base64 }
}
