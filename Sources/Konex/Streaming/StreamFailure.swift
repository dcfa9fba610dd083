/// Why a streamed body ended early: the `underlyingError` of the ``KonexError`` a stream throws.
///
/// ```swift
/// catch let error as KonexError where (error.underlyingError as? StreamFailure)?.kind == .idleTimeout { … }
/// ```
public struct StreamFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong; an extensible set, so new kinds never break a `switch`.
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// No bytes arrived for longer than the idle timeout.
        public static let idleTimeout = Kind(rawValue: "idleTimeout")
        /// The whole stream took longer than its total timeout.
        public static let totalTimeout = Kind(rawValue: "totalTimeout")
        /// The reader fell further behind the network than the buffer limit.
        public static let bufferOverflow = Kind(rawValue: "bufferOverflow")
        /// A line (or an event's field) was longer than the parser's limit.
        public static let lineTooLong = Kind(rawValue: "lineTooLong")
        /// An event's data grew past the parser's `maximumEventSize` without a blank line to end it.
        public static let eventTooLarge = Kind(rawValue: "eventTooLarge")
        /// The bytes were not valid UTF-8 text.
        public static let invalidUTF8 = Kind(rawValue: "invalidUTF8")
        /// `events()` was asked of a response that is not `text/event-stream`.
        public static let notAnEventStream = Kind(rawValue: "notAnEventStream")
    }

    /// What went wrong.
    public let kind: Kind
    /// A sentence for logs.
    public let description: String

    /// Creates a failure.
    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    static func bufferOverflow(limit: Int) -> StreamFailure {
        StreamFailure(
            .bufferOverflow,
            "the reader fell more than \(limit) bytes behind the network (raise stream(bufferLimit:) or read faster)")
    }

    /// Whether this is one of the two timeouts.
    public var isTimeout: Bool { kind == .idleTimeout || kind == .totalTimeout }
}
