#if Tracing
    import InMemoryTracing
    import Tracing

    /// swift-distributed-tracing's in-memory tracer, speaking W3C trace context on the wire: it records spans as
    /// `InMemoryTracer` does and injects `traceparent` (`00-<trace id>-<span id>-01`) and `tracestate`, so a test can
    /// match what a server received with the span it recorded.
    public struct W3CInMemoryTracer: Tracer {
        /// The spans, as recorded.
        public let recorded: InMemoryTracer

        /// Creates a tracer whose ids are random hex of W3C's lengths (32 and 16).
        public init() {
            recorded = InMemoryTracer(
                idGenerator: .init(nextTraceID: { Self.hex(16) }, nextSpanID: { Self.hex(8) }))
        }

        static func hex(_ bytes: Int) -> String {
            (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        }

        public func startSpan<Instant: TracerInstant>(
            _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
            at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
        ) -> InMemorySpan {
            recorded.startSpan(
                operationName, context: context(), ofKind: kind, at: instant(), function: function, file: fileID,
                line: line)
        }

        public func forceFlush() { recorded.forceFlush() }

        public func inject<Carrier, Inject: Injector>(
            _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
        ) where Carrier == Inject.Carrier {
            guard let span = context.inMemorySpanContext else { return }
            injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
            injector.inject("konex=test", forKey: "tracestate", into: &carrier)
        }

        public func extract<Carrier, Extract: Extractor>(
            _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
        ) where Carrier == Extract.Carrier {
            guard let header = extractor.extract(key: "traceparent", from: carrier) else { return }
            let parts = header.split(separator: "-")
            guard parts.count == 4 else { return }
            context.inMemorySpanContext = InMemorySpanContext(
                traceID: String(parts[1]), spanID: String(parts[2]), parentSpanID: nil)
        }
    }
#endif
