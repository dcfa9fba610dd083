import Foundation

extension DataRequest {
    /// Throws when response processors are attached (at the call site or by the endpoint) to a terminal that never
    /// holds the whole body: a processor silently skipped would be a surprise.
    /// - Parameters:
    ///   - terminal: The terminal, as the message names it (`stream()`).
    ///   - reason: What processors need that the terminal does not have.
    func refuseProcessors(for terminal: String, because reason: String) throws {
        guard !processors.isEmpty || !(endpoint?.requestResponseProcessors.isEmpty ?? true) else { return }
        progressSink?.finish()  // nothing will be sent: a reader of the progress must not wait for ever
        throw KonexError.invalidRequest(
            "response processors need \(reason), so they do not apply to \(terminal); remove them from this call or request",
            method: endpoint?.method ?? (try? makeRequest())?.method ?? .get)
    }
}
