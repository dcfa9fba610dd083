import Foundation

extension DataRequest {
    /// Runs the pipeline up to serialization (``RequestRun``, whose file documents the order), under the
    /// client's redaction: bound to ``Redaction/current`` for every sink on the way, and given to the error thrown.
    /// - Parameter target: Where the body goes; a file's processors are skipped (they need the body in memory).
    /// - Throws: ``KonexError`` only.
    @inline(__always) consuming func execute(body target: BodyTarget = .memory) async throws -> ReceivedResponse {
        // The usual request goes straight to the pipeline: every frame between a terminal and the transport is held
        // for the whole wait, and the scopes' frames (a task-local's closure, the exchange kept to mark) took 992 bytes
        // of each parked request though most requests have none of them.
        if progressSink == nil, operationID == nil, client.ownRedaction == nil, bodyCompression == nil {
            return try await RequestRun.start(self, into: target)
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
        guard let own = client.ownRedaction else { return try await RequestRun.start(self, into: target) }
        let redaction = own.redaction
        do {
            var answer = try await Redaction.$bound.withValue(redaction) {
                try await RequestRun.start(self, into: target)
            }
            answer.redaction = own
            return answer
        } catch {
            var failure = error as? KonexError ?? cancellationError()
            failure.redaction = redaction
            throw failure
        }
    }
}

extension DataRequest {
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
