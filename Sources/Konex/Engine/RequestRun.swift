import Foundation

// The pipeline, documented once: `RequestRun.run(from:)` below calls these steps in this order, and each has a file
// of its own beside this one.
//
//  build      RequestRun+Build       the TransportRequest from the KonexRequest (URL, query, headers,
//             DataRequest+Building   body, timeout); the instruments start recording       stage .invalidRequest
//  adapt      RequestRun+Adapt       client adapters → request adapters → call-site adapters; instruments
//                                    add what they carry (a trace context); plugins' didSendRequest,
//                                    client → request → call site                          stage .adaptation
//  exchange   RequestRun+Exchange    the interceptors (client → request → call site, outermost first: a
//                                    cache, a coalescer, a limit) around Transport.send, each redirect hop
//                                    as a request of its own, the body taken as the terminal wants it
//                                    (whole, into a file, as it arrives), timed; for every terminal but
//                                    webSocket(), whose handshake opens a connection       stage .transport / .redirect
//                                                                                          / .cancelled / .queueFull
//  verdict    RequestRun+Verdict     plugins' didReceiveResponse (same order, success or failure); validators
//                                    (client → request → call site); on a failure the retriers, in the same
//                                    order, may ask for another attempt after a delay, which starts again at
//                                    adapt with the request built anew                     stage .validation
//  process    RequestRun+Process     client processors → request processors → call-site processors
//                                                                                          stage .processing
//  serialize  the terminal (DataRequest+Responses and its neighbours): data, string, JSON, Decodable
//                                                                                          stage .decoding
//
// Instruments (tracing, metrics) hear of the start, each attempt, each retry and the end (a stream's when its body
// ends); `DataRequest.explain()` prints this order for one request. Every failure becomes one KonexError carrying
// the stage, the request, and whatever response there was.

/// One call of a terminal: everything its steps need, settled once before the first attempt, and the steps as
/// methods.
///
/// A value made once a call, in the frame of the call's run: the steps read their settings from it instead of having
/// the same six values handed through every signature. The call is moved in, not copied (a copy of a `DataRequest` is
/// about 290 instructions).
struct RequestRun: Sendable {
    /// The request as the caller built it: where each attempt's request is made from, and what errors name.
    let call: DataRequest
    /// Where the exchange puts the body.
    let target: BodyTarget
    /// The instruments' recorders of this call; empty when the client has no instrument.
    let recorders: Recorders
    /// When the call started, on the wall clock (for ``RequestTiming/startDate``) and for measuring.
    let startDate: Date
    let started: Moment

    /// The client's components, as they were when the call started.
    let shared: Components
    /// The request value's own components.
    let own: RequestLevel
    /// The interceptors around the transport; `nil` when there are none, or for a WebSocket's handshake.
    let interceptors: InterceptorChain?

    // The route and its limits.
    let transport: any Transport
    let redirects: RedirectSettings
    let maximumResponseSize: Int?
    let tls: TLSSettings
    let totalTimeout: Duration?

    /// The first attempt's compressed body, sent again by every retry (an encoder need not repeat itself: JSONEncoder's
    /// key order varies between runs); `nil` when the body was not compressed.
    let compressedBody: BodyCompression.Sent?
    /// The time since the call started on the client's clock, for retriers (a test clock governs their deadlines
    /// too); `nil`, and nothing started, without retriers.
    let elapsed: (@Sendable () -> Duration)?

    /// Settles a call whose first request is `first`.
    init(
        _ call: consuming DataRequest, into target: BodyTarget, first: borrowing TransportRequest, recorders: Recorders,
        startDate: Date,
        started: Moment
    ) {
        let call = consume call
        let client = call.client
        self.target = target
        self.recorders = recorders
        self.startDate = startDate
        self.started = started

        let shared = client.componentSnapshot
        let own = call.endpoint.map(RequestLevel.init) ?? RequestLevel()
        self.shared = shared
        self.own = own
        interceptors = InterceptorChain(Layers(shared.interceptors, own.interceptors, call.interceptors), for: target)

        (transport, redirects) = client.activeRoute
        maximumResponseSize = client.maximumResponseSize
        tls = client.tls
        totalTimeout = call.totalTimeout ?? client.totalTimeout

        compressedBody = call.bodyCompression == nil ? nil : DataRequest.compressedBody(of: first)
        let hasRetriers = !(shared.retriers.isEmpty && own.retriers.isEmpty && call.retriers.isEmpty)
        elapsed = hasRetriers ? DataRequest.stopwatch(client.activeClock) : nil
        self.call = consume call
    }

    /// The attempt loop, from the first attempt's `request`: each attempt is adapted, exchanged and judged; the
    /// verdict accepts the answer, asks for another attempt, or ends the call.
    /// - Throws: ``KonexError`` only.
    // Inlined into `start`, its only caller: one async frame for the whole call, as before it was a value.
    @inline(__always) func run(from request: consuming TransportRequest) async throws -> ReceivedResponse {
        var attempt = 1
        var retries: RetryNotes = [:]
        do {
            while true {
                request = try await adapt(consume request, attempt: attempt)
                await announce(&request, attempt: attempt)
                let outcome = await exchange(request, attempt: attempt)
                recorders.attemptDidEnd(outcome, attempt: attempt)
                switch await verdict(on: outcome, of: request, attempt: attempt, notes: &retries) {
                case .accept(let answer):
                    return try process(answer, of: request, attempts: attempt)
                case .retry(let delay):
                    try await wait(delay, before: request)
                    attempt += 1
                    request = try rebuild()
                case .fail(let failure):
                    throw failure
                }
            }
        } catch {
            let failure = error as? KonexError ?? call.cancellationError()
            recorders.end(.failure(failure), attempts: attempt)
            throw failure
        }
    }
}

// The components of each kind, client level first, then the request value's, then the call site's: read from the
// three levels when a step walks them, not stored (five stored layers were fifteen arrays retained and released by
// every call).
extension RequestRun {
    var client: KonexClient { call.client }
    var adapters: Layers<any RequestAdapter> { Layers(shared.adapters, own.adapters, call.adapters) }
    var plugins: Layers<any KonexPlugin> { Layers(shared.plugins, own.plugins, call.plugins) }
    var validators: Layers<any KonexResponseValidator> { Layers(shared.validators, own.validators, call.validators) }
    var retriers: Layers<any RequestRetrier> { Layers(shared.retriers, own.retriers, call.retriers) }
    var processors: Layers<any KonexResponseProcessor> { Layers(shared.processors, own.processors, call.processors) }
}
