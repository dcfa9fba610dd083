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

    /// The pipeline itself (see ``execute(body:)``): the attempt loop, one named step a line, in the order
    /// `Engine/Pipeline.swift` documents.
    private func run(body target: BodyTarget) async throws -> ReceivedResponse {
        if Task.isCancelled { throw cancellationError() }
        // build, and what every attempt reads
        let (first, run) = try settle(target)
        // The request of the attempt under way: the first as built, a retry's made again at the end of the loop (an
        // optional taken at the loop's top was copied whole through its outlined value operations).
        var request = consume first
        var attempt = 1
        // What each remembering retrier noted about this request, by its position among the retriers.
        var notes: [Int: String] = [:]
        do {
            while true {
                if !run.adapters.isEmpty { request = try await adapted(consume request, in: run, attempt: attempt) }
                run.recorders.attemptWillSend(&request, attempt: attempt)
                if run.pluginsListen(.pluginDidSend) { await Self.tell(run.plugins, sent: request) }

                let outcome = await send(request, in: run, attempt: attempt)
                run.recorders.attemptDidEnd(outcome, attempt: attempt)
                if run.pluginsListen(.pluginDidReceive) {
                    await Self.tell(run.plugins, received: outcome, for: request)
                }

                switch verdict(on: outcome, for: request, in: run, attempt: attempt) {
                case .accepted(let answer):
                    return try process(answer, for: request, in: run, attempts: attempt)
                case .rejected(let failure):
                    // returns when a retrier takes the failure and its delay has passed; throws otherwise
                    try await retry(after: failure, of: request, attempt: attempt, in: run, notes: &notes)
                }
                attempt += 1
                request = try remade(in: run)
            }
        } catch {
            let failure = error as? KonexError ?? cancellationError()
            run.recorders.end(.failure(failure), attempts: attempt)
            throw failure
        }
    }
}
