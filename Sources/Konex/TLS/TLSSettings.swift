import Foundation

/// A client's TLS: which servers it trusts (``ServerTrust``) and the certificate it presents (``ClientIdentity``).
///
/// Set on a ``KonexClient`` and applied by its transport to every request and WebSocket; a transport that cannot
/// apply a setting refuses the request before sending it (see ``TLSCapable/checkCanApply(_:)``).
/// ```swift
/// let client = KonexClient(
///     baseURL: api,
///     tls: TLSSettings(serverTrust: .roots(roots), clientIdentity: try .pem(certificateChain: chain, privateKey: key)))
/// ```
public struct TLSSettings: Sendable, Hashable, CustomStringConvertible {
    // One reference, nil for the default: every request's transport context carries it.
    private let storage: Storage?

    /// The system's trust and no client certificate.
    public static let `default` = TLSSettings()

    /// TLS settings.
    /// - Parameters:
    ///   - serverTrust: Which servers are trusted; the system's roots by default.
    ///   - clientIdentity: The certificate presented when a server asks for one; none by default.
    public init(serverTrust: ServerTrust = .system, clientIdentity: ClientIdentity? = nil) {
        storage =
            serverTrust.isSystem && clientIdentity == nil
            ? nil : Storage(serverTrust: serverTrust, clientIdentity: clientIdentity)
    }

    /// Which servers are trusted.
    public var serverTrust: ServerTrust { storage?.serverTrust ?? .system }
    /// The certificate presented when a server asks for one.
    public var clientIdentity: ClientIdentity? { storage?.clientIdentity }
    /// Whether these are the system's trust and no client certificate: what a transport does on its own.
    public var isDefault: Bool { storage == nil }

    public var description: String {
        guard let storage else { return "TLSSettings(default)" }
        return "TLSSettings(\(storage.serverTrust)\(storage.clientIdentity.map { ", \($0)" } ?? ""))"
    }

    private final class Storage: Sendable, Hashable {
        let serverTrust: ServerTrust
        let clientIdentity: ClientIdentity?

        init(serverTrust: ServerTrust, clientIdentity: ClientIdentity?) {
            self.serverTrust = serverTrust
            self.clientIdentity = clientIdentity
        }

        static func == (lhs: Storage, rhs: Storage) -> Bool {
            lhs === rhs || (lhs.serverTrust == rhs.serverTrust && lhs.clientIdentity == rhs.clientIdentity)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(serverTrust)
            hasher.combine(clientIdentity)
        }
    }
}
