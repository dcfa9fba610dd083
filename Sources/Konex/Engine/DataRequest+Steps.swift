import Foundation

// The steps of `DataRequest`'s pipeline other than build and the transport's, in the order `run(body:)`
// (DataRequest+Execution) calls them: adapt (`adapted`), the plugins told of the request (`tell(_:sent:)`), the
// interceptor chain for the transport step (`chain`; the step itself is DataRequest+Exchange), the plugins told of the
// outcome (`tell(_:received:for:)`), the verdict (`verdict`: the retry budget counted, `validate`), the retry decision
// (`retry`), process (`process`). Build, and what a run settles once, is RequestRun.swift.
extension DataRequest {
    // The helpers below are synchronous on purpose: their locals live on the thread's stack for a moment, where an
    // async function's would take room in the request's async frame for as long as it runs.

    // Adapting and telling the plugins run in frames of their own, entered only when there are components: a loop that
    // awaits keeps its element, its iterator and its arguments in the async frame, and in `run` that room would be held
    // for the whole request, the transport's wait included.

    /// Adapt: each adapter in order gets the request (the only reference to it, so it changes without a copy).
    @inline(never) func adapted(
        _ request: consuming TransportRequest, in run: RequestRun, attempt: Int
    ) async throws -> TransportRequest {
        for adapter in run.adapters {
            do {
                request = try await adapter.adapt(consume request)
            } catch {
                throw adaptationFailure(error, by: adapter, attempt: attempt)
            }
        }
        return request
    }

    /// The error for an adapter that threw; it consumed the request, so the error names it from the endpoint.
    private func adaptationFailure(_ error: any Error, by adapter: any RequestAdapter, attempt: Int) -> KonexError {
        var failure = cancellationError()
        if !Task.isCancelled {
            failure.stage = .adaptation
            failure.message = "adapter \(type(of: adapter)) failed: \(error)"
            failure.underlyingError = error
        }
        failure.attempt = attempt
        return failure
    }

    /// Whether any of `plugins` may do something when told of `requirement`: a plugin that implements neither signature
    /// is not called, and when none would be, the plugins' steps are not entered (an async call and its frame apiece).
    static func anyListens(_ plugins: Layers<any KonexPlugin>, _ requirement: EarlierSignatures.Requirement) -> Bool {
        if plugins.isEmpty { return false }
        for plugin in plugins where !isIdle(plugin, requirement) { return true }
        return false
    }

    /// Whether `plugin`'s type is known to leave `requirement` to its defaults in both signatures.
    // Generic, so the type is the one the existential holds (the `Self` its default implementations record): asking
    // `type(of:)` of the existential looked up its dynamic type, 185 instructions a call, twice a request.
    private static func isIdle<Plugin: KonexPlugin>(_ plugin: Plugin, _ requirement: EarlierSignatures.Requirement)
        -> Bool
    {
        EarlierSignatures.isIdle(Plugin.self, requirement)
    }

    /// The plugins see the request as sent.
    @inline(never) static func tell(_ plugins: Layers<any KonexPlugin>, sent request: TransportRequest) async {
        for plugin in plugins where !isIdle(plugin, .pluginDidSend) {
            await plugin.didSendRequest(request)
        }
    }

    /// The transport step's interceptor chain: every exchange's but a WebSocket's (its handshake opens a connection,
    /// not a body); none without interceptors.
    static func chain(of interceptors: Layers<any TransportInterceptor>, for target: BodyTarget) -> InterceptorChain? {
        switch target {
        case _ where interceptors.isEmpty, .webSocket: nil
        case .memory, .file, .stream: InterceptorChain(interceptors: Array(interceptors))
        }
    }

    /// The transport sent the attempt twice on its own: the client's retry budget counts the retry (it already
    /// happened, so it is never refused); instruments hear of it from the timing (`Recorders.attemptDidEnd`).
    @inline(never) func transportResent(_ request: TransportRequest) {
        client.retryBudget.recordRetry(to: client.origin(of: request))
    }

    /// The plugins see the outcome.
    @inline(never) static func tell(
        _ plugins: Layers<any KonexPlugin>, received outcome: Result<ReceivedResponse, KonexError>,
        for request: TransportRequest
    ) async {
        for plugin in plugins where !isIdle(plugin, .pluginDidReceive) {
            await plugin.didReceiveResponse(outcome, for: request)
        }
    }

    /// The verdict on an attempt's outcome: its answer, when it got one that passes the validators, or the failure to
    /// offer the retriers. A first attempt that reached the network is counted in the retry budgets here (a budget
    /// counts every request sent, not only the failed ones; a cache hit sent nothing).
    func verdict(
        on outcome: consuming Result<ReceivedResponse, KonexError>, for request: TransportRequest, in run: RequestRun,
        attempt: Int
    ) -> Verdict {
        let counted = attempt == 1 && !run.retriers.isEmpty
        switch consume outcome {
        case .success(let answer):
            if counted, answer.source != .cache { Self.count(request, in: run.retriers, client: client) }
            guard var rejection = validate(answer, request: request, validators: run.validators) else {
                return .accepted(answer)
            }
            answer.reply.discard()
            rejection.attempt = attempt
            return .rejected(rejection)
        case .failure(var error):
            if counted { Self.count(request, in: run.retriers, client: client) }
            error.attempt = attempt
            return .rejected(error)
        }
    }

    /// Validate: the first validator that throws decides; the error body is decoded when asked for. A WebSocket's
    /// 101 is not theirs to judge: its handshake was checked when it opened (`WebSocketHandshakeCheck`).
    private func validate(
        _ answer: ReceivedResponse, request: TransportRequest, validators: Layers<any KonexResponseValidator>
    )
        -> KonexError?
    {
        if answer.reply.webSocket != nil { return nil }
        let (response, data) = (answer.response, answer.data)
        for validator in validators {
            do {
                try validator.validate(response, data: data)
            } catch {
                var failure = KonexError(
                    stage: .validation, message: String(describing: error),
                    method: request.method, url: request.url, request: request,
                    response: response, data: data, underlyingError: error)
                if answer.reply.errorHeadIsPartial {
                    failure.isDataPartial = true
                    failure.message += " (the error body goes on past the \(data.count) bytes kept)"
                }
                if let errorDecoder, !data.isEmpty {
                    do {
                        failure.errorBody = try errorDecoder.decode(data, client.decoder)
                    } catch {
                        failure.message += ErrorBodyDecoder.mismatch(errorDecoder.typeName, error)
                    }
                }
                return failure
            }
        }
        return nil
    }

    /// Counts a request that reached the network in the client's retry budget, and tells the retriers (a budget of
    /// their own counts it).
    // Not inlined into `run`: its locals would take room in every parked request's frame.
    @inline(never) static func count(
        _ request: TransportRequest, in retriers: Layers<any RequestRetrier>, client: KonexClient
    ) {
        client.retryBudget.recordRequest(to: client.origin(of: request))
        for retrier in retriers { retrier.requestWillStart(request) }
    }

    /// Retry, after a failed attempt: asks the retriers in order, then waits the delay the first taker asked for.
    /// - Throws: `failure` when no retrier takes it, a retrier's own error, or a cancellation error.
    // Not inlined into `run`: its decisions and waits would take room in every request's async frame, failed or not.
    @inline(never) func retry(
        after failure: KonexError, of request: TransportRequest, attempt: Int, in run: RequestRun,
        notes: inout [Int: String]
    ) async throws {
        if failure.stage == .cancelled || Task.isCancelled { throw cancellationError(request) }
        // A body read as it is sent (chunks, an input stream) is gone after one attempt: sent again it would go out
        // empty, and an empty upload answered 201 would pass for the file. Decided here, once, for every retrier (a
        // user's too): the call ends with the answer it got, saying why it was not retried.
        if let body = request.body, !body.canBeSentAgain, !run.retriers.isEmpty {
            throw Self.notRetried(failure, sentOnce: body)
        }
        let elapsed = run.elapsedOnClientClock?() ?? .zero
        var delay: Duration?
        decide: for (position, retrier) in run.retriers.enumerated() {
            // A policy with the default budget (`RetryBudget.perClient`) spends this client's, even when a retrier
            // of the caller's wraps it.
            let decision: RetryDecision
            if let remembering = retrier as? any RememberingRetrier {
                var note = notes[position]
                decision = await RetryBudget.$ofClient.withValue(client.retryBudget) {
                    await remembering.shouldRetry(
                        request, dueTo: failure, attempt: attempt, elapsed: elapsed, note: &note)
                }
                notes[position] = note
            } else {
                decision = await RetryBudget.$ofClient.withValue(client.retryBudget) {
                    await retrier.shouldRetry(request, dueTo: failure, attempt: attempt, elapsed: elapsed)
                }
            }
            switch decision {
            case .doNotRetry: continue
            case .retry(let after):
                delay = after
                run.recorders.willRetry(RetryEvent(attempt: attempt, error: failure, retrier: retrier, delay: after))
                break decide
            case .fail(var error):
                error.attempt = attempt
                throw error
            }
        }
        guard let delay else { throw failure }
        if Task.isCancelled { throw cancellationError(request) }
        do {
            try await client.activeClock.sleep(for: delay)
        } catch {
            throw cancellationError(request)
        }
    }

    /// `failure`, saying that it was not offered to the retriers because its request's body can be sent only once.
    private static func notRetried(_ failure: KonexError, sentOnce body: TransportRequest.Body) -> KonexError {
        var failure = failure
        let kind = body.chunks != nil ? "a body of chunks" : "an input stream"
        failure.message +=
            " (not retried: the request's body is \(kind), which is read as it is sent and can be sent once)"
        return failure
    }

    /// Process: the answer for its terminal, with its body after processors (in order; with none the received bytes
    /// pass through untouched), and the instruments told the request got through.
    // Not inlined into `run`: every copy of the answer made here would take a slot in every request's async frame.
    @inline(never) func process(
        _ answer: ReceivedResponse, for request: TransportRequest, in run: RequestRun, attempts: Int
    ) throws -> ReceivedResponse {
        var answer = answer
        answer.processed = try Self.processed(answer, for: request, by: run.processors)
        run.recorders.ended(&answer, to: request, attempts: attempts)
        return answer
    }

    /// The processors, in order: the body after them, or `nil` when there are none to run.
    private static func processed(
        _ answer: ReceivedResponse, for request: TransportRequest, by processors: Layers<any KonexResponseProcessor>
    ) throws -> Data? {
        // Processors need a whole body in memory: a file's, a stream's or a connection's answer passes as it is.
        guard var data = answer.reply.body.data, !processors.isEmpty else { return nil }
        for processor in processors {
            do {
                data = try processor.process(data, response: answer.response)
            } catch {
                throw KonexError(
                    stage: .processing, message: "processor \(type(of: processor)) failed: \(error)",
                    method: request.method, url: request.url, request: request,
                    response: answer.response, data: data, underlyingError: error, attempt: answer.timing.attempt)
            }
        }
        return data
    }

    /// A closure that returns the time elapsed on `clock` since this call.
    static func stopwatch<C: Clock>(_ clock: C) -> @Sendable () -> Duration where C.Duration == Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// A `.cancelled` error naming this request (from the endpoint when the built request is not at hand).
    func cancellationError(_ request: TransportRequest? = nil) -> KonexError {
        switch source {
        case .endpoint(let endpoint):
            let url =
                request?.url ?? (try? Self.resolve(endpoint.path, against: client.basePrefix, method: endpoint.method))
            return .cancelled(request, method: endpoint.method, url: url)
        case .url(let url):
            return .cancelled(request, method: .get, url: url)
        case .ready(let given):
            return .cancelled(request ?? given, method: given.method, url: given.url)
        }
    }

}
