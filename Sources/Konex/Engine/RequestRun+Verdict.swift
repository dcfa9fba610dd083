import Foundation

// The verdict on an attempt: the plugins hear of its outcome, the validators judge an answer, and a failure goes to
// the retriers, whose decision ends the call or asks for another attempt.
extension RequestRun {
    /// What the loop does after an attempt.
    enum Verdict {
        /// The answer passed validation: it goes on to the processors.
        case accept(ReceivedResponse)
        /// A retrier asked for another attempt after `delay`.
        case retry(after: Duration)
        /// The call ends with `failure`.
        case fail(KonexError)
    }

    /// Judges one attempt's `outcome` for `request`.
    @inline(__always) func verdict(
        on outcome: Result<ReceivedResponse, KonexError>, of request: TransportRequest, attempt: Int,
        notes: inout RetryNotes
    ) async -> Verdict {
        if plugins.anyListens(.pluginDidReceive) { await tellPlugins(received: outcome, for: request) }
        // A retry budget counts every request sent, not only the failed ones; a cache hit sent nothing.
        let countsInBudget = attempt == 1 && !retriers.isEmpty
        let failure: KonexError
        switch outcome {
        case .success(let answer):
            if countsInBudget, answer.source != .cache { countInBudget(request) }
            guard var rejection = validate(answer, of: request) else { return .accept(answer) }
            answer.reply.discard()
            rejection.attempt = attempt
            failure = rejection
        case .failure(var error):
            if countsInBudget { countInBudget(request) }
            error.attempt = attempt
            failure = error
        }
        return await retryDecision(after: failure, of: request, attempt: attempt, notes: &notes)
    }

    /// The plugins see the outcome.
    @inline(never) private func tellPlugins(
        received outcome: Result<ReceivedResponse, KonexError>, for request: TransportRequest
    )
        async
    {
        for plugin in plugins where !EarlierSignatures.isIdle(plugin, .pluginDidReceive) {
            await plugin.didReceiveResponse(outcome, for: request)
        }
    }

    /// The first validator that throws decides; the error body is decoded when asked for. A WebSocket's 101 is not
    /// theirs to judge: its handshake was checked when it opened (`WebSocketHandshakeCheck`).
    /// - Returns: The rejection, or `nil` when every validator passed the answer.
    func validate(_ answer: ReceivedResponse, of request: TransportRequest) -> KonexError? {
        if validators.isEmpty || answer.reply.webSocket != nil { return nil }
        let (response, data) = (answer.response, answer.data)
        for validator in validators {
            do {
                try validator.validate(response, data: data)
            } catch {
                return rejection(of: answer, for: request, by: error)
            }
        }
        return nil
    }

    /// The validation error for `answer`, with its error body decoded when the call asked for it.
    @inline(never) private func rejection(
        of answer: ReceivedResponse, for request: TransportRequest, by error: any Error
    )
        -> KonexError
    {
        let (response, data) = (answer.response, answer.data)
        var failure = KonexError(
            stage: .validation, message: String(describing: error),
            method: request.method, url: request.url, request: request,
            response: response, data: data, underlyingError: error)
        if answer.reply.errorHeadIsPartial {
            failure.isDataPartial = true
            failure.message += " (the error body goes on past the \(data.count) bytes kept)"
        }
        if let errorDecoder = call.errorDecoder, !data.isEmpty {
            do {
                failure.errorBody = try errorDecoder.decode(data, client.decoder)
            } catch {
                failure.message += ErrorBodyDecoder.mismatch(errorDecoder.typeName, error)
            }
        }
        return failure
    }

    /// Counts a request that reached the network in the client's retry budget, and tells the retriers (a budget of
    /// their own counts it).
    @inline(never) private func countInBudget(_ request: TransportRequest) {
        client.retryBudget.recordRequest(to: client.origin(of: request))
        for retrier in retriers { retrier.requestWillStart(request) }
    }

    /// Asks the retriers in order after a failed attempt: the first that takes it decides.
    @inline(never) private func retryDecision(
        after failure: KonexError, of request: TransportRequest, attempt: Int, notes: inout RetryNotes
    ) async -> Verdict {
        if failure.stage == .cancelled || Task.isCancelled { return .fail(call.cancellationError(request)) }
        let elapsed = elapsed?() ?? .zero
        for (position, retrier) in retriers.enumerated() {
            // A policy with the default budget (`RetryBudget.perClient`) spends this client's, even when a retrier of
            // the caller's wraps it.
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
            case .doNotRetry:
                continue
            case .retry(let delay):
                recorders.willRetry(RetryEvent(attempt: attempt, error: failure, retrier: retrier, delay: delay))
                return .retry(after: delay)
            case .fail(var error):
                error.attempt = attempt
                return .fail(error)
            }
        }
        return .fail(failure)
    }

    /// Waits the delay a retrier asked for, on the client's clock.
    /// - Throws: A cancellation error naming `request` when the call is cancelled first.
    func wait(_ delay: Duration, before request: TransportRequest) async throws(KonexError) {
        if Task.isCancelled { throw call.cancellationError(request) }
        do {
            try await client.activeClock.sleep(for: delay)
        } catch {
            throw call.cancellationError(request)
        }
    }
}

/// What each remembering retrier noted about one call, by its position among the retriers.
typealias RetryNotes = [Int: String]
