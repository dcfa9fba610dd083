import Foundation

/// Why a transport refused a connection under a client's ``TLSSettings``: a server whose chain holds none of the
/// pinned keys, or a setting the transport cannot apply.
///
/// It reaches the caller as a ``KonexError`` of stage ``KonexError/Stage/transport`` whose `underlyingError` is a
/// ``TransportFailure`` of kind ``TransportFailure/Kind/secureConnectionFailed`` wrapping this. It is never retried.
public struct TLSFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Hashable {
        /// The chain was verified, but holds none of ``TLSFailure/pins``; `presented` are the keys it holds.
        case pinMismatch(presented: [PublicKeyPin])
        /// The chain did not verify against the trusted roots; the text is the verifier's.
        case untrusted(String)
        /// The transport cannot apply a setting; the text says which, and what to use instead.
        case unsupported(String)
        /// A setting could not be loaded where it is applied (a key or an archive the TLS library cannot read).
        case unusable(String)
    }

    /// What went wrong.
    public let reason: Reason
    /// The host the connection was for (`nil` when refused before a request had one).
    public let host: String?
    /// The pins in force.
    public let pins: [PublicKeyPin]

    /// A failure.
    /// - Parameters:
    ///   - reason: What went wrong.
    ///   - host: The host the connection was for.
    ///   - pins: The pins in force.
    public init(_ reason: Reason, host: String?, pins: [PublicKeyPin]) {
        self.reason = reason
        self.host = host
        self.pins = pins
    }

    /// A transport's refusal of a setting it cannot apply.
    /// - Parameters:
    ///   - transport: The transport's type name.
    ///   - setting: What it cannot apply, and what to use instead.
    ///   - tls: The settings refused.
    public static func unsupported(by transport: String, _ setting: String, in tls: TLSSettings) -> TLSFailure {
        TLSFailure(.unsupported("\(transport) \(setting)"), host: nil, pins: tls.serverTrust.pins)
    }

    public var description: String {
        let pinsText = pins.map(\.description).joined(separator: ", ")
        switch reason {
        case .pinMismatch(let presented):
            let presentedText = presented.map(\.description).joined(separator: ", ")
            return "the certificate chain of \(host ?? "the server") holds none of the pinned keys [\(pinsText)]; "
                + "its keys: [\(presentedText)]"
        case .untrusted(let text):
            return "the certificate chain of \(host ?? "the server") is not trusted: \(text)"
        case .unusable(let text):
            return "the TLS settings cannot be used: \(text)"
        case .unsupported(let text):
            return pins.isEmpty ? text : "\(text) (pins [\(pinsText)])"
        }
    }

}
