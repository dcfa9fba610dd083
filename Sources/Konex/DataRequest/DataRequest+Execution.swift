import Foundation

extension DataRequest {
    /// Runs the pipeline up to serialization, in the order documented in `Pipeline/Pipeline.swift`, under the
    /// client's redaction: bound to ``Redaction/current`` for every sink on the way, and given to the error thrown.
    /// - Parameter target: Where the body goes; a file's processors are skipped (they need the body in memory).
    /// - Throws: ``KonexError`` only.
    func execute(body target: BodyTarget = .memory) async throws -> Exchange {
        if let progressSink { return try await tracked(body: target, into: progressSink) }
        guard let operation = operationID else { return try await redacted(body: target) }
        return try await KonexOperation.$bound.withValue(operation) { try await redacted(body: target) }
    }

    /// The pipeline under the client's own redaction, when it has one.
    private func redacted(body target: BodyTarget) async throws -> Exchange {
        guard let own = client.ownRedaction else { return try await run(body: target) }
        let redaction = own.redaction
        do {
            var exchange = try await Redaction.$bound.withValue(redaction) { try await run(body: target) }
            exchange.redaction = own
            return exchange
        } catch {
            var failure = error as? KonexError ?? cancellationError()
            failure.redaction = redaction
            throw failure
        }
    }

    /// The pipeline itself (see ``execute(body:)``).
    private func run(body target: BodyTarget) async throws -> Exchange {
        let endpoint = self.endpoint
        if Task.isCancelled { throw cancellationError() }

        let client = self.client
        let shared = client.componentSnapshot
        let startDate = Date()
        let started = ContinuousClock.now

        // 1. build (again for a retry: handing adapters the only reference lets them change it without a copy)
        let (first, recorders) = try begin(target, instruments: shared.instruments, started: started)
        // A compressed body is made once: every attempt sends the same bytes (an encoder need not repeat itself:
        // JSONEncoder's key order varies between runs), and its temporary file lives as long as the request.
        let compressedBody = bodyCompression == nil ? nil : Self.compressedBody(of: first)
        var built: TransportRequest? = consume first

        let adapters = Layers(shared.adapters, endpoint?.requestAdapters, self.adapters)
        let plugins = Layers(shared.plugins, endpoint?.requestPlugins, self.plugins)
        let validators = Layers(shared.validators, endpoint?.requestResponseValidators, self.validators)
        let retriers = Layers(shared.retriers, endpoint?.requestRetriers, self.retriers)
        let interceptors = Layers(shared.interceptors, endpoint?.requestInterceptors, self.interceptors)
        // Interceptors wrap every exchange but a WebSocket's (its handshake opens a connection, not a body).
        let chain: InterceptorChain? =
            switch target {
            case _ where interceptors.isEmpty, .webSocket: nil
            case .memory, .file, .stream: InterceptorChain(interceptors: Array(interceptors))
            }

        // Retry decisions measure elapsed time on the client's clock, so a test clock governs deadlines too;
        // without retriers nobody asks, so nothing is started.
        let elapsedOnClientClock = retriers.isEmpty ? nil : Self.stopwatch(client.activeClock)
        var attempt = 1
        // What each remembering retrier noted about this request, by its position among the retriers.
        var notes: [Int: String] = [:]
        do {
            while true {
                // 2. adapt
                var request: TransportRequest
                if let first = built {
                    request = first
                    built = nil
                } else {
                    request = try makeRequest(compressing: compressedBody == nil)
                    if let compressedBody { Self.send(compressedBody, in: &request) }
                }
                if !adapters.isEmpty { request = try await adapted(consume request, by: adapters, attempt: attempt) }

                // a retry budget counts every request, not only the failed ones
                if attempt == 1, !retriers.isEmpty { Self.count(request, in: retriers) }

                // instruments inject what they carry (a trace context), so plugins see the request as sent
                recorders.attemptWillSend(&request, attempt: attempt)

                // 3. plugins see the request
                if !plugins.isEmpty { await Self.tell(plugins, sent: request) }

                // 4. transport
                let outcome = await send(
                    request, into: target, through: chain, attempt: attempt, startDate: startDate, started: started)
                recorders.attemptDidEnd(outcome, attempt: attempt)

                // 5. plugins see the response
                if !plugins.isEmpty { await Self.tell(plugins, received: outcome, for: request) }

                // 6. validate
                let failure: KonexError
                switch outcome {
                case .success(let received):
                    let isWebSocket = received.answer.payload.webSocket != nil
                    let rejection: KonexError? =
                        isWebSocket ? nil : validate(received, request: request, validators: validators)
                    guard var rejection else {
                        // 7. process
                        var exchange = try process(received, request: request, endpoint: endpoint, shared: shared)
                        recorders.ended(exchange, attempts: attempt)
                        if isWebSocket { exchange.recorders = recorders }
                        return exchange
                    }
                    received.answer.payload.discard()
                    rejection.attempt = attempt
                    failure = rejection
                case .failure(var error):
                    error.attempt = attempt
                    failure = error
                }

                // retry
                try await retry(
                    after: failure, of: request, attempt: attempt, retriers: retriers, elapsed: elapsedOnClientClock,
                    notes: &notes, recorders: recorders)
                attempt += 1
            }
        } catch {
            let failure = error as? KonexError ?? cancellationError()
            recorders.end(.failure(failure), attempts: attempt)
            throw failure
        }
    }

    // The helpers below are synchronous on purpose: their locals live on the thread's stack for a moment, where an
    // async function's would take room in the request's async frame for as long as it runs.

    /// Step 1: the request and the instruments' recorders; a request that cannot be built is recorded as failed.
    private func begin(_ target: BodyTarget, instruments: [any RequestInstrument], started: ContinuousClock.Instant)
        throws(KonexError) -> (TransportRequest, Recorders)
    {
        do {
            let request = try makeRequest()
            let recorders = Recorders(
                instruments, started: started, request: instrumented(request.method, request.url, target))
            return (request, recorders)
        } catch {
            let failure = error as? KonexError ?? cancellationError()
            Recorders(instruments, started: started, request: instrumented(nil, failure.url, target))
                .end(.failure(failure), attempts: 0)
            throw failure
        }
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

    // Steps 2, 3 and 5 run in frames of their own, entered only when there are components: a loop that awaits keeps its
    // element, its iterator and its arguments in the async frame, and in `run` that room would be held for the whole
    // request, the transport's wait included.

    /// Step 2: each adapter in order gets the request (the only reference to it, so it changes without a copy).
    @inline(never) private func adapted(
        _ request: consuming TransportRequest, by adapters: Layers<any RequestAdapter>, attempt: Int
    ) async throws -> TransportRequest {
        for adapter in adapters {
            do {
                request = try await adapter.adapt(consume request)
            } catch {
                throw adaptationFailure(error, by: adapter, attempt: attempt)
            }
        }
        return request
    }

    /// Step 3: the plugins see the request as sent.
    @inline(never) private static func tell(_ plugins: Layers<any KonexPlugin>, sent request: TransportRequest) async {
        for plugin in plugins where !EarlierSignatures.isIdle(type(of: plugin), .pluginDidSend) {
            await plugin.didSendRequest(request)
        }
    }

    /// Step 5: the plugins see the outcome.
    @inline(never) private static func tell(
        _ plugins: Layers<any KonexPlugin>, received outcome: Result<TransportResponse, KonexError>,
        for request: TransportRequest
    ) async {
        for plugin in plugins where !EarlierSignatures.isIdle(type(of: plugin), .pluginDidReceive) {
            await plugin.didReceiveResponse(outcome, for: request)
        }
    }

    /// Tells the retriers a request starts (a retry budget counts it).
    private static func count(_ request: TransportRequest, in retriers: Layers<any RequestRetrier>) {
        for retrier in retriers { retrier.requestWillStart(request) }
    }

    /// Step 7, after a failed attempt: asks the retriers in order, then waits the delay the first taker asked for.
    /// - Throws: `failure` when no retrier takes it, a retrier's own error, or a cancellation error.
    // Not inlined into `run`: its decisions and waits would take room in every request's async frame, failed or not.
    @inline(never) private func retry(
        after failure: KonexError, of request: TransportRequest, attempt: Int, retriers: Layers<any RequestRetrier>,
        elapsed elapsedOnClientClock: (@Sendable () -> Duration)?, notes: inout [Int: String], recorders: Recorders
    ) async throws {
        if failure.stage == .cancelled || Task.isCancelled { throw cancellationError(request) }
        let elapsed = elapsedOnClientClock?() ?? .zero
        var delay: Duration?
        decide: for (position, retrier) in retriers.enumerated() {
            let decision: RetryDecision
            if let remembering = retrier as? any RememberingRetrier {
                decision = await remembering.shouldRetry(
                    request, dueTo: failure, attempt: attempt, elapsed: elapsed, note: &notes[position])
            } else {
                decision = await retrier.shouldRetry(request, dueTo: failure, attempt: attempt, elapsed: elapsed)
            }
            switch decision {
            case .doNotRetry: continue
            case .retry(let after):
                delay = after
                recorders.willRetry(RetryEvent(attempt: attempt, error: failure, retrier: retrier, delay: after))
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

    /// What instruments are told about this request before it starts.
    private func instrumented(_ method: HTTPMethod?, _ url: URL?, _ target: BodyTarget) -> InstrumentedRequest {
        let kind: InstrumentedRequest.Kind =
            switch target {
            case .memory: .data
            case .file: .download
            case .stream: .stream
            case .webSocket: .webSocket
            }
        let endpoint = self.endpoint
        return InstrumentedRequest(
            method: method ?? endpoint?.method ?? .get, url: url,
            urlTemplate: endpoint?.urlTemplate, kind: kind, endpoint: endpoint, operationID: operationID)
    }

    /// Step 6: the first validator that throws decides; the error body is decoded when asked for.
    private func validate(
        _ received: TransportResponse, request: TransportRequest, validators: Layers<any KonexResponseValidator>
    )
        -> KonexError?
    {
        for validator in validators {
            do {
                try validator.validate(received.response, data: received.data)
            } catch {
                var failure = KonexError(
                    stage: .validation, message: String(describing: error),
                    method: request.method, url: request.url, request: request,
                    response: received.response, data: received.data, underlyingError: error)
                if received.answer.payload.inMemoryIsPartial {
                    failure.isDataPartial = true
                    failure.message += " (the error body goes on past the \(received.data.count) bytes kept)"
                }
                if let errorDecoder, !received.data.isEmpty {
                    do {
                        failure.errorBody = try errorDecoder.decode(received.data, client.decoder)
                    } catch {
                        let (path, reason) =
                            (error as? DecodingError).map(DecodingErrorDescription.describe) ?? ([], "\(error)")
                        let location = path.isEmpty ? "" : " at \(JSONKeyPath.render(path))"
                        failure.message += "; the error body is not a \(errorDecoder.typeName): \(reason)\(location)"
                    }
                }
                return failure
            }
        }
        return nil
    }

    /// Step 7: processors, in order; with none the received bytes pass through untouched.
    private func process(
        _ received: TransportResponse, request: TransportRequest, endpoint: (any KonexRequest)?, shared: Components
    ) throws -> Exchange {
        // Processors need a whole body in memory: a file's, a stream's or a connection's answer passes as it is.
        guard case .data(var data) = received.answer.payload else {
            return Exchange(request: request, answer: received.answer, data: received.data, timing: received.timing)
        }
        let processors = Layers(shared.processors, endpoint?.requestResponseProcessors, self.processors)
        for processor in processors {
            do {
                data = try processor.process(data, response: received.response)
            } catch {
                throw KonexError(
                    stage: .processing, message: "processor \(type(of: processor)) failed: \(error)",
                    method: request.method, url: request.url, request: request,
                    response: received.response, data: data, underlyingError: error, attempt: received.timing.attempt)
            }
        }
        return Exchange(request: request, answer: received.answer, data: data, timing: received.timing)
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
