import Foundation

/// The one error Konex throws: which request, which stage, what came back, and why.
///
/// Its `description` is written for a log:
/// ```text
/// KonexError.decoding: GET https://api.example.com/posts → 200 OK: type mismatch at [3].title:
/// expected String, found a number. Body (812 bytes): [{"id":1,"title":"…
/// ```
/// Switch on ``stage`` (an extensible set of static members, so new stages never break your `switch`):
/// ```swift
/// do { posts = try await client.request(GetPosts()).validate().responseArray(of: Post.self) }
/// catch let error as KonexError where error.stage == .validation { show(error.errorBody(as: APIError.self)) }
/// ```
public struct KonexError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The pipeline stage that failed.
    public struct Stage: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The request could not be built: bad URL, header injection, unencodable body.
        public static let invalidRequest = Stage(rawValue: "invalidRequest")
        /// A ``RequestAdapter`` threw.
        public static let adaptation = Stage(rawValue: "adaptation")
        /// No HTTP response: connection refused, lost, timed out, DNS …
        public static let transport = Stage(rawValue: "transport")
        /// A redirect was refused: a scheme that is never followed, `https` to `http`, a loop, too many hops, a
        /// `Location` that is not a URL (see ``RedirectPolicy``). The error's `response` is the 3xx.
        public static let redirect = Stage(rawValue: "redirect")
        /// A response arrived but a validator rejected it.
        public static let validation = Stage(rawValue: "validation")
        /// A ``KonexResponseProcessor`` threw.
        public static let processing = Stage(rawValue: "processing")
        /// The body could not be turned into the requested value.
        public static let decoding = Stage(rawValue: "decoding")
        /// A file could not be read or written (uploads from files, downloads).
        public static let fileSystem = Stage(rawValue: "fileSystem")
        /// The task or the handle was cancelled.
        public static let cancelled = Stage(rawValue: "cancelled")
        /// A ``ConcurrencyLimit`` queue was full: the request was never sent.
        public static let queueFull = Stage(rawValue: "queueFull")
        /// The server refused a WebSocket handshake (the error's `response` is its answer, a 401 say).
        public static let handshake = Stage(rawValue: "handshake")
        /// A WebSocket peer broke the protocol: a bad frame, text that is not UTF-8, a message over the limit.
        public static let protocolViolation = Stage(rawValue: "protocolViolation")
        /// A WebSocket connection broke: lost without a close, a ping unanswered, a reader too far behind.
        public static let connection = Stage(rawValue: "connection")
    }

    // The fields live in one reference, copied on write: a `KonexError` is a word wide. Errors are rare, but the
    // pipeline's async frames keep a slot for every error it might build or pass on, and a 320-byte value in each
    // made a request's frames tens of kilobytes (see BENCHMARKS.md, "Memory a request holds").
    private final class Storage: @unchecked Sendable {  // mutated only while uniquely referenced (`unique()`)
        var stage: Stage
        var message: String
        var method: HTTPMethod?
        var url: URL?
        var request: TransportRequest?
        var response: ResponseHead?
        var data: Data?
        var underlyingError: (any Error)?
        var errorBody: (any Sendable)?
        /// An error body decoded on the caller's actor, as text (the value stays there).
        var errorBodyText: String?
        var codingPath: String?
        var attempt: Int
        var redaction: Redaction?
        var isDataPartial = false

        init(
            stage: Stage, message: String, method: HTTPMethod?, url: URL?, request: TransportRequest?,
            response: ResponseHead?, data: Data?, underlyingError: (any Error)?, errorBody: (any Sendable)?,
            codingPath: String?, attempt: Int
        ) {
            self.stage = stage
            self.message = message
            self.method = method
            self.url = url
            self.request = request
            self.response = response
            self.data = data
            self.underlyingError = underlyingError
            self.errorBody = errorBody
            self.codingPath = codingPath
            self.attempt = attempt
            redaction = nil
        }

        func copy() -> Storage {
            let copy = Storage(
                stage: stage, message: message, method: method, url: url, request: request, response: response,
                data: data, underlyingError: underlyingError, errorBody: errorBody, codingPath: codingPath,
                attempt: attempt)
            copy.redaction = redaction
            copy.isDataPartial = isDataPartial
            copy.errorBodyText = errorBodyText
            return copy
        }
    }

    private var storage: Storage

    /// The storage, copied first when another value shares it.
    private mutating func unique() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// The stage that failed.
    public var stage: Stage {
        get { storage.stage }
        set { unique().stage = newValue }
    }

    /// What went wrong, in one sentence.
    public var message: String {
        get { storage.message }
        set { unique().message = newValue }
    }

    /// The request's method, when known.
    public var method: HTTPMethod? {
        get { storage.method }
        set { unique().method = newValue }
    }

    /// The request's URL, when known (not known when the URL itself was invalid).
    public var url: URL? {
        get { storage.url }
        set { unique().url = newValue }
    }

    /// The request as sent, after adapters, when it got that far.
    public var request: TransportRequest? {
        get { storage.request }
        set { unique().request = newValue }
    }

    /// The HTTP response, when one arrived.
    public var response: ResponseHead? {
        get { storage.response }
        set { unique().response = newValue }
    }

    /// The body as received, when one arrived.
    public var data: Data? {
        get { storage.data }
        set { unique().data = newValue }
    }

    /// Whether ``data`` holds only the start of the body: the error body of a `stream()` or a `download(to:)` is
    /// kept for validators and error models up to 64 KiB, and this says a longer one went on past it.
    public var isDataPartial: Bool {
        get { storage.isDataPartial }
        set { unique().isDataPartial = newValue }
    }

    /// The error that caused this one: a `URLError`, a `DecodingError`, a validator's error …
    public var underlyingError: (any Error)? {
        get { storage.underlyingError }
        set { unique().underlyingError = newValue }
    }

    /// The error body decoded as the `errorType` the call asked for, when validation failed.
    public var errorBody: (any Sendable)? {
        get { storage.errorBody }
        set { unique().errorBody = newValue }
    }

    /// The error body decoded on the caller's actor (an `errorType:` whose conformance is isolated), as text.
    var errorBodyText: String? {
        get { storage.errorBodyText }
        set { unique().errorBodyText = newValue }
    }

    /// The coding path of a decoding failure, e.g. `data.items[3].title`.
    public var codingPath: String? {
        get { storage.codingPath }
        set { unique().codingPath = newValue }
    }

    /// The attempt that produced this error, starting at 1.
    public var attempt: Int {
        get { storage.attempt }
        set { unique().attempt = newValue }
    }

    /// What ``description`` and ``bodySnippet`` hide: the client's redaction, set as the error leaves a request;
    /// `nil` means ``Redaction/default``.
    public var redaction: Redaction? {
        get { storage.redaction }
        set { unique().redaction = newValue }
    }

    /// Creates an error; Konex fills in the request and response context as the error travels up.
    public init(
        stage: Stage, message: String, method: HTTPMethod? = nil, url: URL? = nil, request: TransportRequest? = nil,
        response: ResponseHead? = nil, data: Data? = nil, underlyingError: (any Error)? = nil,
        errorBody: (any Sendable)? = nil, codingPath: String? = nil, attempt: Int = 1
    ) {
        storage = Storage(
            stage: stage, message: message, method: method, url: url, request: request, response: response, data: data,
            underlyingError: underlyingError, errorBody: errorBody, codingPath: codingPath, attempt: attempt)
    }

    /// The response's status code, when a response arrived.
    public var statusCode: Int? { response?.statusCode }

    /// The response's headers (empty when no response arrived); `headers["Retry-After"]` ignores case.
    public var headers: HTTPHeaders { response?.headerFields ?? [:] }

    /// The decoded error body as `type`, when validation failed and the call gave `errorType: type`.
    /// - Parameter type: The error body's type.
    /// - Returns: The body, or `nil` when there is none of that type.
    public func errorBody<Body>(as type: Body.Type) -> Body? { errorBody as? Body }

    /// The error body as `type`: the value the call's `errorType:` decoded, else the body decoded now, where you ask.
    ///
    /// Models whose conformance belongs to the caller's actor (a main-actor app's `struct APIError: Codable`) are
    /// decoded here, on that actor:
    /// ```swift
    /// } catch let error as KonexError {
    ///     if let apiError = error.errorBody(as: APIError.self) { show(apiError.message) }
    /// }
    /// ```
    /// - Parameter type: The error body's type.
    /// - Returns: The body, or `nil` when the response had none, or it is not a `type`.
    public func errorBody<Body: Decodable>(as type: Body.Type) -> Body? {
        errorBody(as: type, decoder: Self.plainDecoder)
    }

    private static let plainDecoder = JSONDecoder()

    /// The error body as `type`, decoded now with `decoder` unless the call's `errorType:` already did.
    /// - Parameters:
    ///   - type: The error body's type.
    ///   - decoder: The decoder for a body decoded now (the client's `decoder`, when it is not a plain one).
    /// - Returns: The body, or `nil` when the response had none, or it is not a `type`.
    public func errorBody<Body: Decodable>(as type: Body.Type, decoder: JSONDecoder) -> Body? {
        if let body = errorBody as? Body { return body }
        guard stage == .validation, let data, !data.isEmpty, !isDataPartial else { return nil }
        return try? JSONTape.decode(type, from: data, with: decoder)
    }

    /// Whether this is a timeout (``TransportFailure/Kind/timedOut``, or `URLError.timedOut`).
    public var isTimeout: Bool { transportFailure == .timedOut }

    /// Why the transport got no response, the same kinds over every transport; `nil` for other failures.
    public var transportFailure: TransportFailure.Kind? {
        guard let underlyingError else { return nil }
        return TransportFailure.Kind(of: underlyingError)
    }

    /// The first ~200 bytes of the body as text, for logs, redacted (``redaction``) before it is cut.
    public var bodySnippet: String? {
        guard let data, !data.isEmpty else { return nil }
        return (redaction ?? .default).bodySnippet(
            data, contentType: response?.value(forHTTPHeaderField: "Content-Type"), limit: 200)
    }

    /// Written for a log, so nothing secret is in it: the URL, the message and the body go through ``redaction``
    /// (the client's).
    public var description: String {
        let redaction = self.redaction ?? .default
        var text = "KonexError.\(stage.rawValue):"
        if let method { text += " \(method.rawValue)" }
        if let url { text += " \(redaction.url(url.absoluteString))" }
        if let response {
            text += " → \(response.statusCode) \(ReasonPhrase.of(response.statusCode))"
        }
        text += ": \(redaction.text(message))"
        if attempt > 1 { text += " (attempt \(attempt))" }
        if let body = errorBody.map({ String(describing: $0) }) ?? errorBodyText {
            text += ". Error body: \(redaction.text(body))"
        }
        if let bodySnippet, let data { text += ". Body (\(data.count) bytes): \(bodySnippet)" }
        return text
    }

    public var debugDescription: String {
        var text = description
        if let underlyingError {
            text += "\nUnderlying error: \((redaction ?? .default).text(String(reflecting: underlyingError)))"
        }
        return text
    }
}
