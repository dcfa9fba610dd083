import Foundation

extension KonexError {
    /// A short, stable name for this failure, for a metric label or a span's `error.type`: few values, never a URL
    /// or a message.
    ///
    /// The status code of a response a validator rejected (`"503"`), `"timeout"`, `"cancelled"`, the `URLError` code's or
    /// ``TransportFailure``'s name for other transport failures (`"cannotConnectToHost"`), else the stage (`"decoding"`, `"queueFull"`, …).
    public var errorType: String {
        if stage == .cancelled { return "cancelled" }
        if stage == .validation || stage == .handshake, let statusCode { return String(statusCode) }
        if isTimeout { return "timeout" }
        if stage == .transport, let urlError = underlyingError as? URLError { return urlError.code.name }
        if stage == .transport, let failure = underlyingError as? TransportFailure { return failure.kind.rawValue }
        return stage.rawValue
    }
}
