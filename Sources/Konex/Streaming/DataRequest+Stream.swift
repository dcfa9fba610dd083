import Foundation

extension DataRequest {
    /// Sends the request and returns as soon as the response head has passed validation; the body follows as it
    /// arrives (see ``DataStream``).
    ///
    /// The pipeline is the documented one up to the head: build, adapt, plugins, transport, plugins see the head,
    /// validators run on the head (a non-2xx body is read, up to 64 KB, for validators and `errorType`), retriers
    /// decide. Nothing is retried once the first body byte is handed over. Processors need a whole body, so a
    /// request or call-site processor with `stream()` is refused; client-level processors are skipped.
    /// ```swift
    /// let stream = try await client.request(Chat(prompt: "hi")).validate().stream(idleTimeout: .seconds(30))
    /// for try await line in stream.lines() { print(line) }
    /// ```
    /// - Parameters:
    ///   - bufferLimit: The most bytes held for a reader slower than the network; past it the stream ends with a
    ///     `.transport` error (``StreamFailure/Kind/bufferOverflow``). 8 MiB by default.
    ///   - idleTimeout: Ends the stream when no byte arrives for this long, on the client's clock.
    ///   - totalTimeout: Ends the stream when it has run this long, on the client's clock.
    /// - Returns: The head, and the body to read.
    /// - Throws: ``KonexError``, as every terminal does.
    public func stream(
        bufferLimit: Int = ByteStream.defaultBufferLimit, idleTimeout: Duration? = nil, totalTimeout: Duration? = nil
    ) async throws -> DataStream {
        try refuseProcessors(for: "stream()", because: "the whole body")
        let options = StreamOptions(
            bufferLimit: bufferLimit, idleTimeout: idleTimeout, totalTimeout: totalTimeout, clock: client.activeClock)
        let answer = try await execute(body: .stream(options))
        return DataStream(
            source: self, answer: answer, body: try answer.bodyStream(), idleTimeout: idleTimeout,
            totalTimeout: totalTimeout)
    }

    /// Reconnects a Server-Sent Events stream read with ``DataStream/events(maximumLineLength:maximumEventSize:)`` as `policy` says.
    ///
    /// The request then asks as an `EventSource` does: `Accept: text/event-stream` and `Cache-Control: no-cache`,
    /// unless it sets either itself.
    /// - Parameter policy: When and how to reconnect.
    public consuming func reconnecting(_ policy: ReconnectionPolicy = ReconnectionPolicy()) -> DataRequest {
        var copy = reconnection == nil ? withAdapter(EventStreamHeaders()) : self
        copy.reconnection = policy
        return copy
    }
}

/// What an `EventSource` asks with (WHATWG HTML §9.2): an event stream, never a stored one.
struct EventStreamHeaders: RequestAdapter {
    func adapt(_ request: consuming TransportRequest) async throws -> TransportRequest {
        var request = request
        if request.value(forHTTPHeaderField: "Accept") == nil {
            request.head.headerFields["Accept"] = "text/event-stream"
        }
        if request.value(forHTTPHeaderField: "Cache-Control") == nil {
            request.head.headerFields["Cache-Control"] = "no-cache"
        }
        return request
    }
}
