import Foundation

/// A streamed body read as Server-Sent Events, reconnecting when the request asked for it.
public struct ServerSentEvents: AsyncSequence, Sendable {
    public typealias Element = ServerSentEvent
    let stream: DataStream
    let maximumLineLength: Int
    let maximumEventSize: Int

    public func makeAsyncIterator() -> Iterator {
        Iterator(
            stream: stream, chunks: stream.chunks.makeAsyncIterator(),
            parser: ServerSentEventParser(maximumLineLength: maximumLineLength, maximumEventSize: maximumEventSize),
            origin: stream.source,
            elapsed: DataRequest.stopwatch(stream.source.client.activeClock))
    }

    /// Reads the events.
    public struct Iterator: AsyncIteratorProtocol {
        var stream: DataStream
        var chunks: StreamChunks.Iterator
        var parser: ServerSentEventParser
        /// The request as the caller made it: each reconnection adds its `Last-Event-ID` to this, never to the
        /// previous reconnection's request (which would keep sending an ID the server has since reset).
        let origin: DataRequest
        /// Time since the first connection's head, for a total timeout that spans every reconnection.
        let elapsed: @Sendable () -> Duration
        var ready: [ServerSentEvent] = []
        var readyIndex = 0
        var checkedType = false
        var failures = 0
        /// Whether the current connection delivered an event: one that ends with none counts as a failed attempt.
        var delivered = false
        var done = false

        public mutating func next() async throws -> ServerSentEvent? {
            while readyIndex == ready.count {
                if done { return nil }
                ready.removeAll(keepingCapacity: true)
                readyIndex = 0
                if !checkedType {
                    checkedType = true
                    try checkContentType()
                }
                let chunk: Data?
                do {
                    chunk = try await chunks.next()
                } catch let error as KonexError
                    where error.stage == .transport
                    && (error.underlyingError as? StreamFailure).map({ $0.kind == .idleTimeout }) ?? true
                {
                    // The connection broke, or went silent past the idle timeout: reconnect if asked to, else report
                    // it. (A total timeout, a full buffer or bad text end the stream for good.)
                    parser.finish()
                    guard stream.source.reconnection != nil else { throw error }
                    if try await reconnect(after: error) { continue }
                    done = true  // the server answered 204: stop reconnecting (WHATWG), which ends the stream
                    return nil
                }
                guard let chunk else {
                    parser.finish()
                    if try await reconnect(after: nil) { continue }
                    done = true
                    return nil
                }
                var events: [ServerSentEvent] = []
                do {
                    try parser.parse(chunk) { events.append($0) }
                } catch {
                    done = true
                    stream.cancel()
                    throw stream.konexError(error)
                }
                if !events.isEmpty {
                    failures = 0
                    delivered = true
                }
                ready = events
            }
            defer { readyIndex += 1 }
            return ready[readyIndex]
        }

        private mutating func checkContentType() throws {
            let type = stream.response.value(forHTTPHeaderField: "Content-Type")
            guard stream.statusCode == 204 || MediaType.matches(type ?? "", anyOf: ["text/event-stream"]) else {
                done = true
                stream.cancel()
                throw stream.konexError(
                    StreamFailure(
                        .notAnEventStream,
                        "events() needs a text/event-stream response, and this one is \(type.map { "\"\($0)\"" } ?? "without a Content-Type")"
                    ))
            }
        }

        /// Waits and reconnects when the request's policy allows; `false` when the stream is over.
        private mutating func reconnect(after error: KonexError?) async throws -> Bool {
            guard let policy = stream.source.reconnection, stream.statusCode != 204 else { return false }
            // A server that accepts and closes at once, over and over, is failing: the waits grow, the attempts end.
            if !delivered { failures += 1 }
            delivered = false
            while failures < policy.maximumAttempts {
                let wait = policy.delay(serverRetry: parser.reconnectionTime, failures: failures)
                do {
                    try await stream.source.client.activeClock.sleep(for: wait)
                } catch {
                    throw stream.konexError(CancellationError())
                }
                var request = origin
                if let id = parser.lastEventID { request = request.withAdapter(.header("Last-Event-ID", id)) }
                var total: Duration?
                if let limit = stream.totalTimeout {
                    total = limit - elapsed()
                    guard total! > .zero else {
                        throw stream.konexError(
                            StreamFailure(.totalTimeout, "the stream ran longer than its total timeout of \(limit)"))
                    }
                }
                do {
                    let next = try await request.stream(
                        bufferLimit: stream.body.buffer.limit, idleTimeout: stream.idleTimeout, totalTimeout: total)
                    if next.statusCode == 204 { return false }
                    if !(200..<300).contains(next.statusCode) {
                        guard policy.retryableStatusCodes.contains(next.statusCode) else {
                            throw next.konexError(
                                KonexError(
                                    stage: .validation,
                                    message:
                                        "the reconnection was answered with \(next.statusCode), which is not retried",
                                    request: next.request, response: next.response))
                        }
                        next.cancel()
                        failures += 1
                        continue
                    }
                    stream = next
                    chunks = next.chunks.makeAsyncIterator()
                    checkedType = false
                    return true
                } catch let failure as KonexError
                    where failure.stage == .validation
                    && failure.statusCode.map(policy.retryableStatusCodes.contains) == true
                {
                    failures += 1
                } catch let failure as KonexError where failure.stage == .transport {
                    failures += 1
                }
            }
            if let error { throw error }
            return false
        }
    }
}
