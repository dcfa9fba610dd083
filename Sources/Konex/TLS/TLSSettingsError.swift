/// Why a certificate, a pin or a client identity could not be read: thrown while building ``TLSSettings``.
public struct TLSSettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, naming the input.
    public let message: String

    init(_ message: String) { self.message = message }

    public var description: String { "TLS settings: \(message)" }
}
