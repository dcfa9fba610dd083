import Foundation

/// What survived steps 1–7 of the pipeline: ready for a serializer.
struct Exchange: Sendable {
    let request: TransportRequest
    let response: ResponseHead
    /// The body as received.
    let received: Data
    /// The body after processors.
    let data: Data
    let timing: RequestTiming
    /// Where the body is, when it was received into a file (``BodyTarget/file``).
    var file: URL? = nil
    /// The body still arriving, for ``BodyTarget/stream(bufferLimit:)``.
    var stream: ByteStream? = nil
    /// The open connection, for ``BodyTarget/webSocket(_:)``.
    var webSocket: (any WebSocketChannel)? = nil
    /// Where the response came from.
    var source: ResponseSource = .network
    /// The instruments' recorders of a WebSocket handshake, ended when its connection closes.
    var recorders: Recorders? = nil
    /// The redirects followed to reach ``response``, first to last.
    var redirects: [Redirect] = []
    /// The client's redaction when it is not the default: what errors made from this exchange describe with.
    var redaction: Redaction.Shared? = nil
}

/// Where step 4 puts the response body.
enum BodyTarget: Sendable {
    /// In memory, whole (every terminal but downloads).
    case memory
    /// In a temporary file the caller then owns: `download(to:)`.
    case file
    /// As it arrives, after the head: `stream()`. Validators see the head (and the start of an error body).
    case stream(bufferLimit: Int)
    /// No body: the handshake's 101 opens a WebSocket connection (`webSocket()`). Validators do not run on it.
    case webSocket(WebSocketOptions)
}
