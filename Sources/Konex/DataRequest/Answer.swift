import Foundation

/// One attempt's answer, the one internal shape between the interceptors and the terminals: the head, the body the
/// way the caller takes it, and where it came from.
///
/// The transport answers with a head and a ``ResponseBody``; interceptors with a ``TransportReply`` (the same two, and
/// where they came from); step 4 turns either into an `Answer` (``Received/taken(_:of:for:as:report:limit:)``), and
/// plugins, validators, processors and the terminals read it from there.
struct Answer: Sendable {
    var response: ResponseHead
    var payload: Payload
    var provenance = Provenance()

    /// The body, the way the caller takes it.
    enum Payload: Sendable {
        /// The whole body in memory.
        case data(Data)
        /// The whole body in a temporary file the caller then owns, and the start of an error body (empty for a
        /// status in 200..<300) for validators and error models.
        case file(URL, errorHead: Data)
        /// The body still arriving, and the start of an error body already read from it (the stream gives it back
        /// to its reader first).
        case stream(ByteStream, errorHead: Data)
        /// The connection a WebSocket handshake opened; its 101 has no body.
        case webSocket(any WebSocketChannel)
    }

    /// Where an answer came from, and what reaching it took.
    struct Provenance: Sendable {
        /// The network, the cache, or the cache after a 304.
        var source = ResponseSource.network
        /// Whether more than one caller received this answer (a coalesced call).
        var isShared = false
        /// How long the call waited for a ``ConcurrencyLimit`` slot.
        var queueTime = Duration.zero
        /// The redirects followed to reach this answer, first to last.
        var redirects: [Redirect] = []
    }
}

extension Answer.Payload {
    /// The bytes plugins, validators and error models see: the whole body in memory, or the start of an error body.
    var inMemory: Data {
        switch self {
        case .data(let data): data
        case .file(_, let head), .stream(_, let head): head
        case .webSocket: Data()
        }
    }

    /// Whether ``inMemory`` is only the start of a longer error body (one of a stream or a download, past the
    /// 64 KiB kept for validators and error models).
    var inMemoryIsPartial: Bool {
        switch self {
        case .data, .webSocket: false
        case .file(let file, let head): !head.isEmpty && BodyFile.size(of: file) > Int64(head.count)
        case .stream(let stream, let head): stream.heldBytes > head.count
        }
    }

    /// The file holding the body, for a body received into one.
    var file: URL? {
        if case .file(let file, _) = self { return file }
        return nil
    }

    /// The body still arriving, for a streamed one.
    var stream: ByteStream? {
        if case .stream(let stream, _) = self { return stream }
        return nil
    }

    /// The open connection, for a WebSocket handshake.
    var webSocket: (any WebSocketChannel)? {
        if case .webSocket(let channel) = self { return channel }
        return nil
    }

    /// Lets go of a body nobody will read: removes its file, stops its transfer (its connection and any
    /// ``ConcurrencyLimit`` slot go with it), or closes its connection.
    func discard() {
        switch self {
        case .data: break
        case .file(let file, _): BodyFile.remove(file)
        case .stream(let stream, _): stream.cancel()
        case .webSocket(let channel): channel.abort()
        }
    }
}
