import Foundation

extension DataRequest {
    /// Runs the pipeline up to serialization, in the order documented in `Pipeline/Pipeline.swift`, under the
    /// client's redaction: bound to ``Redaction/current`` for every sink on the way, and given to the error thrown.
    /// - Parameter target: Where the body goes; a file's processors are skipped (they need the body in memory).
    /// - Throws: ``KonexError`` only.
    func execute(body target: BodyTarget = .memory) async throws -> Exchange {
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
        var built: TransportRequest?
        let recorders: Recorders
        do {
            let request = try makeRequest()
            recorders = Recorders(
                shared.instruments, started: started, request: instrumented(request.method, request.url, target))
            built = request
        } catch {
            let failure = error as? KonexError ?? cancellationError()
            Recorders(shared.instruments, started: started, request: instrumented(nil, failure.url, target))
                .end(.failure(failure), attempts: 0)
            throw failure
        }

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
                    request = try makeRequest()
                }
                for adapter in adapters {
                    do {
                        request = try await adapter.adapt(consume request)
                    } catch {
                        // The adapter consumed the request; the error names it from the endpoint instead.
                        var failure = cancellationError()
                        if !Task.isCancelled {
                            failure.stage = .adaptation
                            failure.message = "adapter \(type(of: adapter)) failed: \(error)"
                            failure.underlyingError = error
                        }
                        failure.attempt = attempt
                        throw failure
                    }
                }

                // instruments inject what they carry (a trace context), so plugins see the request as sent
                recorders.attemptWillSend(&request, attempt: attempt)

                // 3. plugins see the request
                for plugin in plugins { await plugin.didSendRequest(request) }

                // 4. transport
                let outcome = await send(
                    request, into: target, through: chain, attempt: attempt, startDate: startDate, started: started)
                recorders.attemptDidEnd(outcome, attempt: attempt)

                // 5. plugins see the response
                for plugin in plugins { await plugin.didReceiveResponse(outcome, for: request) }

                // 6. validate
                var failure: KonexError
                switch outcome {
                case .success(let received):
                    let rejection: KonexError? =
                        received.webSocket == nil ? validate(received, request: request, validators: validators) : nil
                    guard let rejection else {
                        var exchange = try process(received, request: request, endpoint: endpoint, shared: shared)
                        recorders.ended(exchange, attempts: attempt)
                        if exchange.webSocket != nil { exchange.recorders = recorders }
                        return exchange
                    }
                    BodyFile.remove(received.file)
                    received.stream?.cancel()
                    failure = rejection
                case .failure(let error):
                    failure = error
                }
                failure.attempt = attempt

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
        if received.file != nil || received.stream != nil || received.webSocket != nil {
            return Exchange(
                request: request, response: received.response, received: received.data, data: received.data,
                timing: received.timing, file: received.file, stream: received.stream, webSocket: received.webSocket,
                redirects: received.redirects)
        }
        let processors = Layers(shared.processors, endpoint?.requestResponseProcessors, self.processors)
        var data = received.data
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
        return Exchange(
            request: request, response: received.response, received: received.data, data: data,
            timing: received.timing, source: received.source, redirects: received.redirects)
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
