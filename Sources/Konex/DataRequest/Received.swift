import Foundation

/// Step 4's ways to take the body: whole into memory, into a file, or as it arrives; counted as it comes when a
/// progress handler is set and the transport streams.
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
        /// Where the answer came from, when an interceptor says (a cache hit, a shared call).
        var source: ResponseSource = .network
        /// Whether more than one caller received this answer (a coalesced call).
        var isShared = false
        /// How long the call waited for a ``ConcurrencyLimit`` slot.
        var queueTime: Duration = .zero
    }

    /// Receives the body of `request` as `target` asks, following redirects by ``RedirectRules`` and `redirects`.
    /// - Throws: A ``KonexError`` of stage ``KonexError/Stage/redirect`` for a redirect the rules refuse.
    @inline(__always) static func receive(
        _ request: TransportRequest, over transport: any Transport, into target: BodyTarget, report: ProgressReport?,
        redirects: Redirects, limit: Int?
    ) async throws -> (Data, ResponseHead, Body) {
        try await following(request, redirects: redirects) { hop in
            try await receiveOnce(hop, over: transport, into: target, report: report, limit: limit)
        }
    }

    /// Sends `request` with `send`, then each redirect the rules and the policy allow as a request of its own (so
    /// interceptors, a cache among them, see every hop); a hop's body is discarded.
    /// - Throws: A ``KonexError`` of stage ``KonexError/Stage/redirect`` for a redirect the rules refuse.
    @inline(__always) static func following(
        _ request: TransportRequest, redirects: Redirects,
        send: (TransportRequest) async throws -> (Data, ResponseHead, Body)
    ) async throws -> (Data, ResponseHead, Body) {
        let received = try await send(request)
        // Most answers are not redirects: one comparison, and nothing allocated.
        guard RedirectRules.redirects(received.1.statusCode) else { return received }
        return try await following(received, of: request, redirects: redirects, send: send)
    }

    /// The redirect loop of ``following(_:redirects:send:)``, from the first 3xx `received` for `request`.
    // Not inlined: its requests, hops and decisions would take room in every request's async frame, redirected or not.
    @inline(never) private static func following(
        _ received: (Data, ResponseHead, Body), of request: TransportRequest, redirects: Redirects,
        send: (TransportRequest) async throws -> (Data, ResponseHead, Body)
    ) async throws -> (Data, ResponseHead, Body) {
        var received = received
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
                    stage: .redirect, message: reason, method: current.method,
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
    /// `limit` is ``KonexClient/maximumResponseSize`` for a body read into memory: a `Content-Length` over it is
    /// refused before any of the body is read, and reading stops at it.
    // Inlined, like the other steps between a terminal and the transport: every async frame is entered and resumed
    // once a request, with cold caches after the transport's own work, so each frame saved shows.
    @inline(__always) static func receiveOnce(
        _ request: TransportRequest, over transport: any Transport, into target: BodyTarget, report: ProgressReport?,
        limit: Int? = nil
    ) async throws -> (Data, ResponseHead, Body) {
        // Phase timings come from the system's task metrics, which only Apple platforms deliver: elsewhere the
        // record (a lock and a closure: ~1,400 instructions a mock request) is made only when progress is observed.
        #if canImport(Darwin)
            let listens = true
        #else
            let listens = report != nil
        #endif
        let phases = listens ? Lock<TransferPhases?>(nil) : nil
        let observer = phases.map { phases in
            TransferObserver(
                progress: report.map { report in { @Sendable (progress: TransferProgress) in report.upload(progress) }
                },
                phases: { phases.value = $0 })
        }
        // The transport's hint: a body read into memory is asked for whole, unless it is counted or limited as it
        // comes; then, like a stream, as it arrives.
        let delivery: BodyDelivery
        var bufferLimit = ByteStream.defaultBufferLimit
        switch target {
        case .memory, .webSocket:
            if let limit {
                delivery = .incremental
                bufferLimit = Swift.max(bufferLimit, Swift.min(limit, Int.max / 2) + 1)
            } else {
                delivery = report == nil ? .whole : .incremental
            }
        case .file:
            delivery = .file
        case .stream(let limit):
            delivery = .incremental
            bufferLimit = limit
        }
        let context = TransportContext(delivery: delivery, bufferLimit: bufferLimit, observer: observer)
        let (response, body) = try await transport.send(request, context: context)
        // The usual answer, a whole body for memory, returns here; reading it as it comes, into a file or as a stream
        // happens in a frame of its own (its locals would otherwise take room in every request's frame).
        if case .memory = target, let data = body.data { return (data, response, Body(phases: phases?.value)) }
        return try await received(
            body, of: response, for: request, into: target, report: report, limit: limit, phases: phases)
    }

    /// The rest of ``receiveOnce(_:over:into:report:limit:)``: a body that is not a whole one for memory.
    @inline(never) private static func received(
        _ body: ResponseBody, of response: ResponseHead, for request: TransportRequest, into target: BodyTarget,
        report: ProgressReport?, limit: Int?, phases: Lock<TransferPhases?>?
    ) async throws -> (Data, ResponseHead, Body) {
        switch target {
        case .memory, .webSocket:
            if let data = body.data { return (data, response, Body(phases: phases?.value)) }
            if let limit, response.expectedContentLength > Int64(limit) {
                body.cancel()
                throw tooLarge(request, response, limit: limit, size: .announced)
            }
            report?.headArrived(response)
            let data = try await gather(body, of: response, to: request, limit: limit, report: report)
            report?.finished(Int64(data.count), of: response, counted: true)
            return (data, response, Body(phases: phases?.value, countedProgress: report != nil))
        case .file:
            if case .file(let file) = body.storage {
                return (errorHead(of: response, in: file), response, Body(file: file, phases: phases?.value))
            }
            if let data = body.data { return try await delivered(data, response, as: target) }
            report?.headArrived(response)
            let file = try await written(body, of: response, report: report)
            return (
                errorHead(of: response, in: file), response,
                Body(file: file, phases: phases?.value, countedProgress: report != nil)
            )
        case .stream:
            var (data, response, received) = try await streamed(try body.stream, response)
            received.phases = phases?.value
            return (data, response, received)
        }
    }

    /// A body that is whole already (from a transport that does not stream, or a reply an interceptor made itself)
    /// as `target` wants it: in memory, in a file, or as a stream of one chunk.
    static func delivered(_ data: Data, _ response: ResponseHead, as target: BodyTarget) async throws -> (
        Data, ResponseHead, Body
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
    private static func streamed(_ stream: ByteStream, _ response: ResponseHead) async throws -> (
        Data, ResponseHead, Body
    ) {
        var stream = stream
        guard !(200..<300).contains(response.statusCode) else { return (Data(), response, Body(stream: stream)) }
        let head = try await stream.take(upTo: BodyFile.errorBodyLimit)
        return (head, response, Body(stream: stream))
    }

    /// Reads `body` into memory, ending it at `limit` and reporting each chunk to `report`.
    /// - Throws: A ``KonexError`` naming the limit once the bytes read pass it; the body's own errors.
    private static func gather(
        _ body: ResponseBody, of response: ResponseHead, to request: TransportRequest, limit: Int?,
        report: ProgressReport?
    ) async throws -> Data {
        var data = Data(reservingFor: response.expectedContentLength)
        for try await chunk in body {
            if let limit, chunk.count > limit - data.count {
                body.cancel()
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
    static func tooLarge(_ request: TransportRequest, _ response: ResponseHead, limit: Int, size: OversizedBody)
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
            method: request.method, url: request.url, request: request, response: response)
    }

    /// Writes `body` to a new temporary file as it arrives (a buffer of memory, whatever its size), reporting each
    /// chunk to `report`.
    private static func written(_ body: ResponseBody, of response: ResponseHead, report: ProgressReport?)
        async throws -> URL
    {
        var received: Int64 = 0
        let file = BodyFile.temporary()
        do {
            guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
            }
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            for try await chunk in body {
                try handle.write(contentsOf: chunk)
                received += Int64(chunk.count)
                report?.received(received, of: response)
            }
        } catch {
            body.cancel()
            BodyFile.remove(file)
            throw error
        }
        report?.finished(received, of: response, counted: true)
        return file
    }

    /// The start of an error body kept in a file, for validators and error models; nothing for a success.
    private static func errorHead(of response: ResponseHead, in file: URL) -> Data {
        (200..<300).contains(response.statusCode) ? Data() : BodyFile.prefix(of: file, limit: BodyFile.errorBodyLimit)
    }
}
