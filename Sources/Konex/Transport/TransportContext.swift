import Foundation

/// How the caller takes a request's response, and where a transport reports what it sees: hints, not
/// requirements, so a transport that ignores them still works.
public struct TransportContext: Sendable {
    /// How the caller takes the body: ``BodyDelivery/whole`` (collected into memory; returning it whole is cheapest),
    /// ``BodyDelivery/incremental`` (read as it arrives: stream it), or ``BodyDelivery/file`` (written to a file by
    /// Konex; a transport that writes files itself may return ``ResponseBody/file(_:)``).
    public let delivery: BodyDelivery
    /// The most bytes a streamed body should hold for a slow reader (see ``ByteStream/makeStream(bufferLimit:onCancel:)``).
    public let bufferLimit: Int
    /// Whether someone listens for progress: a transport that can count bytes sent reports them to
    /// ``reportUpload(_:)``; Konex counts the bytes received itself.
    public var observesProgress: Bool { observer?.progress != nil }
    let observer: TransferObserver?
    /// The client's TLS: the trust and client certificate this request's connection must use. Not a hint: a
    /// transport that cannot apply it says so in ``TLSCapable/checkCanApply(_:)``, and Konex then never sends.
    public let tls: TLSSettings

    /// Creates a context (for calling a transport directly, or testing one).
    /// - Parameters:
    ///   - delivery: How the body is taken; ``BodyDelivery/whole`` by default.
    ///   - bufferLimit: The buffer for a streamed body; ``ByteStream/defaultBufferLimit`` by default.
    ///   - tls: The trust and client certificate to use; the system's trust by default.
    ///   - onUpload: Hears the request body's progress, where the transport reports it.
    ///   - onPhases: Hears the phase timings, where the transport measures them.
    public init(
        delivery: BodyDelivery = .whole, bufferLimit: Int = ByteStream.defaultBufferLimit, tls: TLSSettings = .default,
        onUpload: (@Sendable (TransferProgress) -> Void)? = nil, onPhases: (@Sendable (TransferPhases) -> Void)? = nil
    ) {
        let observer =
            onUpload == nil && onPhases == nil ? nil : TransferObserver(progress: onUpload, phases: onPhases)
        self.init(delivery: delivery, bufferLimit: bufferLimit, observer: observer, tls: tls)
    }

    init(delivery: BodyDelivery, bufferLimit: Int, observer: TransferObserver?, tls: TLSSettings) {
        self.delivery = delivery
        self.bufferLimit = bufferLimit
        self.observer = observer
        self.tls = tls
    }

    /// Reports the request body's bytes sent so far.
    /// - Parameter progress: Bytes sent, and the total when known.
    public func reportUpload(_ progress: TransferProgress) { observer?.progress?(progress) }

    /// Reports the system's phase timings (DNS, connect, TLS, first byte), when the transport measures them.
    /// - Parameter phases: The timings.
    public func report(_ phases: TransferPhases) { observer?.phases?(phases) }

    /// Whether someone listens for phase timings: measuring them may cost a transport something per request. Konex
    /// listens on Apple platforms, where URLSession measures them, and wherever progress is observed.
    public var observesPhases: Bool { observer?.phases != nil }
}

/// Where a transport's reports go.
struct TransferObserver: Sendable {
    /// Bytes sent so far.
    let progress: (@Sendable (TransferProgress) -> Void)?
    /// The phase timings, once known.
    let phases: (@Sendable (TransferPhases) -> Void)?
}
