import Foundation

/// A response body as a transport hands it over: bytes that are whole already, bytes still arriving, or a temporary
/// file the transport wrote.
///
/// Read it as an `AsyncSequence` of chunks, or ``collect(upTo:)`` it. A transport that has the whole body returns it
/// as one chunk at no cost (`ResponseBody(data)`); one that streams makes a ``ByteStream`` and returns
/// `ResponseBody(stream)`. Konex takes it from there: into memory up to ``KonexClient/maximumResponseSize``, into a
/// file, or to a `stream()` reader, counting progress as chunks arrive.
/// ```swift
/// let (stream, continuation) = ByteStream.makeStream(bufferLimit: context.bufferLimit) { connection.cancel() }
/// connection.onBytes { continuation.yield($0) }
/// return (head, ResponseBody(stream))
/// ```
public struct ResponseBody: AsyncSequence, Sendable {
    public typealias Element = Data

    enum Storage: Sendable {
        case whole(Data)
        case stream(ByteStream)
        case file(URL)
        /// The connection a WebSocket handshake opened; its 101 has no body. Konex's own, never a transport's.
        case webSocket(OpenConnection)
    }

    /// A WebSocket's connection held by reference (an existential in the enum would widen every body by 24 bytes),
    /// with the instruments' recorders its ``WebSocket`` ends when it closes.
    final class OpenConnection: Sendable {
        let channel: any WebSocketChannel
        let recorders: Recorders?
        init(_ channel: any WebSocketChannel, recorders: Recorders? = nil) {
            self.channel = channel
            self.recorders = recorders
        }
    }

    let storage: Storage

    /// A body whose bytes are all here.
    /// - Parameter data: The whole body.
    public init(_ data: Data) { storage = .whole(data) }

    /// A body that arrives as `stream` yields it.
    /// - Parameter stream: The chunks, as the transport receives them.
    public init(_ stream: ByteStream) { storage = .stream(stream) }

    /// A body the transport wrote to `file`, a temporary file that the reader of the body then owns (Konex moves it
    /// to a download's destination, or reads and removes it). Return one when ``TransportContext/delivery`` is
    /// ``BodyDelivery/file`` and the transport writes files itself; otherwise stream the bytes.
    /// - Parameter file: The temporary file holding the whole body.
    public static func file(_ file: URL) -> ResponseBody { ResponseBody(storage: .file(file)) }

    /// No body.
    public static var empty: ResponseBody { ResponseBody(Data()) }

    init(storage: Storage) { self.storage = storage }

    /// The handshake's answer: the connection it opened, and no bytes.
    static func webSocket(_ channel: any WebSocketChannel) -> ResponseBody {
        ResponseBody(storage: .webSocket(OpenConnection(channel)))
    }

    /// The whole body when it is already in memory; `nil` for a body still arriving or in a file.
    public var data: Data? {
        if case .whole(let data) = storage { return data }
        return nil
    }

    /// The temporary file holding the body, for a body in one.
    var file: URL? {
        if case .file(let file) = storage { return file }
        return nil
    }

    /// Reads the whole body into memory.
    /// - Parameter limit: The most bytes to read: a body longer than that throws before more than `limit` bytes are
    ///   held.
    /// - Returns: The bytes.
    /// - Throws: ``ResponseBody/TooLong`` past `limit`; the transfer's own errors.
    public func collect(upTo limit: Int) async throws -> Data {
        switch storage {
        case .whole(let data):
            guard data.count <= limit else { throw TooLong(limit: limit) }
            return data
        case .webSocket:
            return Data()
        case .file(let file):
            defer { BodyFile.remove(file) }
            guard BodyFile.size(of: file) <= Int64(limit) else { throw TooLong(limit: limit) }
            return try Data(contentsOf: file)
        case .stream(let stream):
            var data = Data()
            for try await chunk in stream {
                guard chunk.count <= limit - data.count else {
                    stream.cancel()
                    throw TooLong(limit: limit)
                }
                data.append(chunk)
            }
            return data
        }
    }

    /// Stops a body still arriving (or removes its file, or closes a WebSocket's connection): for a reader that will
    /// not read it.
    public func cancel() {
        switch storage {
        case .whole: break
        case .stream(let stream): stream.cancel()
        case .file(let file): BodyFile.remove(file)
        case .webSocket(let connection): connection.channel.abort()
        }
    }

    /// Calls `action` once when the body is done: at once for a body that is whole or in a file, and for a body
    /// still arriving, when it ends (read to its end, failed, or cancelled).
    ///
    /// For an interceptor that holds something for as long as a transfer runs (a ``ConcurrencyLimit`` slot).
    /// - Parameter action: What to do then; it runs on whichever thread ends the body.
    public func whenEnded(_ action: @escaping @Sendable () -> Void) {
        guard case .stream(let stream) = storage else { return action() }
        stream.buffer.onEnd(action)
    }

    /// The error ``collect(upTo:)`` throws for a body longer than its limit.
    public struct TooLong: Error, Sendable, CustomStringConvertible {
        /// The limit the body passed.
        public let limit: Int
        public var description: String { "the response body is longer than \(limit) bytes" }
    }

    /// The body as a stream: the one it is, or one chunk (a file is read whole and removed).
    var stream: ByteStream {
        get throws {
            switch storage {
            case .whole(let data): return ByteStream(data)
            case .webSocket: return ByteStream(Data())
            case .stream(let stream): return stream
            case .file(let file):
                defer { BodyFile.remove(file) }
                return ByteStream(try Data(contentsOf: file))
            }
        }
    }

    public func makeAsyncIterator() -> Iterator {
        switch storage {
        case .whole(let data): Iterator(source: .stream(ByteStream(data).makeAsyncIterator()))
        case .webSocket: Iterator(source: .done)
        case .stream(let stream): Iterator(source: .stream(stream.makeAsyncIterator()))
        case .file(let file): Iterator(source: .file(file, opened: nil))
        }
    }

    /// Reads the chunks; a file is read a chunk at a time, its errors thrown like a transfer's.
    public struct Iterator: AsyncIteratorProtocol {
        enum Source {
            case stream(ByteStream.Iterator)
            case file(URL, opened: OpenFile?)
            case done
        }

        var source: Source

        /// The next chunk, `nil` at the end.
        public mutating func next() async throws -> Data? {
            switch source {
            case .done:
                return nil
            case .stream(var iterator):
                let chunk = try await iterator.next()
                source = chunk == nil ? .done : .stream(iterator)
                return chunk
            case .file(let file, let opened):
                let open = try opened ?? OpenFile(try FileHandle(forReadingFrom: file))
                guard let chunk = try open.handle.read(upToCount: 1 << 16), !chunk.isEmpty else {
                    source = .done  // the handle closes as the last reference goes
                    return nil
                }
                source = .file(file, opened: open)
                return chunk
            }
        }
    }

    /// A file open for reading, closed when the iterator lets it go.
    final class OpenFile {
        let handle: FileHandle
        init(_ handle: FileHandle) { self.handle = handle }
        deinit { try? handle.close() }
    }
}
