import Foundation

/// A request as an instrument first sees it: built, not yet adapted or sent.
public struct InstrumentedRequest: Sendable {
    /// The HTTP method.
    public let method: HTTPMethod
    /// The URL as built (adapters may still change it; `attemptWillSend(_:attempt:)` sees the final
    /// one). `nil` when the request could not be built.
    public let url: URL?
    /// The route the request names, e.g. `/posts/{id}` (``KonexRequest/urlTemplate``): a span name and a metric
    /// label of bounded cardinality. `nil` when it names none.
    public let urlTemplate: String?
    /// Which terminal sends it.
    public let kind: Kind
    /// The endpoint, when the request was made from one.
    public let endpoint: (any KonexRequest)?
    /// The operation the call named (``DataRequest/operation(_:)``; a generated client's `operationId`): a span name
    /// and a metric label of bounded cardinality. `nil` when it named none.
    public let operationID: String?

    /// Creates a description (for testing an instrument on its own).
    public init(
        method: HTTPMethod, url: URL?, urlTemplate: String? = nil, kind: Kind = .data,
        endpoint: (any KonexRequest)? = nil, operationID: String? = nil
    ) {
        self.method = method
        self.url = url
        self.urlTemplate = urlTemplate
        self.kind = kind
        self.endpoint = endpoint
        self.operationID = operationID
    }

    /// Which terminal sends a request; an extensible set, so new kinds never break a `switch`.
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A `response…` terminal: the body in memory.
        public static let data = Kind(rawValue: "data")
        /// `download(to:)`: the body in a file.
        public static let download = Kind(rawValue: "download")
        /// `stream()` and Server-Sent Events: the body as it arrives.
        public static let stream = Kind(rawValue: "stream")
        /// `webSocket()`: a connection, ended when it closes.
        public static let webSocket = Kind(rawValue: "webSocket")
    }
}

/// A retry about to happen.
public struct RetryEvent: Sendable {
    /// The attempt that failed, from 1.
    public let attempt: Int
    /// Why it failed.
    public let error: KonexError
    /// The retrier that asked for another attempt.
    public let retrier: any RequestRetrier
    /// How long the pipeline waits (on the client's clock) before the next attempt.
    public let delay: Duration

    /// Creates a retry event (for testing an instrument on its own).
    public init(attempt: Int, error: KonexError, retrier: any RequestRetrier, delay: Duration) {
        self.attempt = attempt
        self.error = error
        self.retrier = retrier
        self.delay = delay
    }

    /// Whether a ``TokenAuthenticator`` asked for it: the server refused a token and a refreshed one is next.
    public var refreshesToken: Bool { retrier is TokenAuthenticator }
}

/// How a request ended.
public struct RequestEnd: Sendable {
    /// The last response head, or the error the request ended with.
    public let result: Result<ResponseHead, KonexError>
    /// How many attempts were made (0 when the request failed before its first was sent).
    public let attempts: Int
    /// From the start to the end, on the continuous clock (for a stream: until its body ended).
    public let duration: Duration

    /// Creates an end (for testing an instrument on its own).
    public init(result: Result<ResponseHead, KonexError>, attempts: Int, duration: Duration) {
        self.result = result
        self.attempts = attempts
        self.duration = duration
    }
}
