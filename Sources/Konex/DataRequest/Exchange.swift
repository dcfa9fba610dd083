import Foundation

/// What survived steps 1–7 of the pipeline, ready for a terminal: the answer, and what processors made of its body.
struct Exchange: Sendable {
    let request: TransportRequest
    let answer: Answer
    /// The body after processors (the body as received when there are none, or when it is not in memory).
    let data: Data
    let timing: RequestTiming
    /// The instruments' recorders of a WebSocket handshake, ended when its connection closes.
    var recorders: Recorders? = nil
    /// The client's redaction when it is not the default: what errors made from this exchange describe with.
    var redaction: Redaction.Shared? = nil

    var response: ResponseHead { answer.response }
    /// The body as received: the whole of it in memory, or the start of an error body kept in a file or a stream.
    var received: Data { answer.payload.inMemory }
    /// Where the response came from.
    var source: ResponseSource { answer.provenance.source }
    /// The redirects followed to reach ``response``, first to last.
    var redirects: [Redirect] { answer.provenance.redirects }
}

extension Exchange {
    /// The body in a file, for `download(to:)`: step 4 took it there, and a body that came otherwise is written now.
    /// - Throws: ``KonexError`` of stage ``KonexError/Stage/fileSystem`` when it cannot be written.
    func bodyFile() throws(KonexError) -> URL {
        switch answer.payload {
        case .file(let file, _): return file
        case .data(let data):
            let file = BodyFile.temporary()
            do { try BodyFile.createOwnerOnly(file, contents: data) } catch {
                throw failure(.fileSystem, "cannot write the body to \(file.path)", error)
            }
            return file
        case .stream, .webSocket:
            answer.payload.discard()
            throw failure(.transport, "the body was not received into a file", nil)
        }
    }

    /// The body as it arrives, for `stream()`: a body that is whole already comes as one chunk.
    func bodyStream() throws(KonexError) -> ByteStream {
        switch answer.payload {
        case .stream(let stream, _): return stream
        case .data(let data): return ByteStream(data)
        case .file(let file, _):
            do { return try ResponseBody.file(file).stream } catch {
                throw failure(.fileSystem, "cannot read the body from \(file.path)", error)
            }
        case .webSocket:
            answer.payload.discard()
            throw failure(.transport, "a WebSocket connection has no body to stream", nil)
        }
    }

    /// The open connection, for `webSocket()`.
    func connection() throws(KonexError) -> any WebSocketChannel {
        guard let channel = answer.payload.webSocket else {
            answer.payload.discard()
            throw failure(.handshake, "the handshake was answered without a WebSocket connection", nil)
        }
        return channel
    }

    private func failure(_ stage: KonexError.Stage, _ message: String, _ underlying: (any Error)?) -> KonexError {
        KonexError(
            stage: stage, message: message, method: request.method, url: request.url, request: request,
            response: response, data: received, underlyingError: underlying, attempt: timing.attempt)
    }
}

/// Where step 4 puts the response body.
enum BodyTarget: Sendable {
    /// In memory, whole (every terminal but downloads).
    case memory
    /// In a temporary file the caller then owns: `download(to:)`.
    case file
    /// As it arrives, after the head: `stream()`. Validators see the head (and the start of an error body).
    case stream(StreamOptions)
    /// No body: the handshake's 101 opens a WebSocket connection (`webSocket()`). Validators do not run on it.
    case webSocket(WebSocketOptions)
}

/// How `stream()` takes its body: the buffer between the network and the reader, and the timeouts that end the body,
/// watched from the head on `clock` (``Received/taken(_:of:for:as:report:limit:)`` starts the watch).
// A class: the target is handed down every frame of the request, and a reference keeps it one word.
final class StreamOptions: Sendable {
    let bufferLimit: Int
    let idleTimeout: Duration?
    let totalTimeout: Duration?
    let clock: any Clock<Duration>

    init(bufferLimit: Int, idleTimeout: Duration?, totalTimeout: Duration?, clock: any Clock<Duration>) {
        self.bufferLimit = bufferLimit
        self.idleTimeout = idleTimeout
        self.totalTimeout = totalTimeout
        self.clock = clock
    }
}
