import Foundation

// What comes back, in the order it is made: a transport or an interceptor answers with a `TransportReply` (the head,
// the body as handed over, where it came from); the exchange takes its body the way the caller wants it and times the
// attempt, making the `ReceivedResponse` that plugins, validators, processors and the terminals read; the caller gets
// a `Response` (DataRequest/Response.swift) or the decoded value.

/// What an interceptor chain answers: the response head, its body as the transport handed it over, and where it came
/// from (the network or a cache, whether it was shared, how long it queued).
///
/// The body is a ``ResponseBody``, the transport's own shape: whole for the `response…` terminals
/// (``TransportNext/delivery`` ``BodyDelivery/whole``), still arriving for `stream()`, in a file for `download(to:)`.
/// An interceptor that needs the bytes whole collects them; one that holds a resource for as long as the body runs
/// waits for ``ResponseBody/whenEnded(_:)``. Nothing in a reply is hidden from an interceptor: ``ConcurrencyLimit``,
/// ``HTTPCache`` and ``RequestCoalescer`` use this public shape alone.
/// ```swift
/// struct Slot: TransportInterceptor {
///     let gate: Gate
///     func intercept(_ request: TransportRequest, next: TransportNext) async throws -> TransportReply {
///         await gate.enter()
///         let reply: TransportReply
///         do { reply = try await next(request) } catch { gate.leave(); throw error }
///         reply.body.whenEnded { gate.leave() }   // a stream keeps its slot until it ends
///         return reply
///     }
/// }
/// ```
public struct TransportReply: Sendable {
    /// The response head.
    public var response: ResponseHead
    /// The body: whole, still arriving, or in a file (see ``TransportNext/delivery``).
    public var body: ResponseBody
    /// Where the response came from.
    public var source: ResponseSource
    // (Declared before `queueTime`: the two one-byte fields share the padding the body leaves, 8 bytes less in
    // every reply, and the exchange keeps about ten of them in every request's async frame.)
    /// Whether one transport call answered this and other identical requests (``RequestCoalescer``).
    public var isShared: Bool
    /// Time spent waiting for a ``ConcurrencyLimit`` slot; zero when none was waited for.
    public var queueTime: Duration
    /// What Konex adds once it has taken the reply, rarely anything: held by reference, `nil` when empty (the exchange
    /// keeps about ten replies in every request's async frame, and these two fields were 24 bytes of each).
    private var taken: Taken?

    private final class Taken: Sendable {
        let redirects: [Redirect]
        let errorHead: Data
        init(redirects: [Redirect], errorHead: Data) {
            self.redirects = redirects
            self.errorHead = errorHead
        }
    }

    /// The redirects followed to reach ``response``, first to last (set by Konex once it has followed them).
    var redirects: [Redirect] {
        get { taken?.redirects ?? [] }
        set { setTaken(redirects: newValue, errorHead: errorHead) }
    }
    /// The start of an error body (up to 64 KiB, for a status outside 200..<300) kept for validators and error models
    /// once Konex has taken ``body`` into a file or as a stream (a stream gives it back to its reader first); empty
    /// otherwise.
    var errorHead: Data {
        get { taken?.errorHead ?? Data() }
        set { setTaken(redirects: redirects, errorHead: newValue) }
    }

    /// Boxes what Konex added, or nothing when both are empty (the usual reply allocates nothing).
    private mutating func setTaken(redirects: [Redirect], errorHead: Data) {
        taken = redirects.isEmpty && errorHead.isEmpty ? nil : Taken(redirects: redirects, errorHead: errorHead)
    }

    /// Creates a reply.
    /// - Parameters:
    ///   - response: The response head.
    ///   - body: The body, as a transport hands it over.
    ///   - source: Where the response came from.
    ///   - queueTime: Time spent waiting for a slot.
    ///   - isShared: Whether this answer is shared with other callers.
    public init(
        response: ResponseHead, body: ResponseBody, source: ResponseSource = .network, queueTime: Duration = .zero,
        isShared: Bool = false
    ) {
        self.response = response
        self.body = body
        self.source = source
        self.queueTime = queueTime
        self.isShared = isShared
    }

    /// Creates a reply whose body is whole in memory.
    public init(
        data: Data, response: ResponseHead, source: ResponseSource = .network, queueTime: Duration = .zero,
        isShared: Bool = false
    ) {
        self.init(
            response: response, body: ResponseBody(data), source: source, queueTime: queueTime, isShared: isShared)
    }

    /// Creates a reply from a Foundation response, for an interceptor that answers with one.
    /// - Parameters:
    ///   - data: The body.
    ///   - response: The response; read as a ``ResponseHead`` without copying its fields.
    ///   - source: Where the response came from.
    public init(data: Data, response: HTTPURLResponse, source: ResponseSource = .network) {
        self.init(data: data, response: ResponseHead(response), source: source)
    }

    /// The body when it is whole in memory; empty for a body still arriving or in a file.
    ///
    /// Read ``body`` instead: it says which it is. Setting this replaces the body with `newValue`, whole.
    @available(
        *, deprecated, message: "read `body` (a ResponseBody: `body.data` when whole, `collect(upTo:)` otherwise)"
    )
    public var data: Data {
        get { body.data ?? Data() }
        set { body = ResponseBody(newValue) }
    }

    /// Whether the body is whole in memory: `false` for a body still arriving (`stream()`) or in a file
    /// (`download(to:)`). Such a reply must not be stored or shared as if it were whole.
    public var bodyIsInMemory: Bool { body.data != nil }
}

/// Where a response came from.
public enum ResponseSource: String, Sendable, Hashable, CustomStringConvertible {
    /// The server answered this request.
    case network
    /// A stored response was served without asking the server.
    case cache
    /// A stored response was served after the server confirmed it with `304 Not Modified`.
    case revalidated

    public var description: String { rawValue }
}

/// What one attempt got back: the head, the body, where it came from and Konex's own timing.
///
/// The way back has three shapes: a transport or an interceptor answers with a head and a ``ResponseBody`` (a
/// ``TransportReply``, which says where it came from) and the exchange takes its body the way the caller wants it; a
/// `ReceivedResponse` adds Konex's timing, and plugins, validators, processors and the terminals read it; the
/// caller gets a ``Response``.
public struct ReceivedResponse: Sendable {
    /// The exchange's reply, its timing and the request it answers, held by reference: the pipeline's async frames keep
    /// a slot for every copy of a response (more than twenty between the transport and a terminal), and 300 bytes in
    /// each took 2.6 KB of every parked request.
    private var storage: Storage
    /// The body after processors; `nil` when it is ``data`` (no processors, or a body not in memory).
    var processed: Data? = nil
    /// The client's redaction when it is not the default: what errors made from this response describe with.
    var redaction: Redaction.Shared? = nil

    private final class Storage: Sendable {
        let reply: TransportReply
        let timing: RequestTiming
        let request: TransportRequest

        init(_ reply: TransportReply, timing: RequestTiming, request: TransportRequest) {
            self.reply = reply
            self.timing = timing
            self.request = request
        }
    }

    /// The reply as the exchange took it: the body whole in memory, in a temporary file the caller then owns, still
    /// arriving, or the connection a WebSocket handshake opened.
    var reply: TransportReply {
        get { storage.reply }
        set { storage = Storage(newValue, timing: storage.timing, request: storage.request) }
    }
    /// When the attempt started and how long it took.
    public var timing: RequestTiming { storage.timing }
    /// The request answered, as adapted (the first of a redirect chain): what the terminals report.
    var request: TransportRequest { storage.request }

    /// The HTTP response head.
    public var response: ResponseHead { storage.reply.response }
    /// Why the transport sent this attempt twice on its own (``ResponseHead/transportResend``); `nil` when once.
    public var transportResend: String? { storage.reply.response.transportResend }
    /// The body as received (before processors). For `download(to:)` and `stream()` only the start of an error body
    /// (up to 64 KB, when the status is outside 200..<300), and empty otherwise.
    public var data: Data { storage.reply.dataInMemory }
    /// Where the body was written, for `download(to:)`.
    public var file: URL? { storage.reply.body.file }
    /// Where the response came from: the network, or an ``HTTPCache`` (fresh, or revalidated with a 304).
    public var source: ResponseSource {
        get { storage.reply.source }
        set { reply.source = newValue }
    }
    /// Whether one transport call answered this and other identical requests (``RequestCoalescer``).
    public var isShared: Bool {
        get { storage.reply.isShared }
        set { reply.isShared = newValue }
    }
    /// The redirects followed to reach `response`, first to last; empty when the first answer was the last.
    public var redirects: [Redirect] {
        get { storage.reply.redirects }
        set { reply.redirects = newValue }
    }

    /// Creates a transport response.
    public init(response: ResponseHead, data: Data, timing: RequestTiming, file: URL? = nil) {
        var reply = TransportReply(response: response, body: file.map(ResponseBody.file) ?? ResponseBody(data))
        if file != nil { reply.errorHead = data }
        self.init(reply, timing: timing, for: TransportRequest(head: RequestHead(method: .get, url: response.url)))
    }

    /// The exchange's reply to `request`, timed.
    init(_ reply: TransportReply, timing: RequestTiming, for request: TransportRequest) {
        storage = Storage(reply, timing: timing, request: request)
    }
}

/// The earlier name of ``ReceivedResponse``, from when one word named both answer types.
@available(*, deprecated, renamed: "ReceivedResponse")
public typealias TransportResponse = ReceivedResponse

extension ReceivedResponse {
    /// The body the terminals decode: after processors.
    var processedData: Data { processed ?? data }

    /// The body in a file, for `download(to:)`: the exchange took it there, and a body that came otherwise is written
    /// now.
    /// - Throws: ``KonexError`` of stage ``KonexError/Stage/fileSystem`` when it cannot be written.
    func bodyFile() throws(KonexError) -> URL {
        switch reply.body.storage {
        case .file(let file): return file
        case .whole(let data):
            let file = BodyFile.temporary()
            do { try BodyFile.createOwnerOnly(file, contents: data) } catch {
                throw failure(.fileSystem, "cannot write the body to \(file.path)", error)
            }
            return file
        case .stream, .webSocket:
            reply.discard()
            throw failure(.transport, "the body was not received into a file", nil)
        }
    }

    /// The body as it arrives, for `stream()`: a body that is whole already comes as one chunk.
    func bodyStream() throws(KonexError) -> ByteStream {
        switch reply.body.storage {
        case .stream(let stream): return stream
        case .whole(let data): return ByteStream(data)
        case .file(let file):
            do { return try reply.body.stream } catch {
                throw failure(.fileSystem, "cannot read the body from \(file.path)", error)
            }
        case .webSocket:
            reply.discard()
            throw failure(.transport, "a WebSocket connection has no body to stream", nil)
        }
    }

    /// The open connection, for `webSocket()`.
    func connection() throws(KonexError) -> any WebSocketChannel {
        guard let channel = reply.webSocket else {
            reply.discard()
            throw failure(.handshake, "the handshake was answered without a WebSocket connection", nil)
        }
        return channel
    }

    private func failure(_ stage: KonexError.Stage, _ message: String, _ underlying: (any Error)?) -> KonexError {
        KonexError(
            stage: stage, message: message, method: request.method, url: request.url, request: request,
            response: response, data: data, underlyingError: underlying, attempt: timing.attempt)
    }
}

extension TransportReply {
    /// The bytes in memory: the whole body, or the start of an error body kept beside a file or a stream.
    // Matched in place: `body.data ?? errorHead` copied the body out of the reply first, eight times a request in
    // the validators' loop before it read the body once.
    var dataInMemory: Data {
        if case .whole(let data) = body.storage { return data }
        return errorHead
    }

    /// Whether ``errorHead`` is only the start of a longer error body (one of a stream or a download, past the 64 KiB
    /// kept for validators and error models).
    var errorHeadIsPartial: Bool {
        switch body.storage {
        case .whole, .webSocket: false
        case .file(let file): !errorHead.isEmpty && BodyFile.size(of: file) > Int64(errorHead.count)
        case .stream(let stream): stream.heldBytes > errorHead.count
        }
    }

    /// The body still arriving, for a streamed one.
    var stream: ByteStream? {
        if case .stream(let stream) = body.storage { return stream }
        return nil
    }

    /// The open connection, for a WebSocket handshake.
    var webSocket: (any WebSocketChannel)? {
        if case .webSocket(let connection) = body.storage { return connection.channel }
        return nil
    }

    /// The instruments' recorders of a WebSocket handshake, ended when its connection closes.
    var recorders: Recorders? {
        if case .webSocket(let connection) = body.storage { return connection.recorders }
        return nil
    }

    /// Lets go of a body nobody will read: removes its file, stops its transfer (its connection and any
    /// ``ConcurrencyLimit`` slot go with it), or closes its connection.
    func discard() { body.cancel() }
}

/// Timing measured by Konex itself, plus the system's phase timings where the platform reports them.
public struct RequestTiming: Sendable, Hashable {
    /// Wall-clock time when the first attempt started.
    public var startDate: Date
    /// From the start of the first attempt to the end of the last attempt's transport call.
    public var total: Duration
    /// The last attempt's transport call alone.
    public var transport: Duration
    /// The attempt number, starting at 1.
    public var attempt: Int
    /// DNS, connect, TLS and first-byte times of the last attempt, from `URLSessionTaskMetrics` on Apple platforms;
    /// `nil` where the platform does not report them (FoundationNetworking never does).
    public var phases: TransferPhases?
    /// How long the last attempt waited for a ``ConcurrencyLimit`` slot (part of ``transport``); zero without one.
    public var queue: Duration

    /// Creates a timing.
    public init(
        startDate: Date, total: Duration, transport: Duration, attempt: Int, phases: TransferPhases? = nil,
        queue: Duration = .zero
    ) {
        self.startDate = startDate
        self.total = total
        self.transport = transport
        self.attempt = attempt
        self.phases = phases
        self.queue = queue
    }
}

/// How long each phase of a transfer took, as the system measured it (`nil` for a phase that did not happen, such
/// as DNS and connect on a reused connection).
public struct TransferPhases: Sendable, Hashable {
    // Five optional durations are 113 bytes; every timing and every response carries a `TransferPhases?`, and the
    // pipeline's async frames keep a slot for each copy. In one immutable reference they are a word wide.
    private struct Values: Hashable {
        var domainLookup, connect, secureConnection, firstByte, download: Duration?
    }

    private final class Storage: Sendable {
        let values: Values
        init(_ values: Values) { self.values = values }
    }

    private var storage: Storage

    private mutating func update(_ change: (inout Values) -> Void) {
        var values = storage.values
        change(&values)
        storage = Storage(values)
    }

    /// Resolving the host name.
    public var domainLookup: Duration? {
        get { storage.values.domainLookup }
        set { update { $0.domainLookup = newValue } }
    }

    /// Opening the connection, TLS included.
    public var connect: Duration? {
        get { storage.values.connect }
        set { update { $0.connect = newValue } }
    }

    /// The TLS handshake.
    public var secureConnection: Duration? {
        get { storage.values.secureConnection }
        set { update { $0.secureConnection = newValue } }
    }

    /// From sending the request to the first byte of the response.
    public var firstByte: Duration? {
        get { storage.values.firstByte }
        set { update { $0.firstByte = newValue } }
    }

    /// Receiving the response, first byte to last.
    public var download: Duration? {
        get { storage.values.download }
        set { update { $0.download = newValue } }
    }

    /// Creates phase timings.
    public init(
        domainLookup: Duration? = nil, connect: Duration? = nil, secureConnection: Duration? = nil,
        firstByte: Duration? = nil, download: Duration? = nil
    ) {
        storage = Storage(
            Values(
                domainLookup: domainLookup, connect: connect, secureConnection: secureConnection, firstByte: firstByte,
                download: download))
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.storage.values == rhs.storage.values }

    public func hash(into hasher: inout Hasher) { hasher.combine(storage.values) }
}
