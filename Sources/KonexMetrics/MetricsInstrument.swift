#if Metrics
    import Metrics
    import Foundation
    import Konex

    /// Measures every request a client sends, through swift-metrics, with label sets of bounded size.
    ///
    /// | metric | kind | labels |
    /// | --- | --- | --- |
    /// | `http.client.request.duration` | timer | method, status code or `error.type`, `server.address`, `url.template`, `konex.operation` |
    /// | `http.client.active_requests` | meter | method, `server.address` |
    /// | `konex.retries` | counter | `reason`: the failure's `error.type`, or `token_refresh` |
    /// | `konex.cache.responses` | counter | `konex.cache.source`: `cache` or `revalidated` |
    /// | `konex.coalesced` | counter | method, `server.address` |
    /// | `konex.queue.duration` | timer | `server.address` (requests that waited for a ``Konex/ConcurrencyLimit`` slot) |
    /// | `konex.stream.duration` | timer | method, status code or `error.type`, `server.address`, `url.template` |
    /// | `konex.websocket.duration` | timer | the same labels, for a WebSocket from handshake to close |
    ///
    /// No label holds a URL path: a request that names its route (``Konex/KonexRequest/urlTemplate``) is labelled by
    /// it, any other by method and host alone. Methods outside the standard ones are `_OTHER`. A stream's lifetime goes
    /// to `konex.stream.duration` instead of the request duration. With nothing bootstrapped (and no factory given) a
    /// request pays one type check.
    /// ```swift
    /// MetricsSystem.bootstrap(PrometheusMetricsFactory())     // once, at startup
    /// let client = KonexClient(baseURL: api, instruments: [MetricsInstrument()])
    /// ```
    public final class MetricsInstrument: RequestInstrument {
        private let factory: (any MetricsFactory)?
        private let handles: Lock<HandleCache>
        /// The most handles kept in each of the cache's two generations.
        let handleLimit: Int

        /// Handles made once and reused, in two generations: a label set not used since the last turn over is
        /// forgotten, so a service that calls a million hosts keeps at most `2 × handleLimit` handles, and the hot
        /// ones survive every turn.
        struct HandleCache {
            var current: [String: any AnyObject & Sendable] = [:]
            var previous: [String: any AnyObject & Sendable] = [:]

            var count: Int { current.count + previous.count }

            mutating func take(_ key: String, limit: Int) -> (any AnyObject & Sendable)? {
                if let handle = current[key] { return handle }
                guard let handle = previous.removeValue(forKey: key) else { return nil }
                insert(handle, forKey: key, limit: limit)
                return handle
            }

            mutating func insert(_ handle: any AnyObject & Sendable, forKey key: String, limit: Int) {
                if current.count >= limit {
                    previous = current
                    current = [:]
                }
                current[key] = handle
            }
        }

        /// Creates the instrument.
        /// - Parameters:
        ///   - factory: Where metrics go; `nil` (the default) uses `MetricsSystem.factory`.
        ///   - handleLimit: How many metric handles (one per metric and label set: each host has its own) are kept
        ///     for reuse, in each of two generations; 1,000 by default. Handles not used for a generation are
        ///     dropped, so memory stays bounded however many hosts a service calls.
        public init(factory: (any MetricsFactory)? = nil, handleLimit: Int = 1_000) {
            self.factory = factory
            self.handleLimit = max(1, handleLimit)
            handles = Lock(HandleCache())
        }

        /// How many handles are kept now (for tests).
        var cachedHandleCount: Int { handles.withLock { $0.count } }

        public func requestWillStart(_ request: InstrumentedRequest) -> (any RequestRecorder)? {
            // Nothing bootstrapped: nothing to measure for.
            if factory == nil, MetricsSystem.factory is NOOPMetricsHandler { return nil }
            let method = request.method.telemetryName
            let host = request.url?.host ?? ""
            // The request keeps the meter it raised: the cache may forget the handle before the request ends.
            let active = meter("http.client.active_requests", Recorder.hostLabels(method, host))
            active.increment()
            return Recorder(
                instrument: self, method: method, host: host, route: request.urlTemplate,
                operation: request.operationID, kind: request.kind, activeRequests: active)
        }

        // One handle per metric and label set, made once and kept while it is used (see `HandleCache`).
        private func handle<T: AnyObject & Sendable>(
            _ label: String, _ dimensions: [(String, String)], make: ([(String, String)], any MetricsFactory) -> T
        ) -> T {
            let key = dimensions.reduce(into: label) { $0 += "\u{1F}\($1.0)=\($1.1)" }
            let limit = handleLimit
            if let cached = handles.withLock({ $0.take(key, limit: limit) }) as? T { return cached }
            let made = make(dimensions, factory ?? MetricsSystem.factory)
            return handles.withLock { handles in
                if let raced = handles.take(key, limit: limit) as? T { return raced }
                handles.insert(made, forKey: key, limit: limit)
                return made
            }
        }

        func timer(_ label: String, _ dimensions: [(String, String)]) -> Timer {
            handle(label, dimensions) { Timer(label: label, dimensions: $0, factory: $1) }
        }

        func counter(_ label: String, _ dimensions: [(String, String)]) -> Counter {
            handle(label, dimensions) { Counter(label: label, dimensions: $0, factory: $1) }
        }

        func meter(_ label: String, _ dimensions: [(String, String)]) -> Meter {
            handle(label, dimensions) { Meter(label: label, dimensions: $0, factory: $1) }
        }
    }

    /// Measures one request.
    private struct Recorder: RequestRecorder {
        let instrument: MetricsInstrument
        let method: String
        let host: String
        let route: String?
        let operation: String?
        let kind: InstrumentedRequest.Kind
        let activeRequests: Meter

        static func hostLabels(_ method: String, _ host: String) -> [(String, String)] {
            [("http.request.method", method), ("server.address", host)]
        }

        var hostLabels: [(String, String)] { Self.hostLabels(method, host) }

        func attemptDidEnd(_ result: Result<ReceivedResponse, KonexError>, attempt: Int) {
            guard case .success(let received) = result else { return }
            if received.source != .network {
                instrument.counter("konex.cache.responses", [("konex.cache.source", received.source.rawValue)])
                    .increment()
            }
            if received.isShared { instrument.counter("konex.coalesced", hostLabels).increment() }
            if received.timing.queue > .zero {
                instrument.timer("konex.queue.duration", [("server.address", host)])
                    .recordNanoseconds(received.timing.queue.nanoseconds)
            }
        }

        func willRetry(_ retry: RetryEvent) {
            let reason = retry.refreshesToken ? "token_refresh" : retry.error.errorType
            instrument.counter("konex.retries", [("reason", reason)]).increment()
        }

        func requestDidEnd(_ end: RequestEnd) {
            activeRequests.decrement()
            var labels = hostLabels
            switch end.result {
            case .success(let response):
                labels.append(("http.response.status_code", String(response.statusCode)))
                if response.statusCode >= 400 { labels.append(("error.type", String(response.statusCode))) }
            case .failure(let error):
                if let status = error.statusCode { labels.append(("http.response.status_code", String(status))) }
                labels.append(("error.type", error.errorType))
            }
            if let route { labels.append(("url.template", route)) }
            if let operation { labels.append(("konex.operation", operation)) }
            // A stream's or a WebSocket's lifetime is not a request's latency: each has its own timer.
            let label =
                kind == .stream
                ? "konex.stream.duration"
                : kind == .webSocket ? "konex.websocket.duration" : "http.client.request.duration"
            instrument.timer(label, labels).recordNanoseconds(end.duration.nanoseconds)
        }
    }

#endif
