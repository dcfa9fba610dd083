import Foundation

/// A streamed body's chunks; errors are ``KonexError``s.
public struct StreamChunks: AsyncSequence, Sendable {
    public typealias Element = Data
    let stream: DataStream

    public func makeAsyncIterator() -> Iterator { Iterator(stream: stream, chunks: stream.body.makeAsyncIterator()) }

    /// Reads the chunks.
    public struct Iterator: AsyncIteratorProtocol {
        let stream: DataStream
        var chunks: ByteStream.Iterator

        public mutating func next() async throws -> Data? {
            do {
                return try await chunks.next()
            } catch {
                throw stream.konexError(error)
            }
        }
    }
}

/// A streamed body as lines of UTF-8 text.
public struct StreamLines: AsyncSequence, Sendable {
    public typealias Element = String
    let chunks: StreamChunks
    let maximumLength: Int

    public func makeAsyncIterator() -> Iterator {
        Iterator(chunks: chunks.makeAsyncIterator(), splitter: LineSplitter(maximumLength: maximumLength))
    }

    /// Reads the lines.
    public struct Iterator: AsyncIteratorProtocol {
        var chunks: StreamChunks.Iterator
        var splitter: LineSplitter
        var ready: [String] = []
        var readyIndex = 0
        var done = false

        public mutating func next() async throws -> String? {
            while readyIndex == ready.count {
                if done { return nil }
                ready.removeAll(keepingCapacity: true)
                readyIndex = 0
                do {
                    guard let chunk = try await chunks.next() else {
                        done = true
                        if let last = splitter.remainder() { ready.append(try last.withUnsafeBytes(UTF8Text.decode)) }
                        continue
                    }
                    var lines: [String] = []
                    try chunk.withUnsafeBytes { bytes in
                        try splitter.split(bytes) { lines.append(try UTF8Text.decode($0)) }
                    }
                    ready = lines
                } catch {
                    done = true
                    throw chunks.stream.konexError(error)
                }
            }
            defer { readyIndex += 1 }
            return ready[readyIndex]
        }
    }
}

/// Each non-empty line of a streamed body decoded as JSON.
///
/// A model whose conformance is nonisolated is decoded off the reader's actor; one whose conformance belongs to the
/// reader's actor (a main-actor app's own `struct Post: Codable`) is decoded there, line by line, as it is read.
public struct JSONLines<T: Decodable>: AsyncSequence {
    public typealias Element = T
    let lines: StreamLines
    let decoder: JSONDecoder
    let stream: DataStream
    /// Whether lines are decoded on the reader's actor (the model's conformance may belong to it).
    let decodesOnReader: Bool

    public func makeAsyncIterator() -> Iterator {
        Iterator(lines: lines.makeAsyncIterator(), decoder: decoder, stream: stream, decodesOnReader: decodesOnReader)
    }

    /// Reads and decodes the lines.
    public struct Iterator: AsyncIteratorProtocol {
        var lines: StreamLines.Iterator
        let decoder: JSONDecoder
        let stream: DataStream
        let decodesOnReader: Bool
        var number = 0

        public mutating func next() async throws -> T? {
            while let line = try await lines.next() {
                if let value = try decode(line) { return value }
            }
            return nil
        }

        /// Reads the next line off the reader's actor and, for a model isolated to it, decodes it here.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> T? {
            guard decodesOnReader else {
                // `next()` where it always ran: off the reader's actor, for a model whose conformance is
                // nonisolated (and so `Sendable`: the factory that leaves `decodesOnReader` false requires it). The
                // iterator is the reader's own, not shared, as in the standard library's default of this method.
                nonisolated(unsafe) var iterator = self
                defer { self = iterator }
                return try await iterator.next()
            }
            while let line = try await lines.next(isolation: actor) {
                if let value = try decode(line) { return value }
            }
            return nil
        }

        private mutating func decode(_ line: String) throws -> T? {
            number += 1
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { return nil }
            return try stream.decode(T.self, from: line, with: decoder, at: "line \(number)")
        }
    }
}

extension JSONLines: Sendable where T: Sendable {}

/// Each Server-Sent Event's `data` decoded as JSON, until a sentinel.
///
/// As with ``JSONLines``, a model whose conformance belongs to the reader's actor is decoded there.
public struct DecodedEvents<T: Decodable>: AsyncSequence {
    public typealias Element = T
    let events: ServerSentEvents
    let sentinel: String?
    let decoder: JSONDecoder
    let stream: DataStream
    /// Whether events are decoded on the reader's actor (the model's conformance may belong to it).
    let decodesOnReader: Bool

    public func makeAsyncIterator() -> Iterator {
        Iterator(
            events: events.makeAsyncIterator(), sentinel: sentinel, decoder: decoder, stream: stream,
            decodesOnReader: decodesOnReader)
    }

    /// Reads and decodes the events.
    public struct Iterator: AsyncIteratorProtocol {
        var events: ServerSentEvents.Iterator
        let sentinel: String?
        let decoder: JSONDecoder
        let stream: DataStream
        let decodesOnReader: Bool
        var finished = false

        public mutating func next() async throws -> T? {
            guard !finished, let event = try await events.next() else { return nil }
            return try decode(event)
        }

        /// Reads the next event off the reader's actor and, for a model isolated to it, decodes it here.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> T? {
            guard decodesOnReader else {
                // As in `JSONLines`: off the actor for a nonisolated (`Sendable`) model; the iterator is the reader's.
                nonisolated(unsafe) var iterator = self
                defer { self = iterator }
                return try await iterator.next()
            }
            guard !finished, let event = try await events.next(isolation: actor) else { return nil }
            return try decode(event)
        }

        private mutating func decode(_ event: ServerSentEvent) throws -> T? {
            if let sentinel, event.data == sentinel {
                finished = true
                stream.cancel()  // the rest is not wanted: stop the transfer, quietly
                return nil
            }
            return try stream.decode(
                T.self, from: event.data, with: decoder, at: "event \(event.id.map { "id \($0)" } ?? event.event)")
        }
    }
}

extension DecodedEvents: Sendable where T: Sendable {}

extension DataStream {
    /// Decodes one line or event, as a `.decoding` ``KonexError`` naming where in the stream it failed.
    func decode<T: Decodable>(_ type: T.Type, from text: String, with decoder: JSONDecoder, at place: String) throws
        -> T
    {
        do {
            return try JSONTape.decode(type, from: Data(text.utf8), with: decoder)
        } catch {
            var failure = KonexError.decoding(
                error, keyPath: nil, request: request, response: response, data: Data(text.utf8))
            failure.message = "\(place) of the stream: \(failure.message)"
            failure.attempt = timing.attempt
            throw failure
        }
    }
}
