import Foundation

/// What one attempt got back: the head, the body, where it came from and Konex's own timing.
///
/// The way back has three shapes: a transport or an interceptor answers with a head and a ``ResponseBody`` (a
/// ``TransportReply``, which says where it came from) and step 4 takes its body the way the caller wants it; a
/// `TransportResponse` adds Konex's timing, and plugins, validators, processors and the terminals read it; the
/// caller gets a ``Response``.
public struct TransportResponse: Sendable {
    /// Step 4's reply, its timing and the request it answers, held by reference: the pipeline's async frames keep a
    /// slot for every copy of a response (more than twenty between the transport and a terminal), and 300 bytes in
    /// each took 2.6 KB of every parked request.
    private var storage: Storage
    /// The body after processors (step 7); `nil` when it is ``data`` (no processors, or a body not in memory).
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

    /// The reply as step 4 took it: the body whole in memory, in a temporary file the caller then owns, still
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

    /// Step 4's reply to `request`, timed.
    init(_ reply: TransportReply, timing: RequestTiming, for request: TransportRequest) {
        storage = Storage(reply, timing: timing, request: request)
    }
}

extension TransportResponse {
    /// The body the terminals decode: after processors.
    var processedData: Data { processed ?? data }

    /// The body in a file, for `download(to:)`: step 4 took it there, and a body that came otherwise is written now.
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
