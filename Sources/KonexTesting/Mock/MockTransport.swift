import Foundation
import Konex

/// An in-memory `Transport` that answers from declared endpoints, with delays on an injected clock,
/// sequences, scenarios, faults and a journal. One per client: no global state, so tests run in parallel.
///
/// ```swift
/// let mock = MockTransport(clock: ImmediateClock())
/// mock.stub(.get("/posts/{id}"), .json(Post(id: 1, title: "Hello")))
/// mock.stub(.get("/flaky"), .status(503), .json(ok))            // 503 once, then 200
/// let client = KonexClient(baseURL: URL(string: "https://api.test")!, transport: mock)
/// let post = try await client.request("/posts/1").responseObject(of: Post.self)
/// #expect(mock.requests.count == 1)
/// ```
/// A request that matches nothing fails with ``UnmatchedRequestError`` (never a plausible empty 200).
/// Endpoints are tried in the order they were declared; exhausted ones (see ``Times``) are skipped.
public final class MockTransport: Transport {
    private struct Registered: Sendable {
        var endpoint: MockEndpoint
        var uses = 0
        // The last head built per response index: a test (or a benchmark) often hits the same URL many times, and
        // the head's fields are then made once.
        var built: [Int: ResponseHead] = [:]
    }

    private struct State: Sendable {
        var endpoints: [Registered] = []
        var journal: [RecordedRequest] = []
        var received = 0
        var scenarios: [String: String] = [:]
        var random: SeededGenerator
    }

    private let state: Lock<State>
    /// WebSocket endpoints and the sessions they accepted (`MockTransport+WebSocket.swift`).
    let webSockets = Lock(MockWebSockets())
    let clock: any Clock<Duration>
    private let delay: Delay
    /// How many requests the journal keeps (the most recent); older ones are dropped so long runs stay flat.
    public let journalLimit: Int

    /// Creates a mock transport.
    /// - Parameters:
    ///   - clock: What delays wait on; `ContinuousClock` by default, ``ImmediateClock`` or ``ManualClock`` in tests.
    ///   - delay: A delay for every response, added to the endpoint's and the response's.
    ///   - seed: Seeds random delays, so the same seed gives the same delays.
    ///   - journalLimit: How many recent requests the journal keeps; 1,000 by default.
    public init(
        clock: any Clock<Duration> = ContinuousClock(), delay: Delay = .none, seed: UInt64 = 0,
        journalLimit: Int = 1_000
    ) {
        self.clock = clock
        self.delay = delay
        self.journalLimit = journalLimit
        state = Lock(State(random: SeededGenerator(seed: seed)))
    }

    /// Declares an endpoint answering `responses` in order (the last repeats while `times` allows).
    /// - Parameters:
    ///   - matcher: Which requests it answers.
    ///   - responses: What it answers.
    ///   - times: How many times; `.always` by default.
    ///   - delay: A delay for each of its responses.
    public func stub(
        _ matcher: RequestMatcher, _ responses: MockResponse..., times: Times = .always, delay: Delay = .none
    ) {
        stub(MockEndpoint(matcher, responses: responses, times: times, delay: delay))
    }

    /// Declares an endpoint.
    public func stub(_ endpoint: MockEndpoint) {
        state.withLock { $0.endpoints.append(Registered(endpoint: endpoint)) }
    }

    /// Declares an endpoint and returns the transport, for one-expression setup.
    public func stubbing(_ matcher: RequestMatcher, _ responses: MockResponse..., times: Times = .always)
        -> MockTransport
    {
        stub(MockEndpoint(matcher, responses: responses, times: times))
        return self
    }

    /// Sets a scenario's state (scenarios start in `"started"`).
    public func setState(_ state: String, ofScenario name: String) {
        self.state.withLock { $0.scenarios[name] = state }
    }

    /// A scenario's current state.
    public func state(ofScenario name: String) -> String {
        state.withLock { $0.scenarios[name] ?? "started" }
    }

    /// The most recent requests received, oldest first (at most ``journalLimit``).
    public var requests: [RecordedRequest] { state.value.journal }

    /// How many requests were received in all, including those dropped from the journal.
    public var requestCount: Int { state.value.received }

    /// Waits until at least `count` requests have been received in all.
    /// - Parameters:
    ///   - count: How many requests to wait for.
    ///   - timeout: How long to wait in real time before giving up.
    /// - Throws: ``WaitTimeout`` naming how many arrived.
    public func waitForRequests(_ count: Int, timeout: Duration = .seconds(120)) async throws {
        try await WaitTimeout.wait(
            for: "\(count) request(s) on the MockTransport; \(requestCount) received", timeout: timeout
        ) { requestCount >= count }
    }

    /// The journalled requests that `matcher` matches.
    public func requests(matching matcher: RequestMatcher) -> [RecordedRequest] {
        requests.filter { matcher.matches($0.request) }
    }

    /// The endpoints that never answered.
    public var unusedEndpoints: [MockEndpoint] {
        state.value.endpoints.filter { $0.uses == 0 }.map(\.endpoint)
    }

    /// Throws when some endpoint was declared but never used: a test that set up more than it exercised.
    public func verifyAllEndpointsUsed() throws {
        let unused = unusedEndpoints
        if !unused.isEmpty {
            throw MockConfigurationError(
                "\(unused.count) mock endpoint(s) never used: " + unused.map(\.description).joined(separator: ", "))
        }
    }

    /// Any settings: a mock answers every request itself and makes no connection, so there is nothing to trust. A
    /// test of a pinned client therefore runs unchanged over a mock.
    /// - Parameter tls: The client's settings.
    public func checkCanApply(_ tls: TLSSettings) {}

    /// Answers with the stubbed response after its delay: whole, or for a body taken as it arrives, chunk by chunk on
    /// the transport's clock (see ``MockResponse/chunks(_:status:contentType:headers:then:)``).
    public func send(_ request: TransportRequest, context: TransportContext) async throws -> (
        ResponseHead, ResponseBody
    ) {
        if context.delivery == .incremental {
            return try await stream(request, bufferLimit: context.bufferLimit)
        }
        let (data, head) = try await whole(request)
        return (head, ResponseBody(data))
    }

    /// `request` with a body of chunks (``Konex/TransportRequest/Body/chunks(_:)``) read whole, for an answer taken
    /// whole, so the journal and body matchers see its bytes. (For an answer taken as it arrives the chunks are left
    /// unread, and the journal shows no body: they may be written while the answer comes back, echo then speak, and
    /// read ahead, their writer would wait for an echo that waits for the whole body.)
    @inline(never) static func drainingChunks(of request: TransportRequest) async throws -> TransportRequest {
        var read = request
        read.body = .data(try await request.body?.collected(upTo: 64 << 20) ?? Data())
        return read
    }

    /// The whole answer to `request`: a chunked body takes as long as its chunks.
    func whole(_ request: TransportRequest) async throws -> (Data, ResponseHead) {
        // A stream or chunks cannot be sent again: only then is the look at the chunks taken.
        if let body = request.body, !body.canBeSentAgain, body.chunks != nil {
            return try await whole(Self.drainingChunks(of: request))
        }
        let (response, wait, slot, built) = try pick(for: request)
        if wait > .zero { try await clock.sleep(for: wait) }
        try Task.checkCancellation()
        if case .chunks(let chunks, let ending) = response.body {
            // Read whole, a streamed body takes as long as all its chunks, and ends as the stream would.
            let total = chunks.reduce(Duration.zero) { $0 + $1.delay }
            if total > .zero { try await clock.sleep(for: total) }
            if ending == .connectionLost { throw URLError(.networkConnectionLost) }
            if ending == .hang { try await Self.hangUntilCancelled() }
        }
        return try await answer(request, with: response, slot: slot, built: built)
    }

    /// `request` with a file body read into memory (up to 64 MiB), so the journal and body matchers see its bytes:
    /// the file may be a temporary one that goes with the request (a compressed body's). A stream is left unread.
    static func readingFileBody(of request: TransportRequest) -> TransportRequest {
        guard let body = request.body, body.data == nil, body.canBeSentAgain,
            let bytes = try? body.collect(upTo: 64 << 20)
        else { return request }
        var read = request
        read.body = .data(bytes)
        return read
    }

    /// Journals the request and chooses the response and the total delay, under one lock.
    func pick(for request: TransportRequest) throws -> (MockResponse, Duration, (Int, Int), ResponseHead?) {
        let request = Self.readingFileBody(of: request)
        return try state.withLock { state in
            if journalLimit > 0 {
                state.journal.append(RecordedRequest(sent: request, sequenceNumber: state.received))
                if state.journal.count > journalLimit { state.journal.removeFirst(state.journal.count - journalLimit) }
            }
            state.received += 1

            var nearest: [(misses: [String], endpoint: String)] = []
            for index in state.endpoints.indices {
                // Read through the array rather than copying each endpoint out of it: this runs per request.
                var misses = state.endpoints[index].endpoint.matcher.mismatches(request)
                let uses = state.endpoints[index].uses
                if let limit = state.endpoints[index].endpoint.times.limit, uses >= limit {
                    misses.append("already answered \(uses) time(s) (limit \(limit))")
                }
                if let scenario = state.endpoints[index].endpoint.scenario, let wanted = scenario.state {
                    let current = state.scenarios[scenario.name] ?? "started"
                    if current != wanted {
                        misses.append("scenario \"\(scenario.name)\" is in state \"\(current)\", not \"\(wanted)\"")
                    }
                }
                guard misses.isEmpty else {
                    nearest.append((misses, state.endpoints[index].endpoint.description))
                    continue
                }
                state.endpoints[index].uses += 1
                if let scenario = state.endpoints[index].endpoint.scenario, let next = scenario.next {
                    state.scenarios[scenario.name] = next
                }
                let count = state.endpoints[index].endpoint.responses.count
                let responseIndex = min(uses, count - 1)
                let response = state.endpoints[index].endpoint.responses[responseIndex]
                var wait = Self.duration(of: delay, using: &state.random)
                wait += Self.duration(of: state.endpoints[index].endpoint.delay, using: &state.random)
                if let extra = response.delay { wait += Self.duration(of: extra, using: &state.random) }
                let built = state.endpoints[index].built[responseIndex].flatMap { $0.url == request.url ? $0 : nil }
                return (response, wait, (index, responseIndex), built)
            }
            let best = nearest.sorted { $0.misses.count < $1.misses.count }.prefix(3)
            throw UnmatchedRequestError(
                request: request,
                nearest: best.map { UnmatchedRequestError.NearMiss(endpoint: $0.endpoint, differences: $0.misses) })
        }
    }

    func answer(_ request: TransportRequest, with response: MockResponse, slot: (Int, Int), built: ResponseHead?)
        async throws -> (Data, ResponseHead)
    {
        if let code = response.fault?.urlErrorCode { throw URLError(code) }
        if response.fault == .hang { try await Self.hangUntilCancelled() }
        var body = try response.bodyData()
        switch response.fault {
        case .truncatedBody: body = body.prefix(body.count / 2)
        case .malformedJSON: body = Data(#"{"id": 1, "title": "unterminated"#.utf8)
        default: break
        }
        let http = head(for: request, with: response, slot: slot, built: built)
        return (request.httpMethod == "HEAD" ? Data() : body, http)
    }

    /// The response head, built once per response and URL.
    func head(for request: TransportRequest, with response: MockResponse, slot: (Int, Int), built: ResponseHead?)
        -> ResponseHead
    {
        if let built { return built }
        let url = request.url
        let head = ResponseHead(statusCode: response.status, headerFields: response.headerFields, url: url)
        state.withLock { $0.endpoints[slot.0].built[slot.1] = head }
        return head
    }

    static func duration(of delay: Delay, using random: inout SeededGenerator) -> Duration {
        switch delay {
        case .none: return .zero
        case .fixed(let duration): return duration
        case .random(let range):
            let low = range.lowerBound / .nanoseconds(1)
            let high = range.upperBound / .nanoseconds(1)
            let span = UInt64(max(0, high - low))
            let offset = span == 0 ? 0 : random.next() % (span + 1)
            return range.lowerBound + .nanoseconds(Int64(offset))
        }
    }

    /// Suspends until the task is cancelled, whatever the clock.
    static func hangUntilCancelled() async throws {
        let gate = Lock<(CheckedContinuation<Void, any Error>?, Bool)>((nil, false))
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let cancelled = gate.withLock { gate in
                    gate.0 = continuation
                    return gate.1
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let continuation = gate.withLock { gate in
                gate.1 = true
                defer { gate.0 = nil }
                return gate.0
            }
            continuation?.resume(throwing: CancellationError())
        }
    }
}
