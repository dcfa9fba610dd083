#if OpenAPI
    import Foundation
    import Konex

    /// A streamed body of records (Server-Sent Events, JSON Lines, JSON Text Sequences) handed to swift-openapi-runtime's
    /// decoders with Konex's limits: a line (or a JSON sequence's record) longer than
    /// ``Konex/ServerSentEventParser/defaultMaximumLineLength``, or an event larger than
    /// ``Konex/ServerSentEventParser/defaultMaximumEventSize``, ends the body with a ``Konex/StreamFailure``
    /// (`.lineTooLong`, `.eventTooLarge`) instead of growing the runtime's buffer without bound. The chunks pass through
    /// unchanged: only the lengths are counted.
    struct BoundedRecords<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == Data {
        typealias Element = Data

        let base: Base
        /// Whether a blank line ends a record of several lines (an event stream's event).
        let eventsSpanLines: Bool
        /// Whether RS (0x1E) starts a record too (JSON Text Sequences, RFC 7464); elsewhere it counts as a byte of the
        /// line, so a peer cannot reset the count with it.
        let splitsOnRecordSeparator: Bool
        let maximumLineLength: Int
        let maximumEventSize: Int

        init(
            _ base: Base, eventsSpanLines: Bool, splitsOnRecordSeparator: Bool = false,
            maximumLineLength: Int = ServerSentEventParser.defaultMaximumLineLength,
            maximumEventSize: Int = ServerSentEventParser.defaultMaximumEventSize
        ) {
            self.base = base
            self.eventsSpanLines = eventsSpanLines
            self.splitsOnRecordSeparator = splitsOnRecordSeparator
            self.maximumLineLength = maximumLineLength
            self.maximumEventSize = maximumEventSize
        }

        func makeAsyncIterator() -> Iterator {
            Iterator(
                base: base.makeAsyncIterator(), eventsSpanLines: eventsSpanLines,
                splitsOnRecordSeparator: splitsOnRecordSeparator, maximumLineLength: maximumLineLength,
                maximumEventSize: maximumEventSize)
        }

        struct Iterator: AsyncIteratorProtocol {
            var base: Base.AsyncIterator
            let eventsSpanLines: Bool
            let splitsOnRecordSeparator: Bool
            let maximumLineLength: Int
            let maximumEventSize: Int
            /// Bytes since the last line end (LF, CR, or a JSON sequence's RS).
            var line = 0
            /// Bytes since the last blank line (an event stream's event).
            var event = 0
            /// Whether the last byte ended a line, so the next line end makes a blank line.
            var atLineStart = true

            mutating func next() async throws -> Data? {
                guard let chunk = try await base.next() else { return nil }
                for byte in chunk {
                    if byte == 0x0A || byte == 0x0D || (byte == 0x1E && splitsOnRecordSeparator) {
                        if atLineStart { event = 0 } else { event += line }
                        line = 0
                        atLineStart = true
                        continue
                    }
                    line += 1
                    atLineStart = false
                    if line > maximumLineLength {
                        throw StreamFailure(
                            .lineTooLong, "a line is longer than \(maximumLineLength) bytes (the maximumLineLength)")
                    }
                    if eventsSpanLines, event + line > maximumEventSize {
                        throw StreamFailure(
                            .eventTooLarge, "an event is larger than \(maximumEventSize) bytes (the maximumEventSize)")
                    }
                }
                return chunk
            }
        }
    }
#endif
