#if Tracing
    import Foundation
    import Konex
    import Tracing

    #if canImport(FoundationNetworking)
        import FoundationNetworking
    #endif

    /// Traces every request a client sends: one client span per request, each attempt an event on it, the W3C trace
    /// context (`traceparent`, `tracestate`) injected into each attempt through the tracer.
    ///
    /// The span is named by method (`GET`; `HTTP` for a method outside the standard set), or by method and route when the request names one
    /// (``Konex/KonexRequest/urlTemplate``: `GET /posts/{id}`). It carries the stable OpenTelemetry HTTP client
    /// attributes (`http.request.method`, `http.response.status_code`, `server.address`, `server.port`, `url.full`
    /// redacted, `url.template`, `error.type`, `http.request.resend_count`) and Konex's own: `konex.cache.source`,
    /// `konex.queue.duration` (seconds), `konex.coalesced`, `konex.token.refreshed`, `konex.attempts`. It starts as a child
    /// of the caller's `ServiceContext.current` and ends when the request does; a stream's span ends with its body.
    /// ```swift
    /// InstrumentationSystem.bootstrap(myTracer)            // once, at startup (swift-otel, say)
    /// let client = KonexClient(baseURL: api, instruments: [TracingInstrument()])
    /// let post = try await client.request(GetPost(id: 1)).validate().responseObject(of: Post.self)
    /// ```
    /// Under a no-op tracer (nothing bootstrapped) a request pays one type check and records nothing.
    public struct TracingInstrument: RequestInstrument {
        private let tracer: (any Tracer)?
        private let redaction: Redaction?

        /// Creates the instrument.
        /// - Parameters:
        ///   - tracer: The tracer; `nil` (the default) reads `InstrumentationSystem.tracer` at each request, so a
        ///     bootstrap after the client was made still counts.
        ///   - redaction: What `url.full` and a recorded error hide; `nil` (the default) for the client's redaction
        ///     (``Konex/Redaction/current``).
        public init(tracer: (any Tracer)? = nil, redaction: Redaction? = nil) {
            self.tracer = tracer
            self.redaction = redaction
        }

        public func requestWillStart(_ request: InstrumentedRequest) -> (any RequestRecorder)? {
            let tracer: any Tracer
            if let given = self.tracer {
                tracer = given
            } else {
                // Nothing bootstrapped: one cheap type check, before the search for a tracer (a protocol cast).
                if InstrumentationSystem.instrument is NoOpInstrument { return nil }
                tracer = InstrumentationSystem.tracer
            }
            if tracer is NoOpTracer { return nil }
            // OpenTelemetry's span name: the method (HTTP for one outside the standard set), then the route if known.
            let method = request.method.telemetryName == "_OTHER" ? "HTTP" : request.method.rawValue
            // A named operation (a generated client's operationId) names the span best: one per endpoint, by design.
            let name = request.operationID ?? request.urlTemplate.map { "\(method) \($0)" } ?? method
            let span = tracer.startSpan(name, context: ServiceContext.current ?? .topLevel, ofKind: .client)
            span.updateAttributes { attributes in
                let method = request.method.telemetryName
                attributes["http.request.method"] = method
                if method == "_OTHER" { attributes["http.request.method_original"] = request.method.rawValue }
                attributes["url.template"] = request.urlTemplate
                attributes["konex.operation"] = request.operationID
                attributes["konex.request.kind"] = request.kind.rawValue
            }
            return SpanRecorder(span: span, tracer: tracer, redaction: redaction ?? .current)
        }
    }

    /// Records one request on its span.
    private struct SpanRecorder: RequestRecorder {
        let span: any Span
        let tracer: any Tracer
        let redaction: Redaction

        func attemptWillSend(_ request: inout TransportRequest, attempt: Int) {
            if attempt == 1 {
                let url = request.url
                // The URL after adapters: what was really asked for.
                span.updateAttributes { attributes in
                    attributes["url.full"] = redaction.url(url.absoluteString)
                    attributes["server.address"] = url.host
                    attributes["server.port"] = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
                }
            } else if attempt > 1 {
                span.attributes["http.request.resend_count"] = attempt - 1
            }
            tracer.inject(span.context, into: &request, using: RequestInjector())
        }

        func attemptDidEnd(_ result: Result<ReceivedResponse, KonexError>, attempt: Int) {
            var event: SpanAttributes = [:]
            if attempt > 1 { event["http.request.resend_count"] = attempt - 1 }
            switch result {
            case .success(let received):
                event["http.response.status_code"] = received.response.statusCode
                span.updateAttributes { attributes in
                    attributes["http.response.status_code"] = received.response.statusCode
                    attributes["konex.cache.source"] = received.source.rawValue
                    attributes["konex.coalesced"] = received.isShared
                    if received.timing.queue > .zero {
                        attributes["konex.queue.duration"] = received.timing.queue.seconds
                    }
                }
            case .failure(let error):
                event["error.type"] = error.errorType
            }
            span.addEvent(SpanEvent(name: "http.attempt", attributes: event))
        }

        func willRetry(_ retry: RetryEvent) {
            if retry.refreshesToken { span.attributes["konex.token.refreshed"] = true }
            span.addEvent(
                SpanEvent(
                    name: "http.retry",
                    attributes: [
                        "error.type": .string(retry.error.errorType), "konex.retry.delay": .double(retry.delay.seconds),
                        "konex.retrier": .string(String(describing: type(of: retry.retrier))),
                    ]))
        }

        func requestDidEnd(_ end: RequestEnd) {
            span.attributes["konex.attempts"] = end.attempts
            switch end.result {
            case .success(let response):
                span.attributes["http.response.status_code"] = response.statusCode
                // An unvalidated 4xx or 5xx is still a failed call for the span (OpenTelemetry's rule for clients).
                if response.statusCode >= 400 {
                    span.attributes["error.type"] = String(response.statusCode)
                    span.setStatus(SpanStatus(code: .error))
                }
            case .failure(let error):
                span.attributes["error.type"] = error.errorType
                if let status = error.statusCode { span.attributes["http.response.status_code"] = status }
                span.recordError(Self.exported(error, redaction: redaction))
                span.setStatus(SpanStatus(code: .error, message: error.stage.rawValue))
            }
            span.end()
        }
    }

    extension SpanRecorder {
        /// The error as a tracing backend may keep it: described by the client's redaction, and without the response
        /// body or the decoded error body (a backend stores what it is given, often for months, read by many).
        static func exported(_ error: KonexError, redaction: Redaction) -> KonexError {
            var exported = error
            exported.data = nil
            exported.errorBody = nil
            exported.request = nil  // its headers carry the credentials; the span has the method and url.full
            exported.redaction = redaction
            return exported
        }
    }

    /// Writes the trace context into a request's headers, replacing any value already there.
    struct RequestInjector: Injector {
        func inject(_ value: String, forKey key: String, into request: inout TransportRequest) {
            request.setValue(value, forHTTPHeaderField: key)
        }
    }

#endif
