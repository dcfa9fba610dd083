import Foundation

/// The body of a streamed response: chunks of bytes in the order they arrive, read once.
///
/// Chunks wait in a buffer of at most `bufferLimit` bytes between the network and the reader. FoundationNetworking
/// cannot pause a transfer (suspending a task restarts it), so a reader that falls further behind than the limit
/// ends the stream with ``StreamFailure/Kind/bufferOverflow`` instead of growing memory without bound. One chunk
/// larger than the whole buffer is never refused by itself: an empty buffer holds it alone.
/// A transport makes one with ``makeStream(bufferLimit:onCancel:)``:
/// ```swift
/// let (body, continuation) = ByteStream.makeStream(bufferLimit: limit) { task.cancel() }
/// continuation.yield(chunk)      // as bytes arrive
/// continuation.finish()          // or finish(throwing: error)
/// ```
public struct ByteStream: AsyncSequence, Sendable {
    public typealias Element = Data

    /// The default buffer limit: 8 MiB.
    public static let defaultBufferLimit = 8 << 20

    let buffer: StreamBuffer
    /// Bytes already read from the buffer (the start of an error body), given back first.
    private var prefix: Data?

    /// A body that holds `data` as its one chunk (a transport that cannot stream delivers the body this way).
    public init(_ data: Data) {
        buffer = StreamBuffer(limit: Swift.max(data.count, 1), onCancel: {})
        if !data.isEmpty { buffer.yield(data) }
        buffer.end(nil)
    }

    init(buffer: StreamBuffer) { self.buffer = buffer }

    /// A stream and the continuation its producer feeds.
    /// - Parameters:
    ///   - bufferLimit: The most bytes held for the reader before the stream fails with a buffer overflow.
    ///   - onCancel: Stops the producer (cancels the transfer): called once when the reader stops early.
    public static func makeStream(bufferLimit: Int = defaultBufferLimit, onCancel: @escaping @Sendable () -> Void)
        -> (stream: ByteStream, continuation: Continuation)
    {
        let buffer = StreamBuffer(limit: bufferLimit, onCancel: onCancel)
        return (ByteStream(buffer: buffer), Continuation(buffer: buffer))
    }

    /// The producer's side.
    public struct Continuation: Sendable {
        let buffer: StreamBuffer

        /// Adds a chunk; `false` when the stream has ended (the reader left, or the buffer overflowed).
        @discardableResult
        public func yield(_ chunk: Data) -> Bool { buffer.yield(chunk) }

        /// Adds a chunk, suspending while the reader is `bufferLimit` bytes behind: for a producer that can pause
        /// (SwiftNIO applies the pause to the socket), so a slow reader slows the transfer instead of overflowing.
        /// - Returns: `false` when the stream has ended (the reader left, or the stream failed).
        public func send(_ chunk: Data) async -> Bool { await buffer.yieldWaitingForRoom(chunk) }

        /// Ends the stream after the chunks already given.
        public func finish() { buffer.end(nil) }

        /// Ends the stream with `error` after the chunks already given.
        public func finish(throwing error: any Error) { buffer.end(error) }
    }

    public func makeAsyncIterator() -> Iterator { Iterator(buffer: buffer, pending: prefix) }

    /// Reads the chunks.
    public struct Iterator: AsyncIteratorProtocol {
        let buffer: StreamBuffer
        var pending: Data?

        /// The next chunk, `nil` at the end; an error (the transfer's, a timeout, cancellation) is thrown once.
        public mutating func next() async throws -> Data? {
            if let pending {
                self.pending = nil
                return pending
            }
            return try await buffer.next()
        }
    }

    /// Reads up to `limit` bytes (or to the end) and keeps them to be read again first.
    mutating func take(upTo limit: Int) async throws -> Data {
        var collected = Data()
        var iterator = makeAsyncIterator()
        // One byte past the limit, or the end, so whether the body goes on is known (``heldBytes``).
        while collected.count <= limit, let chunk = try await iterator.next() { collected.append(chunk) }
        prefix = collected.isEmpty ? nil : collected
        return collected.count > limit ? collected.prefix(limit) : collected
    }

    /// The bytes already read and held to be given back first: more than ``take(upTo:)`` returned when the body goes
    /// on past its limit.
    var heldBytes: Int { prefix?.count ?? 0 }

    /// Stops the transfer; a reader waiting for a chunk gets `CancellationError`.
    public func cancel() { buffer.cancel() }
}
