#if OpenAPI
    import Foundation
    import Konex

    /// A streamed body of records (Server-Sent Events, JSON Lines, JSON Text Sequences) handed to swift-openapi-runtime's
    /// decoders with Konex's limits: a line (or a JSON sequence's record) longer than
    /// ``Konex/ServerSentEventParser/defaultMaximumLineLength``, or an event larger than
    /// ``Konex/ServerSentEventParser/defaultMaximumEventSize``, ends the body with a ``Konex/StreamFailure``
    /// (`.lineTooLong`, `.eventTooLarge`) instead of growing the runtime's buffer without bound. The chunks pass through
    /// unchanged: only the lengths are counted. A JSON Text Sequence's RS counts as a byte of its record's line (each
    /// record ends with LF, RFC 7464).
    struct BoundedRecords<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == Data {
        typealias Element = Data

        let base: Base
        /// Whether a blank line ends a record of several lines (an event stream's event).
        let eventsSpanLines: Bool
        let maximumLineLength: Int
        let maximumEventSize: Int

        init(
            _ base: Base, eventsSpanLines: Bool,
            maximumLineLength: Int = ServerSentEventParser.defaultMaximumLineLength,
            maximumEventSize: Int = ServerSentEventParser.defaultMaximumEventSize
        ) {
            self.base = base
            self.eventsSpanLines = eventsSpanLines
            self.maximumLineLength = maximumLineLength
            self.maximumEventSize = maximumEventSize
        }

        func makeAsyncIterator() -> Iterator {
            Iterator(
                base: base.makeAsyncIterator(), eventsSpanLines: eventsSpanLines,
                splitter: LineSplitter(maximumLength: maximumLineLength), maximumEventSize: maximumEventSize)
        }

        struct Iterator: AsyncIteratorProtocol {
            var base: Base.AsyncIterator
            let eventsSpanLines: Bool
            /// Konex's own line splitter, so a line ends here exactly where the SSE parser ends it (CRLF is one end,
            /// never a line and a blank one) and is bounded the same way.
            var splitter: LineSplitter
            let maximumEventSize: Int
            /// Bytes of the event's complete lines so far (an event stream's event ends at a blank line).
            var event = 0

            mutating func next() async throws -> Data? {
                guard let chunk = try await base.next() else { return nil }
                let (spans, limit) = (eventsSpanLines, maximumEventSize)
                var event = self.event
                try chunk.withUnsafeBytes { bytes in
                    try splitter.split(bytes) { line in
                        guard spans else { return }
                        event = line.isEmpty ? 0 : event + line.count
                        if event > limit {
                            throw StreamFailure(
                                .eventTooLarge, "an event is larger than \(limit) bytes (the maximumEventSize)")
                        }
                    }
                }
                self.event = event
                return chunk
            }
        }
    }
#endif
