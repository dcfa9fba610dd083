import Foundation

extension DataRequest {
    /// Step 4: the transport call, timed, with cancellation and the size limit applied.
    // Inlined into `run`: one async frame fewer on every request. Transparent, not `@inline(__always)`: the optimizer
    // ignores the latter for a callee of more than 64 blocks called from a caller of more than 64 (a guard against
    // recursion), which `run` and this step both are, and each frame kept costs about 300 instructions a request.
    @_transparent func send(
        _ request: TransportRequest, into target: BodyTarget, through chain: InterceptorChain?, attempt: Int,
        startDate: Date,
        started: Moment
    ) async -> Result<TransportResponse, KonexError> {
        let sendStarted = Moment.now
        let report = progress.map { ProgressReport($0, request: request) }
        report?.started()
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
        do {
            let reply: TransportReply
            if let limit = totalTimeout ?? client.totalTimeout {
                reply = try await replyWithinTotalTimeout(
                    limit, to: request, into: target, through: chain, report: report, observer: observer)
            } else {
                reply = try await self.reply(
                    to: request, into: target, through: chain, report: report, observer: observer)
            }
            let now = Moment.now
            if let report, !report.hasFinished { report.answered(by: reply) }
            // A transport that ignores cancellation must not turn a cancelled request into a late success.
            if Task.isCancelled {
                // A streamed transfer nobody will read stops here, not at its server's end.
                reply.discard()
                return .failure(cancellationError(request))
            }
            let timing = RequestTiming(
                startDate: startDate, total: now - started, transport: now - sendStarted, attempt: attempt,
                phases: phases?.value, queue: reply.queueTime)
            if reply.response.isResent { transportResent(request) }
            return .success(TransportResponse(reply, timing: timing, for: request))
        } catch {
            var failure = KonexError.transport(error, request: request)
            failure.attempt = attempt
            return .failure(failure)
        }
    }

    /// ``reply(to:into:through:report:observer:)`` within a total timeout (``Received/within(_:on:url:_:)``), in a
    /// frame of its own: only a call with a total timeout pays for the race's room.
    @inline(never) private func replyWithinTotalTimeout(
        _ limit: Duration, to request: TransportRequest, into target: BodyTarget, through chain: InterceptorChain?,
        report: ProgressReport?, observer: TransferObserver?
    ) async throws -> TransportReply {
        try await Received.within(limit, on: client.activeClock, url: request.url) { [self] in
            try await reply(to: request, into: target, through: chain, report: report, observer: observer)
        }
    }

    /// Step 4's reply itself: the transport's (every hop of a redirect chain), through the interceptors when there
    /// are any, or a WebSocket's handshake; the body taken as `target` wants it.
    // Transparent for the reason `send` is: inlined into it, whatever the two grow to.
    @_transparent func reply(
        to request: TransportRequest, into target: BodyTarget, through chain: InterceptorChain?,
        report: ProgressReport?, observer: TransferObserver?
    ) async throws -> TransportReply {
        // The interceptors' and the handshake's ways run in frames of their own: their locals and closures would
        // otherwise take room in every request's async frame.
        if let chain {
            return try await intercepted(request, into: target, through: chain, report: report, observer: observer)
        }
        if case .webSocket(let options) = target { return try await handshake(request, options: options) }
        let (transport, redirects) = client.activeRoute
        let tls = client.tls
        if !tls.isDefault { try tls.check(appliedBy: transport, for: request.url) }
        return try await Received.receive(
            request, over: transport, into: target, report: report, observer: observer, redirects: redirects,
            limit: client.maximumResponseSize, tls: tls)
    }

    /// The reply through the interceptors: each hop of a redirect chain passes them as a request of its own.
    @inline(never) private func intercepted(
        _ request: TransportRequest, into target: BodyTarget, through chain: InterceptorChain, report: ProgressReport?,
        observer: TransferObserver?
    ) async throws -> TransportReply {
        let (transport, redirects) = client.activeRoute
        let limit = client.maximumResponseSize
        let tls = client.tls
        if !tls.isDefault { try tls.check(appliedBy: transport, for: request.url) }
        // A whole body's innermost call may answer several callers (coalescing) or none (a cache hit), so it is read
        // into memory there, within the limit, and its progress is reported at the ends only; a stream or a download
        // has one caller and passes the interceptors as the transport handed it over, to be taken after them.
        let delivery: BodyDelivery =
            switch target {
            case .memory, .webSocket: .whole
            case .file: .file
            case .stream: .incremental
            }
        return try await Received.following(request, redirects: redirects) { hop in
            let reply = try await chain.reply(to: hop, delivery: delivery, clientIdentity: ObjectIdentifier(client)) {
                request in
                let context = Received.context(
                    for: target, report: delivery == .whole ? nil : report, observer: observer, limit: limit, tls: tls)
                let (response, body) = try await transport.send(request, context: context)
                let reply = TransportReply(response: response, body: body)
                guard delivery == .whole, body.data == nil else { return reply }
                return try await Received.taken(reply, for: request, as: .memory, report: nil, limit: limit)
            }
            // A body read into memory above passes `taken` again on its fast path (one comparison): a cache's or a
            // canned reply may be over the limit, or wanted in a file or as a stream.
            return try await Received.taken(reply, for: hop, as: target, report: report, limit: limit)
        }
    }

    /// A WebSocket's handshake: the open connection, once its answer checks out.
    @inline(never) private func handshake(_ request: TransportRequest, options: WebSocketOptions) async throws
        -> TransportReply
    {
        let transport = try client.activeWebSocketTransport()
        var options = options
        if !client.tls.isDefault {
            try client.tls.check(appliedBy: transport, for: request.url)
            options.tls = client.tls
        }
        // A handshake is a request like another: it carries the jar's cookies, and its answer may set some.
        let jar = client.cookieJar
        let sent = jar?.attaching(to: request) ?? request
        let channel = try await transport.connect(sent.head, options: options)
        do {
            try WebSocketHandshakeCheck.check(sent, answeredBy: channel.response)
        } catch {
            channel.abort()
            throw error
        }
        jar?.receive(channel.response, source: .network, answering: sent)
        return TransportReply(response: channel.response, body: .webSocket(channel))
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
/// watched from the head on `clock` (``Received/taken(_:for:as:report:limit:)`` starts the watch).
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
