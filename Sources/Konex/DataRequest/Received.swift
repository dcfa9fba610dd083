import Foundation

/// Step 4's ways to take the body: whole into memory, into a file, or as it arrives; counted as it comes when a
/// progress handler is set and the transport can stream.
enum Received {
    /// What the transport said besides the head and the in-memory bytes.
    struct Body: Sendable {
        var file: URL?
        var stream: ByteStream?
        /// An open WebSocket connection.
        var webSocket: (any WebSocketChannel)?
        /// The system's phase timings, where the transport reports them.
        var phases: TransferPhases?
        /// Download progress was reported chunk by chunk, so only the end remains to say.
        var countedProgress = false
        /// The redirects followed to reach this response, first to last.
        var redirects: [Redirect] = []
    }

    /// Receives the body of `request` as `target` asks, following redirects by ``RedirectRules`` and `redirects`.
    /// - Throws: A ``KonexError`` of stage ``KonexError/Stage/redirect`` for a redirect the rules refuse.
    @inline(__always) static func receive(
        _ request: URLRequest, over transport: any Transport, observer phaseObserver: (any ObservingTransport)?,
        into target: BodyTarget, report: ProgressReport?, redirects: Redirects, limit: Int?
    ) async throws -> (Data, HTTPURLResponse, Body) {
        try await following(request, redirects: redirects) { hop in
            try await receiveOnce(
                hop, over: transport, observer: phaseObserver, into: target, report: report, limit: limit)
        }
    }

    /// Sends `request` with `send`, then each redirect the rules and the policy allow as a request of its own (so
    /// interceptors, a cache among them, see every hop); a hop's body is discarded.
    /// - Throws: A ``KonexError`` of stage ``KonexError/Stage/redirect`` for a redirect the rules refuse.
    @inline(__always) static func following(
        _ request: URLRequest, redirects: Redirects,
        send: (URLRequest) async throws -> (Data, HTTPURLResponse, Body)
    ) async throws -> (Data, HTTPURLResponse, Body) {
        var received = try await send(request)
        // Most answers are not redirects: one comparison, and nothing allocated.
        guard RedirectRules.redirects(received.1.statusCode) else { return received }
        var current = request
        var visited = [RedirectRules.visitKey(request)]
        var hops: [Redirect] = []
        while true {
            let (_, response, body) = received
            switch RedirectRules.next(
                after: response, to: current, visited: visited, policy: redirects.policy,
                redaction: redirects.redaction)
            {
            case .stop:
                received.2.redirects = hops
                return received
            case .follow(let next, let hop):
                BodyFile.remove(body.file)
                body.stream?.cancel()
                hops.append(hop)
                visited.append(RedirectRules.visitKey(next))
                current = next
                received = try await send(current)
            case .refuse(let reason):
                BodyFile.remove(body.file)
                body.stream?.cancel()
                throw KonexError(
                    stage: .redirect, message: reason, method: HTTPMethod(current.httpMethod ?? "GET"),
                    url: current.url, request: current, response: response)
            }
        }
    }

    /// How a request follows redirects: the policy, and the redaction whose secret headers stay with their origin.
    // A class: settled once per client and handed down every request, it costs one reference, not a copy of the
    // policy's closure and the redaction's sets.
    final class Redirects: Sendable {
        let policy: RedirectPolicy
        let redaction: Redaction

        init(policy: RedirectPolicy, redaction: Redaction) {
            self.policy = policy
            self.redaction = redaction
        }
    }

    /// Receives the body of `request` as `target` asks. For a file or a stream, the returned data is only the start
    /// of an error body (when the status is outside 200..<300), so validators and error models still see it.
    /// `observer` is `transport` itself when it reports phases (``Transport/phaseObserver``).
    // Inlined, like the other steps between a terminal and `URLSession`: every async frame is entered and resumed
    // once a request, with cold caches after FoundationNetworking's own work, so each frame saved shows.
    /// `limit` is ``KonexClient/maximumResponseSize`` for a body read into memory: over a transport that streams,
    /// reading stops at the limit (a `Content-Length` over it is refused before any of the body is read).
    @inline(__always) static func receiveOnce(
        _ request: URLRequest, over transport: any Transport, observer phaseObserver: (any ObservingTransport)?,
        into target: BodyTarget, report: ProgressReport?, limit: Int? = nil
    ) async throws -> (Data, HTTPURLResponse, Body) {
        // Made only when someone listens: most requests have no progress handler and run where no phases arrive.
        func observed() -> (TransferObserver, Lock<TransferPhases?>) {
            let phases = Lock<TransferPhases?>(nil)
            let progress = report.map { report in { @Sendable (progress: TransferProgress) in report.upload(progress) }
            }
            return (TransferObserver(progress: progress, phases: { phases.value = $0 }), phases)
        }
        if let report, transport.reportsIncrementalProgress, let streamer = transport as? any StreamingTransport {
            let (observer, phases) = observed()
            if let counted = try await counted(
                request, over: streamer, into: target, observer: observer, report: report, limit: limit)
            {
                var body = counted.2
                body.phases = phases.value
                return (counted.0, counted.1, body)
            }
        }
        switch target {
        case .memory:
            if let limit, let streamer = transport as? any StreamingTransport {
                let (observer, phases) = observed()
                let (data, response) = try await collect(
                    request, over: streamer, limit: limit, observer: phaseObserver == nil ? nil : observer)
                return (data, response, Body(phases: phases.value))
            }
            if let observing = phaseObserver {
                let (observer, phases) = observed()
                let (data, response) = try await observing.send(request, observer: observer)
                return (data, response, Body(phases: phases.value))
            }
            let (data, response) = try await transport.send(request)
            return (data, response, Body())
        case .file:
            let file: URL
            let response: HTTPURLResponse
            guard let downloader = transport as? any DownloadTransport else {
                let (data, response) = try await transport.send(request)
                return try await delivered(data, response, as: target)
            }
            (file, response) = try await downloader.download(request)
            return (errorHead(of: response, in: file), response, Body(file: file))
        case .stream(let bufferLimit):
            guard let streamer = transport as? any StreamingTransport else {
                let (data, response) = try await transport.send(request)
                return try await delivered(data, response, as: target)
            }
            let (response, stream) =
                report == nil
                ? try await streamer.stream(request, bufferLimit: bufferLimit)
                : try await streamer.stream(request, bufferLimit: bufferLimit, observer: observed().0)
            return try await streamed(stream, response)
        case .webSocket:
            preconditionFailure("a WebSocket handshake goes to the WebSocket transport, not here")
        }
    }

    /// A body that is whole already (from a transport that does not stream, or a reply an interceptor made itself)
    /// as `target` wants it: in memory, in a file, or as a stream of one chunk.
    static func delivered(_ data: Data, _ response: HTTPURLResponse, as target: BodyTarget) async throws -> (
        Data, HTTPURLResponse, Body
    ) {
        switch target {
        case .memory, .webSocket:
            return (data, response, Body())
        case .file:
            let file = BodyFile.temporary()
            try data.write(to: file)
            // The start of an error body is at hand: not read back from the file just written.
            let head = (200..<300).contains(response.statusCode) ? Data() : data.prefix(BodyFile.errorBodyLimit)
            return (head, response, Body(file: file))
        case .stream:
            return try await streamed(ByteStream(data), response)
        }
    }

    /// A streamed body with, for an error status, its start read (up to the limit) for validators and error models;
    /// whatever was read is given back to the reader first.
    private static func streamed(_ stream: ByteStream, _ response: HTTPURLResponse) async throws -> (
        Data, HTTPURLResponse, Body
    ) {
        var stream = stream
        guard !(200..<300).contains(response.statusCode) else { return (Data(), response, Body(stream: stream)) }
        let head = try await stream.take(upTo: BodyFile.errorBodyLimit)
        return (head, response, Body(stream: stream))
    }

    /// Reads a body into memory and stops at `limit`: the peer's `Content-Length` is checked before the body, and
    /// the bytes as they arrive, so a body over the limit never sits in memory whole.
    /// - Throws: A ``KonexError`` naming the limit, with the response.
    private static func collect(
        _ request: URLRequest, over streamer: any StreamingTransport, limit: Int, observer: TransferObserver?
    ) async throws -> (Data, HTTPURLResponse) {
        // The buffer never holds more than the limit: once that much has arrived, the request ends.
        let bufferLimit = Swift.max(ByteStream.defaultBufferLimit, Swift.min(limit, Int.max / 2) + 1)
        let (response, stream) =
            if let observer {
                try await streamer.stream(request, bufferLimit: bufferLimit, observer: observer)
            } else {
                try await streamer.stream(request, bufferLimit: bufferLimit)
            }
        if response.expectedContentLength > Int64(limit) {
            stream.cancel()
            throw tooLarge(request, response, limit: limit, size: .announced)
        }
        return (try await gather(stream, of: response, to: request, limit: limit, report: nil), response)
    }

    /// Reads `stream` into memory, ending it at `limit` and reporting each chunk to `report`.
    /// - Throws: A ``KonexError`` naming the limit once the bytes read pass it; the stream's own errors.
    private static func gather(
        _ stream: ByteStream, of response: HTTPURLResponse, to request: URLRequest, limit: Int?,
        report: ProgressReport?
    ) async throws -> Data {
        var data = Data(reservingFor: response.expectedContentLength)
        for try await chunk in stream {
            if let limit, chunk.count > limit - data.count {
                stream.cancel()
                throw tooLarge(request, response, limit: limit, size: .stoppedAt(data.count + chunk.count))
            }
            data.append(chunk)
            report?.received(Int64(data.count), of: response)
        }
        return data
    }

    /// How much of a body over the limit is known: its `Content-Length`, the bytes when reading stopped, or all of it.
    enum OversizedBody {
        case announced
        case stoppedAt(Int)
        case whole(Int)
    }

    /// The error for a body over ``KonexClient/maximumResponseSize``, the one message every way of finding it out
    /// uses.
    static func tooLarge(_ request: URLRequest, _ response: HTTPURLResponse, limit: Int, size: OversizedBody)
        -> KonexError
    {
        let what =
            switch size {
            case .announced: "of \(response.expectedContentLength) bytes (Content-Length)"
            case .stoppedAt(let read): "of more than \(limit) bytes (reading stopped at \(read))"
            case .whole(let count): "of \(count) bytes"
            }
        return KonexError(
            stage: .transport, message: "the response body \(what) exceeds maximumResponseSize (\(limit) bytes)",
            method: HTTPMethod(request.httpMethod ?? "GET"), url: request.url, request: request, response: response)
    }

    /// Streams the body into memory or a file, reporting each chunk; `nil` for a target that is read as a stream.
    private static func counted(
        _ request: URLRequest, over streamer: any StreamingTransport, into target: BodyTarget,
        observer: TransferObserver, report: ProgressReport, limit: Int?
    ) async throws -> (Data, HTTPURLResponse, Body)? {
        switch target {
        case .stream, .webSocket: return nil
        case .memory, .file: break
        }
        let (response, stream) = try await streamer.stream(
            request, bufferLimit: ByteStream.defaultBufferLimit, observer: observer)
        report.headArrived(response)
        switch target {
        case .memory:
            let data = try await gather(stream, of: response, to: request, limit: limit, report: report)
            report.finished(Int64(data.count), of: response, counted: true)
            return (data, response, Body(countedProgress: true))
        default:
            var received: Int64 = 0
            let file = BodyFile.temporary()
            do {
                guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
                    throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
                }
                let handle = try FileHandle(forWritingTo: file)
                defer { try? handle.close() }
                for try await chunk in stream {
                    try handle.write(contentsOf: chunk)
                    received += Int64(chunk.count)
                    report.received(received, of: response)
                }
            } catch {
                stream.cancel()
                BodyFile.remove(file)
                throw error
            }
            report.finished(received, of: response, counted: true)
            return (errorHead(of: response, in: file), response, Body(file: file, countedProgress: true))
        }
    }

    /// The start of an error body kept in a file, for validators and error models; nothing for a success.
    private static func errorHead(of response: HTTPURLResponse, in file: URL) -> Data {
        (200..<300).contains(response.statusCode) ? Data() : BodyFile.prefix(of: file, limit: BodyFile.errorBodyLimit)
    }
}
