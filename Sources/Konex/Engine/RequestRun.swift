import Foundation

/// One call as its attempts see it: what is settled before the first attempt and read by every step of every attempt
/// (where the body goes, the components of each kind in the order they run, the interceptor chain, the instruments'
/// recorders, when the call started). Made once a terminal by ``DataRequest/settle(_:)``, in the run's frame, and lent
/// to each step; what changes from one attempt to the next (the request, the attempt's number, the retriers' notes)
/// stays in the loop of `DataRequest.run(body:)`.
///
/// It does not hold the `DataRequest`: a copy of the call cost about 290 instructions a request, and the steps that
/// need the call's own options (its client, progress, timeouts, error decoder) are the call's methods.
struct RequestRun {
    /// Where the body goes: memory, a file, a stream or a WebSocket.
    let target: BodyTarget
    let adapters: Layers<any RequestAdapter>
    let plugins: Layers<any KonexPlugin>
    let validators: Layers<any KonexResponseValidator>
    let retriers: Layers<any RequestRetrier>
    let processors: Layers<any KonexResponseProcessor>
    /// The interceptors around the transport; `nil` when there are none, or for a WebSocket (``DataRequest/chain``).
    let chain: InterceptorChain?
    /// The instruments that record this call.
    let recorders: Recorders
    /// The compressed body every attempt sends, when the call compresses its body: made once, so every attempt sends
    /// the same bytes (an encoder need not repeat itself: JSONEncoder's key order varies between runs), and its
    /// temporary file lives as long as the request.
    let compressedBody: BodyCompression.Sent?
    /// When the call started, as a date for ``RequestTiming/startDate`` and as a moment for durations.
    let startDate: Date
    let started: Moment
    /// The time elapsed on the client's clock, for the retriers' deadlines (a test clock governs them too); `nil`
    /// without retriers, since nobody asks.
    let elapsedOnClientClock: (@Sendable () -> Duration)?

    /// Whether any plugin may do something when told of `requirement` (``DataRequest/anyListens(_:_:)``).
    func pluginsListen(_ requirement: EarlierSignatures.Requirement) -> Bool {
        DataRequest.anyListens(plugins, requirement)
    }
}

/// What validation made of an attempt's outcome: the answer the call goes on with, or the failure a retrier may take.
enum Verdict {
    case accepted(ReceivedResponse)
    case rejected(KonexError)
}

extension DataRequest {
    /// Build, and the run settled: the first attempt's request and what every attempt reads. A request that cannot be
    /// built is recorded as failed.
    /// - Throws: ``KonexError`` with stage `.invalidRequest`.
    func settle(_ target: BodyTarget) throws(KonexError) -> (TransportRequest, RequestRun) {
        let shared = client.componentSnapshot
        let started = Moment.now
        let startDate = Date()
        let request: TransportRequest
        do {
            request = try makeRequest()
        } catch {
            let failure = error as? KonexError ?? cancellationError()
            Recorders(shared.instruments, started: started, request: instrumented(nil, failure.url, target))
                .end(.failure(failure), attempts: 0)
            throw failure
        }
        let recorders = Recorders(
            shared.instruments, started: started, request: instrumented(request.method, request.url, target))
        let own = endpoint.map(RequestLevel.init) ?? RequestLevel()
        let retriers = Layers(shared.retriers, own.retriers, self.retriers)
        let run = RequestRun(
            target: target,
            adapters: Layers(shared.adapters, own.adapters, adapters),
            plugins: Layers(shared.plugins, own.plugins, plugins),
            validators: Layers(shared.validators, own.validators, validators),
            retriers: retriers,
            processors: Layers(shared.processors, own.processors, processors),
            chain: Self.chain(of: Layers(shared.interceptors, own.interceptors, interceptors), for: target),
            recorders: recorders,
            compressedBody: bodyCompression == nil ? nil : Self.compressedBody(of: request),
            startDate: startDate, started: started,
            elapsedOnClientClock: retriers.isEmpty ? nil : Self.stopwatch(client.activeClock))
        return (request, run)
    }

    /// The request of a retry, made again from the call: the same as the first attempt's before adapters, sending the
    /// first attempt's compressed body when there is one.
    func remade(in run: RequestRun) throws -> TransportRequest {
        var request = try makeRequest(compressing: run.compressedBody == nil)
        if let compressedBody = run.compressedBody { Self.send(compressedBody, in: &request) }
        return request
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
}
