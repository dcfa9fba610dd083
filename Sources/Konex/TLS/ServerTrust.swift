import Foundation

/// Which servers a client trusts: the system's roots (the default), roots of your own, and optionally a set of pinned
/// public keys that the server's chain must contain.
///
/// ```swift
/// // An internal CA only:
/// let internal = ServerTrust.roots(try TLSCertificate.certificates(pem: caPEM))
/// // The system's roots, and one of two keys in the chain (the second is the backup for a key rotation):
/// let pinned = ServerTrust.pinning(try PublicKeyPin(base64: current), backup: try PublicKeyPin(base64: next))
/// let client = KonexClient(baseURL: api, tls: TLSSettings(serverTrust: pinned))
/// ```
///
/// Pins are checked after the chain is verified, never instead of it. A transport that cannot apply a setting refuses
/// the request with a ``TLSFailure`` before sending it; nothing falls back to weaker trust.
public struct ServerTrust: Sendable, Hashable, CustomStringConvertible {
    /// Where a chain must end.
    public enum Roots: Sendable, Hashable {
        /// The operating system's trust store.
        case system
        /// These certificates only (the system's are not trusted).
        case certificates([TLSCertificate])
    }

    /// Where the server's chain must end.
    public let roots: Roots
    /// Public keys of which the verified chain must contain at least one; empty for no pinning.
    public let pins: [PublicKeyPin]

    /// The system's roots and no pins: what every transport does by default.
    public static let system = ServerTrust(roots: .system, pins: [])

    /// Trusts chains that end in one of `certificates` (and no others).
    /// - Parameter certificates: The trusted roots (a private CA, a self-signed server certificate).
    public static func roots(_ certificates: [TLSCertificate]) -> ServerTrust {
        ServerTrust(roots: .certificates(certificates), pins: [])
    }

    /// Trusts a verified chain only when it holds one of the pinned keys: `primary`, `backup`, or one of `others`.
    ///
    /// A backup pin is required, as RFC 7469 asks: the key of the next certificate, kept offline, so that a key
    /// rotation does not lock every installed app out.
    /// - Parameters:
    ///   - primary: The key in use.
    ///   - backup: The key that replaces it.
    ///   - others: More keys to accept.
    ///   - roots: Where the chain must end; the system's roots by default.
    public static func pinning(
        _ primary: PublicKeyPin, backup: PublicKeyPin, _ others: PublicKeyPin..., roots: Roots = .system
    ) -> ServerTrust {
        var pins: [PublicKeyPin] = []
        for pin in [primary, backup] + others where !pins.contains(pin) { pins.append(pin) }
        return ServerTrust(roots: roots, pins: pins)
    }

    /// Whether this is ``system``.
    public var isSystem: Bool { self == .system }

    /// Whether a chain holding keys `presented` passes the pins (always, when there are none).
    /// - Parameter presented: The pins of the keys in the verified chain.
    public func accepts(_ presented: [PublicKeyPin]) -> Bool {
        pins.isEmpty || presented.contains(where: pins.contains)
    }

    public var description: String {
        let rootsText =
            switch roots {
            case .system: "system roots"
            case .certificates(let certificates): "\(certificates.count) custom roots"
            }
        return pins.isEmpty ? rootsText : "\(rootsText), pins \(pins.map(\.description).joined(separator: ", "))"
    }
}
