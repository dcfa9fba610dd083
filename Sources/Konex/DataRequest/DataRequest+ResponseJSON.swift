import Foundation

// `responseJSON(atKeyPath:)` in every form side by side: async, then the callback forms (on the caller's actor, or on
// a queue). See <doc:ResponsesAndDecoding> for where each runs.
extension DataRequest {
    /// Sends the request and parses the body as a ``JSON`` value (Konex's optional JSON parsing).
    /// - Parameter keyPath: A dotted path to a nested value.
    /// - Throws: ``KonexError``; an empty body is an error, not `.null`.
    public consuming func responseJSON(atKeyPath keyPath: String? = nil) async throws -> JSON {
        try await value(of: JSON.self, atKeyPath: keyPath, decoder: nil, errorType: nil)
    }

    /// Sends the request and delivers the body as ``JSON``, on the caller's actor.
    /// - Parameters:
    ///   - keyPath: A dotted path to a nested value.
    ///   - isolation: The caller's actor, where the callbacks run (leave the default).
    ///   - onSuccess: Called once with the parsed body.
    ///   - onError: Called once with a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func responseJSON(
        atKeyPath keyPath: String? = nil, isolation: isolated (any Actor)? = #isolation,
        onSuccess: @escaping (JSON) -> Void, onError: @escaping (KonexError) -> Void
    ) -> RequestHandle {
        deliver(
            isolation: isolation, { try await $0.responseJSON(atKeyPath: keyPath) },
            completion: split(onSuccess, onError))
    }

    /// Sends the request and delivers the body as ``JSON`` on `queue`.
    /// - Parameters:
    ///   - keyPath: A dotted path to a nested value.
    ///   - queue: Where the callbacks run; `nil` for the client's `callbackQueue`.
    ///   - onSuccess: Called once with the parsed body.
    ///   - onError: Called once with a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func responseJSON(
        atKeyPath keyPath: String? = nil, queue: DispatchQueue?, onSuccess: @escaping @Sendable (JSON) -> Void,
        onError: @escaping @Sendable (KonexError) -> Void
    ) -> RequestHandle {
        deliver(on: queue, { try await $0.responseJSON(atKeyPath: keyPath) }, completion: split(onSuccess, onError))
    }
}
