import Foundation

extension DataRequest {
    /// Runs the pipeline up to serialization, in the order documented in `Engine/Pipeline.swift`, under the
    /// client's redaction: bound to ``Redaction/current`` for every sink on the way, and given to the error thrown.
    /// - Parameter target: Where the body goes; a file's processors are skipped (they need the body in memory).
    /// - Throws: ``KonexError`` only.
    func execute(body target: BodyTarget = .memory) async throws -> ReceivedResponse {
        // The usual request goes straight to the pipeline: every frame between a terminal and the transport is held
        // for the whole wait, and the scopes' frames (a task-local's closure, the exchange kept to mark) took 992 bytes
        // of each parked request though most requests have none of them.
        if progressSink == nil, operationID == nil, client.ownRedaction == nil, bodyCompression == nil {
            return try await run(body: target)
        }
        return try await scoped(body: target)
    }

    /// Runs a call whose body was compressed and removes its temporary file when the call ends, however it ends: a
    /// `Response` or a `KonexError` may hold the request (and so the file) for long. Not in `run`: its cleanup took
    /// 270 instructions of every request.
    @inline(never) private static func removingCompressedFile(
        _ call: () async throws -> ReceivedResponse
    ) async throws -> ReceivedResponse {
        do {
            let answer = try await call()
            (answer.request.body?.keepsAlive as? TemporaryBodyFile)?.remove()
            return answer
        } catch {
            ((error as? KonexError)?.request?.body?.keepsAlive as? TemporaryBodyFile)?.remove()
            throw error
        }
    }

    /// ``execute(body:)`` for a request with a progress sequence, an operation to bind, a redaction of its own or a
    /// compressed body.
    @inline(never) private func scoped(body target: BodyTarget) async throws -> ReceivedResponse {
        guard bodyCompression == nil else { return try await Self.removingCompressedFile { try await bound(target) } }
        return try await bound(target)
    }

    /// ``scoped(body:)`` past the compressed body's cleanup.
    private func bound(_ target: BodyTarget) async throws -> ReceivedResponse {
        if let progressSink { return try await tracked(body: target, into: progressSink) }
        guard let operation = operationID else { return try await redacted(body: target) }
        return try await KonexOperation.$bound.withValue(operation) { try await redacted(body: target) }
    }

    /// The pipeline under the client's own redaction, when it has one.
    private func redacted(body target: BodyTarget) async throws -> ReceivedResponse {
        guard let own = client.ownRedaction else { return try await run(body: target) }
        let redaction = own.redaction
        do {
            var answer = try await Redaction.$bound.withValue(redaction) { try await run(body: target) }
            answer.redaction = own
            return answer
        } catch {
            var failure = error as? KonexError ?? cancellationError()
            failure.redaction = redaction
            throw failure
        }
    }

    /// The pipeline itself (see ``execute(body:)``).
    private func run(body target: BodyTarget) async throws -> ReceivedResponse {
        let endpoint = self.endpoint
        if Task.isCancelled { throw cancellationError() }

        let client = self.client
        let shared = client.componentSnapshot
        let startDate = Date()
        let started = Moment.now

        // build (again for a retry: handing adapters the only reference lets them change it without a copy)
        let (first, recorders) = try begin(target, instruments: shared.instruments, started: started)
        // A compressed body is made once: every attempt sends the same bytes (an encoder need not repeat itself:
        // JSONEncoder's key order varies between runs), and its temporary file lives as long as the request.
        let compressedBody = bodyCompression == nil ? nil : Self.compressedBody(of: first)
        // The request of the attempt under way: the first as built, a retry's made again at the end of the loop (an
        // optional taken at the loop's top was copied whole through its outlined value operations).
        var request = consume first

        let own = endpoint.map(RequestLevel.init) ?? RequestLevel()
        let adapters = Layers(shared.adapters, own.adapters, self.adapters)
        let plugins = Layers(shared.plugins, own.plugins, self.plugins)
        let validators = Layers(shared.validators, own.validators, self.validators)
        let retriers = Layers(shared.retriers, own.retriers, self.retriers)
        let chain = Self.chain(of: Layers(shared.interceptors, own.interceptors, self.interceptors), for: target)

        // Retry decisions measure elapsed time on the client's clock, so a test clock governs deadlines too;
        // without retriers nobody asks, so nothing is started.
        let elapsedOnClientClock = retriers.isEmpty ? nil : Self.stopwatch(client.activeClock)
        var attempt = 1
        // What each remembering retrier noted about this request, by its position among the retriers.
        var notes: [Int: String] = [:]
        do {
            while true {
                // adapt
                if !adapters.isEmpty { request = try await adapted(consume request, by: adapters, attempt: attempt) }

                // instruments inject what they carry (a trace context), so plugins see the request as sent
                recorders.attemptWillSend(&request, attempt: attempt)

                // plugins see the request
                if Self.anyListens(plugins, .pluginDidSend) { await Self.tell(plugins, sent: request) }

                // transport
                let outcome = await send(
                    request, into: target, through: chain, attempt: attempt, startDate: startDate, started: started)
                recorders.attemptDidEnd(outcome, attempt: attempt)

                // plugins see the outcome
                if Self.anyListens(plugins, .pluginDidReceive) {
                    await Self.tell(plugins, received: outcome, for: request)
                }

                // validate
                let failure: KonexError
                // (a retry budget counts every request sent, not only the failed ones; a cache hit sent nothing)
                let counted = attempt == 1 && !retriers.isEmpty
                switch outcome {
                case .success(let answer):
                    if counted, answer.source != .cache {
                        Self.count(request, in: retriers, client: client)
                    }
                    switch validate(answer, request: request, validators: validators) {
                    case nil:
                        // process: the answer passed, and the call ends with it
                        return try process(
                            answer, for: request, endpoint: endpoint, shared: shared, recorders: recorders,
                            attempts: attempt)
                    case var rejection?:
                        answer.reply.discard()
                        rejection.attempt = attempt
                        failure = rejection
                    }
                case .failure(var error):
                    if counted { Self.count(request, in: retriers, client: client) }
                    error.attempt = attempt
                    failure = error
                }

                // retry, or end with the failure
                try await retry(
                    after: failure, of: request, attempt: attempt, retriers: retriers, elapsed: elapsedOnClientClock,
                    notes: &notes, recorders: recorders)
                attempt += 1
                request = try makeRequest(compressing: compressedBody == nil)
                if let compressedBody { Self.send(compressedBody, in: &request) }
            }
        } catch {
            let failure = error as? KonexError ?? cancellationError()
            recorders.end(.failure(failure), attempts: attempt)
            throw failure
        }
    }
}
