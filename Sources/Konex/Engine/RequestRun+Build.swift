import Foundation

// Build: the request from the endpoint (DataRequest+Building.swift), and the instruments' recorders.
extension RequestRun {
    /// Builds `call`'s first request, settles the run and runs it.
    /// - Throws: ``KonexError`` only; a request that cannot be built is recorded as failed.
    static func start(_ call: consuming DataRequest, into target: BodyTarget) async throws -> ReceivedResponse {
        if Task.isCancelled { throw call.cancellationError() }
        let (run, first) = try settle(call, into: target)
        return try await run.run(from: first)
    }

    /// The run of `call` and its first request.
    // Synchronous, and out of line: the call, the first request and the recorders are made on the thread's stack for
    // a moment, where in `start` they would take room in its async frame for as long as the request runs (1,280 bytes
    // of every parked request).
    @inline(never) private static func settle(_ call: consuming DataRequest, into target: BodyTarget)
        throws(KonexError) -> (RequestRun, TransportRequest)
    {
        let startDate = Date()
        let started = Moment.now
        let instruments = call.client.componentSnapshot.instruments
        let first: TransportRequest
        do {
            first = try call.makeRequest()
        } catch {
            let failure = error as? KonexError ?? call.cancellationError()
            Recorders(instruments, started: started, request: call.instrumented(nil, failure.url, target))
                .end(.failure(failure), attempts: 0)
            throw failure
        }
        let recorders = Recorders(
            instruments, started: started, request: call.instrumented(first.method, first.url, target))
        // Moved, not copied: a copy of the call is about 290 instructions.
        let run = RequestRun(
            consume call, into: target, first: first, recorders: recorders, startDate: startDate, started: started)
        return (run, first)
    }

    /// A retry's request, built anew from the endpoint: an adapter may have consumed the last one. A compressed body
    /// is not compressed again: the first attempt's is sent.
    func rebuild() throws -> TransportRequest {
        var request = try call.makeRequest(compressing: compressedBody == nil)
        if let compressedBody { DataRequest.send(compressedBody, in: &request) }
        return request
    }
}

extension DataRequest {
    /// What instruments are told about this request before it starts.
    func instrumented(_ method: HTTPMethod?, _ url: URL?, _ target: BodyTarget) -> InstrumentedRequest {
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
}
