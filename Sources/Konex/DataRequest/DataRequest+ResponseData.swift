import Foundation

// The `Data` terminals: `response()` (the envelope) and `responseData()`, each in every form side by side: async, then
// the callback forms (on the caller's actor, or on a queue). See <doc:ResponsesAndDecoding> for where each runs.
extension DataRequest {
    /// Sends the request and returns the envelope with the (processed) body.
    /// - Returns: The body with the request, response and timing.
    /// - Throws: ``KonexError``.
    public consuming func response() async throws -> Response<Data> {
        try await serialize { answer in answer.processedData }
    }

    /// Sends the request and returns the (processed) body.
    /// - Throws: ``KonexError``.
    public consuming func responseData() async throws -> Data { try await execute().processedData }

    /// Sends the request and delivers the envelope or the error, on the caller's actor.
    /// - Parameters:
    ///   - isolation: The caller's actor, where `completion` runs (leave the default).
    ///   - completion: Called once with the response or a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func response(
        isolation: isolated (any Actor)? = #isolation,
        completion: @escaping (Result<Response<Data>, KonexError>) -> Void
    ) -> RequestHandle {
        deliver(isolation: isolation, { try await $0.response() }, completion: completion)
    }

    /// Sends the request and delivers the envelope or the error on `queue`.
    /// - Parameters:
    ///   - queue: Where `completion` runs; `nil` for the client's `callbackQueue`.
    ///   - completion: Called once with the response or a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func response(
        queue: DispatchQueue?, completion: @escaping @Sendable (Result<Response<Data>, KonexError>) -> Void
    ) -> RequestHandle {
        deliver(on: queue, { try await $0.response() }, completion: completion)
    }

    /// Sends the request and delivers the body, on the caller's actor.
    /// - Parameters:
    ///   - isolation: The caller's actor, where the callbacks run (leave the default).
    ///   - onSuccess: Called once with the body.
    ///   - onError: Called once with a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func responseData(
        isolation: isolated (any Actor)? = #isolation, onSuccess: @escaping (Data) -> Void,
        onError: @escaping (KonexError) -> Void
    ) -> RequestHandle {
        deliver(isolation: isolation, { try await $0.responseData() }, completion: split(onSuccess, onError))
    }

    /// Sends the request and delivers the body on `queue`.
    /// - Parameters:
    ///   - queue: Where the callbacks run; `nil` for the client's `callbackQueue`.
    ///   - onSuccess: Called once with the body.
    ///   - onError: Called once with a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func responseData(
        queue: DispatchQueue?, onSuccess: @escaping @Sendable (Data) -> Void,
        onError: @escaping @Sendable (KonexError) -> Void
    ) -> RequestHandle {
        deliver(on: queue, { try await $0.responseData() }, completion: split(onSuccess, onError))
    }
}
