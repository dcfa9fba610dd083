import Foundation

/// What every ``Transport`` and ``WebSocketTransport`` answers: whether it applies a client's ``TLSSettings``.
///
/// Konex asks before each request or WebSocket of a client whose ``KonexClient/tls`` is not the default, and sends
/// nothing when the answer is no, so a pin or a custom root is never silently dropped. The default refuses anything
/// but ``TLSSettings/default``; a transport that applies the settings, or makes no connection at all (a mock),
/// overrides it.
/// ```swift
/// extension MyTransport {
///     func checkCanApply(_ tls: TLSSettings) throws {
///         guard tls.serverTrust.pins.isEmpty else {
///             throw TLSFailure.unsupported(by: "MyTransport", "cannot pin keys", in: tls)
///         }
///     }
/// }
/// ```
public protocol TLSCapable: Sendable {
    /// Throws unless this transport applies `tls` (``TransportContext/tls``, ``WebSocketOptions/tls``) to every
    /// connection it makes.
    /// - Parameter tls: The client's settings.
    /// - Throws: A ``TLSFailure`` of reason ``TLSFailure/Reason/unsupported(_:)`` saying what cannot be applied.
    func checkCanApply(_ tls: TLSSettings) throws
}

extension TLSCapable {
    public func checkCanApply(_ tls: TLSSettings) throws {
        guard tls.isDefault else {
            throw TLSFailure.unsupported(
                by: "\(type(of: self))",
                "does not say it applies TLS settings (it implements no checkCanApply(_:)), so it would use the "
                    + "system's trust instead of \(tls)", in: tls)
        }
    }
}

extension TLSSettings {
    /// Asks `transport` whether it applies these settings, before a request to `url` is sent: its refusal as a
    /// ``TransportFailure`` of kind ``TransportFailure/Kind/secureConnectionFailed`` (never retried).
    // Not inlined: a parked request's async frame would hold room for the refusal it almost never builds.
    func check(appliedBy transport: any TLSCapable, for url: URL) throws {
        do {
            try transport.checkCanApply(self)
        } catch {
            throw TransportFailure(.secureConnectionFailed, url: url, underlying: error)
        }
    }
}
