import Foundation

extension DataRequest {
    /// Step 4: the transport call, timed, with cancellation and the size limit applied.
    // Inlined into `run` (one module, compiled whole): one async frame fewer on every request.
    @inline(__always) func send(
        _ request: TransportRequest, into target: BodyTarget, through chain: InterceptorChain?, attempt: Int,
        startDate: Date,
        started: ContinuousClock.Instant
    ) async -> Result<TransportResponse, KonexError> {
        let sendStarted = ContinuousClock.now
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
            let answer: Answer
            if let limit = totalTimeout ?? client.totalTimeout {
                answer = try await exchange(
                    request, into: target, through: chain, report: report, observer: observer, within: limit)
            } else {
                answer = try await exchange(request, into: target, through: chain, report: report, observer: observer)
            }
            let now = ContinuousClock.now
            if let report, !report.hasFinished { report.answered(by: answer) }
            // A transport that ignores cancellation must not turn a cancelled request into a late success.
            if Task.isCancelled {
                // A streamed transfer nobody will read stops here, not at its server's end.
                answer.payload.discard()
                return .failure(cancellationError(request))
            }
            let timing = RequestTiming(
                startDate: startDate, total: now - started, transport: now - sendStarted, attempt: attempt,
                phases: phases?.value, queue: answer.provenance.queueTime)
            if answer.response.isResent { transportResent(request) }
            return .success(TransportResponse(answer, timing: timing))
        } catch {
            var failure = KonexError.transport(error, request: request)
            failure.attempt = attempt
            return .failure(failure)
        }
    }

    /// The exchange within a total timeout (``Received/within(_:on:url:_:)``), in a frame of its own: only a call
    /// with a total timeout pays for the race's room.
    @inline(never) private func exchange(
        _ request: TransportRequest, into target: BodyTarget, through chain: InterceptorChain?, report: ProgressReport?,
        observer: TransferObserver?, within limit: Duration
    ) async throws -> Answer {
        try await Received.within(limit, on: client.activeClock, url: request.url) { [self] in
            try await exchange(request, into: target, through: chain, report: report, observer: observer)
        }
    }

    /// Step 4's exchange itself: the interceptors around the transport (every hop of a redirect chain), or a
    /// WebSocket's handshake; the body as `target` wants it.
    @inline(__always) func exchange(
        _ request: TransportRequest, into target: BodyTarget, through chain: InterceptorChain?, report: ProgressReport?,
        observer: TransferObserver?
    ) async throws -> Answer {
        // The interceptors' and the handshake's ways run in frames of their own: their locals and closures would
        // otherwise take room in every request's async frame.
        if let chain {
            return try await exchange(request, into: target, through: chain, report: report, observer: observer)
        }
        if case .webSocket(let options) = target { return try await handshake(request, options: options) }
        let (transport, redirects) = client.activeRoute
        let tls = client.tls
        if !tls.isDefault { try tls.check(appliedBy: transport, for: request.url) }
        return try await Received.receive(
            request, over: transport, into: target, report: report, observer: observer, redirects: redirects,
            limit: client.maximumResponseSize, tls: tls)
    }

    /// The exchange through the interceptors: each hop of a redirect chain passes them as a request of its own.
    @inline(never) private func exchange(
        _ request: TransportRequest, into target: BodyTarget, through chain: InterceptorChain, report: ProgressReport?,
        observer: TransferObserver?
    ) async throws -> Answer {
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
                var (response, body) = try await transport.send(request, context: context)
                if delivery == .whole, body.data == nil {
                    body = ResponseBody(
                        try await Received.taken(
                            body, of: response, for: request, as: .memory, report: nil, limit: limit
                        ).inMemory)
                }
                return TransportReply(response: response, body: body)
            }
            var answer = Answer(
                response: reply.response,
                payload: try await Received.taken(
                    reply.body, of: reply.response, for: hop, as: target, report: report, limit: limit))
            answer.provenance.source = reply.source
            answer.provenance.isShared = reply.isShared
            answer.provenance.queueTime = reply.queueTime
            return answer
        }
    }

    /// A WebSocket's handshake: the open connection, once its answer checks out.
    @inline(never) private func handshake(_ request: TransportRequest, options: WebSocketOptions) async throws -> Answer
    {
        let transport = try client.activeWebSocketTransport()
        var options = options
        if !client.tls.isDefault {
            try client.tls.check(appliedBy: transport, for: request.url)
            options.tls = client.tls
        }
        // A handshake is a request like another: it carries the jar's cookies, and its answer may set some.
        let jar = client.cookieJar
        let request = jar?.attaching(to: request) ?? request
        let channel = try await transport.connect(request.head, options: options)
        do {
            try WebSocketHandshakeCheck.check(request, answeredBy: channel.response)
        } catch {
            channel.abort()
            throw error
        }
        jar?.receive(channel.response, source: .network, answering: request)
        return Answer(response: channel.response, payload: .webSocket(channel))
    }
}
