import Foundation

extension Redaction {
    /// The redaction of the client running the current request: what a plugin, a transport or an instrument that
    /// was given none uses, so the client's one policy governs every sink.
    ///
    /// ``Redaction/default`` outside a request, and inside a request of a client made with the default.
    /// ```swift
    /// struct AuditPlugin: KonexPlugin {
    ///     func didSendRequest(_ request: TransportRequest) async {
    ///         audit.append(Redaction.current.url(request.url?.absoluteString ?? ""))
    ///     }
    /// }
    /// ```
    public static var current: Redaction { bound ?? .default }

    /// Bound by the pipeline around a request of a client whose redaction is not the default (the default needs no
    /// binding, so most requests pay nothing for it).
    @TaskLocal static var bound: Redaction?

    /// A client's own redaction, held by reference: what every request and exchange carries is one pointer (`nil` for
    /// the default), not a copy of seven collections to retain and release.
    final class Shared: Sendable {
        let redaction: Redaction
        init(_ redaction: Redaction) { self.redaction = redaction }
    }
}
