import Foundation

// Build: the request from the endpoint (DataRequest+Building.swift), and the instruments' recorders.
extension RequestRun {
    /// Builds `call`'s first request, settles the run and runs it.
    /// - Throws: ``KonexError`` only; a request that cannot be built is recorded as failed.
    static func start(_ call: consuming DataRequest, into target: BodyTarget) async throws -> ReceivedResponse {
        if Task.isCancelled { throw call.cancellationError() }
        let startDate = Date()
        let started = Moment.now
        let (first, recorders) = try call.begin(target, started: started)
        let run = RequestRun(
            consume call, into: target, first: first, recorders: recorders, startDate: startDate, started: started)
        return try await run.run(from: consume first)
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
    /// The first request and the instruments' recorders; a request that cannot be built is recorded as failed.
    // Synchronous: its locals live on the thread's stack for a moment, not in the run's async frame.
    func begin(_ target: BodyTarget, started: Moment) throws(KonexError) -> (TransportRequest, Recorders) {
        let instruments = client.componentSnapshot.instruments
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
