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
        do {
            let (data, response, body): (Data, ResponseHead, Received.Body)
            if let limit = totalTimeout ?? client.totalTimeout {
                (data, response, body) = try await exchange(
                    request, into: target, through: chain, report: report, within: limit)
            } else {
                (data, response, body) = try await exchange(
                    request, into: target, through: chain, report: report)
            }
            let file = body.file
            let now = ContinuousClock.now
            if let report, !body.countedProgress {
                report.headArrived(response)
                report.finished(file.map(BodyFile.size(of:)) ?? Int64(data.count), of: response, counted: false)
            }
            // A transport that ignores cancellation must not turn a cancelled request into a late success.
            if Task.isCancelled {
                BodyFile.remove(file)
                body.webSocket?.abort()
                body.stream?.cancel()  // a streamed transfer nobody will read stops here, not at its server's end
                return .failure(cancellationError(request))
            }
            // A body written to a file never sat in memory: the limit is for bodies that do. A transport that does not
            // stream answers whole, so its body is measured here (a streaming one stopped at the limit already).
            if file == nil, let limit = client.maximumResponseSize, data.count > limit {
                // A stream whose error body already passed the limit is refused: nobody will read the rest, so the
                // transfer stops now (its connection and any `ConcurrencyLimit` slot go with it).
                body.stream?.cancel()
                body.webSocket?.abort()
                var failure = Received.tooLarge(request, response, limit: limit, size: .whole(data.count))
                failure.attempt = attempt
                return .failure(failure)
            }
            let timing = RequestTiming(
                startDate: startDate, total: now - started, transport: now - sendStarted, attempt: attempt,
                phases: body.phases, queue: body.queueTime)
            var received = TransportResponse(response: response, data: data, timing: timing, file: file)
            received.stream = body.stream
            received.webSocket = body.webSocket
            received.redirects = body.redirects
            received.source = body.source
            received.isShared = body.isShared
            return .success(received)
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
        within limit: Duration
    ) async throws -> (Data, ResponseHead, Received.Body) {
        try await Received.within(limit, on: client.activeClock, url: request.url) { [self] in
            try await exchange(request, into: target, through: chain, report: report)
        }
    }

    /// Step 4's exchange itself: the interceptors around the transport (every hop of a redirect chain), or a
    /// WebSocket's handshake; the body as `target` wants it.
    @inline(__always) func exchange(
        _ request: TransportRequest, into target: BodyTarget, through chain: InterceptorChain?, report: ProgressReport?
    ) async throws -> (Data, ResponseHead, Received.Body) {
        // The interceptors' and the handshake's ways run in frames of their own: their locals and closures would
        // otherwise take room in every request's async frame.
        if let chain { return try await exchange(request, into: target, through: chain, report: report) }
        if case .webSocket(let options) = target { return try await handshake(request, options: options) }
        let (transport, redirects) = client.activeRoute
        return try await Received.receive(
            request, over: transport, into: target, report: report, redirects: redirects,
            limit: client.maximumResponseSize)
    }

    /// The exchange through the interceptors: each hop of a redirect chain passes them as a request of its own.
    @inline(never) private func exchange(
        _ request: TransportRequest, into target: BodyTarget, through chain: InterceptorChain, report: ProgressReport?
    ) async throws -> (Data, ResponseHead, Received.Body) {
        let (transport, redirects) = client.activeRoute
        // A whole body's innermost call may answer several callers (coalescing) or none (a cache hit), so its
        // progress is reported at the ends only; a stream or a download has one caller, counted as usual.
        let delivery: BodyDelivery =
            switch target {
            case .memory, .webSocket: .whole
            case .file: .file
            case .stream: .incremental
            }
        // What the last hop's interceptors said about its answer.
        var last = (source: ResponseSource.network, isShared: false, queueTime: Duration.zero)
        var (data, response, body) = try await Received.following(request, redirects: redirects) { hop in
            let replied = try await chain.reply(to: hop, delivery: delivery, clientIdentity: ObjectIdentifier(client)) {
                request in
                let (data, response, body) = try await Received.receiveOnce(
                    request, over: transport, into: target, report: delivery == .whole ? nil : report,
                    limit: client.maximumResponseSize)
                var reply = TransportReply(data: data, response: response)
                reply.received = body
                return reply
            }
            last = (replied.source, replied.isShared, replied.queueTime)
            // A reply an interceptor made itself (a cache hit, a canned answer) holds its body whole.
            guard let received = replied.received else {
                return try await Received.delivered(replied.data, replied.response, as: target)
            }
            return (replied.data, replied.response, received)
        }
        (body.source, body.isShared, body.queueTime) = last
        return (data, response, body)
    }

    /// A WebSocket's handshake: the open connection, once its answer checks out.
    @inline(never) private func handshake(_ request: TransportRequest, options: WebSocketOptions) async throws -> (
        Data, ResponseHead, Received.Body
    ) {
        let channel = try await client.activeWebSocketTransport().connect(request.head, options: options)
        do {
            try WebSocketHandshakeCheck.check(request, answeredBy: channel.response)
        } catch {
            channel.abort()
            throw error
        }
        return (Data(), channel.response, Received.Body(webSocket: channel))
    }
}
