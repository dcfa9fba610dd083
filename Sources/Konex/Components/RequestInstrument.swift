import Foundation

/// Watches every request a client sends, from its start to its end: the hook that tracing and metrics hang on.
///
/// A client calls each of its instruments once per request, before the first attempt, in the task that runs the
/// request (so task-local values, such as the current trace, are readable there). The ``RequestRecorder`` it returns
/// then hears about each attempt, each retry and the end. Konex ships two, behind package traits: `KonexTracing`
/// (swift-distributed-tracing) and `KonexMetrics` (swift-metrics). With no instrument a request pays nothing.
/// ```swift
/// struct CountingInstrument: RequestInstrument {
///     let count: Counter   // your own thread-safe counter
///     func requestWillStart(_ request: InstrumentedRequest) -> (any RequestRecorder)? {
///         count.increment()
///         return nil        // nothing more to record for this request
///     }
/// }
/// let client = KonexClient(baseURL: api, instruments: [CountingInstrument(count: count)])
/// ```
public protocol RequestInstrument: Sendable {
    /// Starts recording one request.
    /// - Parameter request: What is about to be sent.
    /// - Returns: What records this request, or `nil` to leave it alone.
    func requestWillStart(_ request: InstrumentedRequest) -> (any RequestRecorder)?
}

/// Records one request for a ``RequestInstrument``; every method does nothing unless implemented.
///
/// Calls come in order, from the task that runs the request: for each attempt `attemptWillSend(_:attempt:)` then
/// ``attemptDidEnd(_:attempt:)``, ``willRetry(_:)`` before each retry, and ``requestDidEnd(_:)`` exactly once, also
/// when building the request or an adapter failed and nothing was sent. A stream ends when its body does.
public protocol RequestRecorder: Sendable {
    /// Called with each attempt's final request (after adapters, before plugins see it): the place to inject headers,
    /// such as a W3C `traceparent`. Set a header with `setValue(_:forHTTPHeaderField:)`, which replaces any value an
    /// adapter put there.
    /// - Parameters:
    ///   - request: The request about to be sent.
    ///   - attempt: The attempt number, from 1.
    func attemptWillSend(_ request: inout TransportRequest, attempt: Int)

    /// Called after each attempt with what the transport returned, before validation (what plugins see).
    /// - Parameters:
    ///   - result: The response with its timing, source (cache), queue time and sharing, or the transport failure.
    ///   - attempt: The attempt number, from 1.
    func attemptDidEnd(_ result: Result<ReceivedResponse, KonexError>, attempt: Int)

    /// Called when a retrier asked for another attempt, before the delay.
    /// - Parameter retry: Which attempt failed, why, who asked, and how long the wait is.
    func willRetry(_ retry: RetryEvent)

    /// Called once, when the request is over: after processors for a response, when the body ends for a stream.
    /// - Parameter end: How it ended.
    func requestDidEnd(_ end: RequestEnd)

    /// The earlier signature of `attemptWillSend(_ request: inout TransportRequest, attempt:)`, from before
    /// ``TransportRequest``: still called when a recorder implements it and not the new one, and the headers it sets
    /// or removes are sent. Write `attemptWillSend(_ request: inout TransportRequest, attempt:)` instead.
    /// - Parameters:
    ///   - request: The request about to be sent, as a Foundation request.
    ///   - attempt: The attempt number, from 1.
    func attemptWillSend(_ request: inout URLRequest, attempt: Int)
}

// A recorder written for the earlier signature keeps working (see `EarlierSignatures`).
extension RequestRecorder {
    public func attemptWillSend(_ request: inout TransportRequest, attempt: Int) {
        guard EarlierSignatures.mayImplement(Self.self, .recorderWillSend) else { return }
        var foundation = request.urlRequest
        let before = foundation.allHTTPHeaderFields ?? [:]
        attemptWillSend(&foundation, attempt: attempt)
        // What the earlier method changed in the head goes out: its headers, set or removed.
        let after = foundation.allHTTPHeaderFields ?? [:]
        guard after != before else { return }
        for (name, value) in after where before[name] != value { request.setValue(value, forHTTPHeaderField: name) }
        for name in before.keys where after[name] == nil { request.setValue(nil, forHTTPHeaderField: name) }
    }

    public func attemptWillSend(_ request: inout URLRequest, attempt: Int) {
        EarlierSignatures.recordDefault(Self.self, .recorderWillSend)
    }

    public func attemptDidEnd(_ result: Result<ReceivedResponse, KonexError>, attempt: Int) {}
    public func willRetry(_ retry: RetryEvent) {}
    public func requestDidEnd(_ end: RequestEnd) {}
}
