import Foundation

/// A response whose head has arrived and passed validation, and whose body is still arriving.
///
/// Read the body once, in the form that suits it: ``chunks``, ``lines(maximumLength:)``, ``events(maximumLineLength:maximumEventSize:)``
/// (Server-Sent Events), ``events(decoding:until:decoder:)-8zk8a`` or ``jsonLines(decoding:decoder:)-7j1tp``. Every error is a
/// ``KonexError``; cancelling the reading task, or ``cancel()``, stops the transfer at once and ends the stream with
/// `.cancelled`, once.
/// ```swift
/// let stream = try await client.request(Chat(prompt: "hi")).validate().stream()
/// print(stream.statusCode)
/// for try await delta in stream.events(decoding: Delta.self, until: "[DONE]") { print(delta.text, terminator: "") }
/// ```
public final class DataStream: Sendable {
    /// The request as sent, after adapters.
    public let request: TransportRequest
    /// The response head.
    public let response: ResponseHead
    /// Konex's timing up to the head.
    public let timing: RequestTiming
    /// The request this stream came from (for reconnection).
    let source: DataRequest
    let body: ByteStream
    /// The timeouts the stream was opened with, which a reconnection carries over.
    let idleTimeout: Duration?
    let totalTimeout: Duration?

    init(
        source: DataRequest, answer: ReceivedResponse, body: ByteStream, idleTimeout: Duration?,
        totalTimeout: Duration?
    ) {
        self.source = source
        self.idleTimeout = idleTimeout
        self.totalTimeout = totalTimeout
        request = answer.request
        response = answer.response
        timing = answer.timing
        self.body = body
    }

    // A stream nobody holds any more is read by nobody: stop the transfer rather than fill the buffer (its timeouts'
    // watch ends with it).
    deinit { body.cancel() }

    /// The HTTP status code.
    public var statusCode: Int { response.statusCode }

    /// The response headers, looked up in any case.
    public var headers: HTTPHeaders { response.headerFields }

    /// The body's chunks as they arrive.
    public var chunks: StreamChunks { StreamChunks(stream: self) }

    /// The body as lines of UTF-8 text (ended by LF, CR or CRLF; a last line without an ending is included).
    /// - Parameter maximumLength: The longest line accepted, in bytes; longer is a `.decoding` error.
    public func lines(maximumLength: Int = ServerSentEventParser.defaultMaximumLineLength) -> StreamLines {
        StreamLines(chunks: chunks, maximumLength: maximumLength)
    }

    /// Each non-empty line decoded as JSON (JSON Lines, NDJSON).
    /// - Parameters:
    ///   - type: The type of each line.
    ///   - decoder: A decoder; the client's by default.
    public func jsonLines<T: Decodable & Sendable>(decoding type: T.Type, decoder: JSONDecoder? = nil) -> JSONLines<T> {
        JSONLines(lines: lines(), decoder: decoder ?? source.client.decoder, stream: self, decodesOnReader: false)
    }

    /// The body as Server-Sent Events; reconnects when the request asked for it with ``DataRequest/reconnecting(_:)``.
    /// - Parameters:
    ///   - maximumLineLength: The longest line accepted, in bytes.
    ///   - maximumEventSize: The most bytes of data one event may gather (endless `data:` lines with no blank line
    ///     end the stream with a `.decoding` error instead of taking all memory).
    public func events(
        maximumLineLength: Int = ServerSentEventParser.defaultMaximumLineLength,
        maximumEventSize: Int = ServerSentEventParser.defaultMaximumEventSize
    ) -> ServerSentEvents {
        ServerSentEvents(stream: self, maximumLineLength: maximumLineLength, maximumEventSize: maximumEventSize)
    }

    /// Each event's `data` decoded as JSON, until an event whose data is `sentinel` (e.g. `"[DONE]"`).
    /// - Parameters:
    ///   - type: The type of each event's data.
    ///   - sentinel: Data that ends the stream instead of being decoded; `nil` to read to the end.
    ///   - decoder: A decoder; the client's by default.
    public func events<T: Decodable & Sendable>(
        decoding type: T.Type, until sentinel: String? = nil, decoder: JSONDecoder? = nil
    ) -> DecodedEvents<T> {
        DecodedEvents(
            events: events(), sentinel: sentinel, decoder: decoder ?? source.client.decoder, stream: self,
            decodesOnReader: false)
    }

    /// Stops the transfer; a reader gets `.cancelled` once.
    public func cancel() { body.cancel() }

    /// The error a reader sees: always a ``KonexError`` naming this request.
    func konexError(_ error: any Error) -> KonexError {
        var failure = Self.konexError(error, request: request, response: response, attempt: timing.attempt)
        failure.redaction = failure.redaction ?? source.client.ownRedaction?.redaction
        return failure
    }

    /// `error` as a ``KonexError`` naming `request`, for a stream that ended with it.
    static func konexError(_ error: any Error, request: TransportRequest, response: ResponseHead, attempt: Int)
        -> KonexError
    {
        if let error = error as? KonexError { return error }
        var failure: KonexError
        if error is CancellationError {
            failure = .cancelled(request, method: request.method, url: request.url)
        } else if let stream = error as? StreamFailure {
            let stage: KonexError.Stage =
                switch stream.kind {
                case .notAnEventStream: .validation
                case .lineTooLong, .invalidUTF8, .eventTooLarge: .decoding
                default: .transport
                }
            failure = KonexError(
                stage: stage, message: stream.description, method: request.method,
                url: request.url, request: request, underlyingError: stream)
        } else {
            failure = .transport(error, request: request)
        }
        failure.response = response
        failure.attempt = attempt
        return failure
    }
}

#if compiler(>=6.2)
    extension DataStream {
        /// Each non-empty line decoded as JSON on the reader's actor, for a model whose conformance belongs to it.
        ///
        /// ```swift
        /// for try await post in try await client.request(Feed()).stream().jsonLines(decoding: Post.self) {
        ///     posts.append(post)  // a main-actor model, decoded and used on the main actor
        /// }
        /// ```
        /// - Parameters:
        ///   - type: The type of each line.
        ///   - decoder: A decoder; the client's by default.
        public func jsonLines<T: Decodable>(decoding type: T.Type, decoder: JSONDecoder? = nil) -> JSONLines<T> {
            JSONLines(lines: lines(), decoder: decoder ?? source.client.decoder, stream: self, decodesOnReader: true)
        }

        /// Each event's `data` decoded as JSON on the reader's actor, for a model whose conformance belongs to it.
        /// - Parameters:
        ///   - type: The type of each event's data.
        ///   - sentinel: Data that ends the stream instead of being decoded; `nil` to read to the end.
        ///   - decoder: A decoder; the client's by default.
        public func events<T: Decodable>(
            decoding type: T.Type, until sentinel: String? = nil, decoder: JSONDecoder? = nil
        ) -> DecodedEvents<T> {
            DecodedEvents(
                events: events(), sentinel: sentinel, decoder: decoder ?? source.client.decoder, stream: self,
                decodesOnReader: true)
        }
    }
#endif
