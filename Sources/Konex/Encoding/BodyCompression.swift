import Foundation

/// How ``DataRequest/compressingBody(_:minimumBytes:)`` compresses a request body: the coding named in
/// `Content-Encoding`.
public struct BodyCompression: Sendable, Hashable, CustomStringConvertible {
    /// The `Content-Encoding` value.
    public let name: String
    let format: Zlib.Format

    /// gzip (RFC 1952), which every server that accepts compressed bodies reads.
    public static let gzip = BodyCompression(name: "gzip", format: .gzip)
    /// HTTP's `deflate`: the zlib format (RFC 1950).
    public static let deflate = BodyCompression(name: "deflate", format: .zlib)

    public var description: String { name }

    /// A request's compression and the smallest body it compresses, boxed.
    final class Setting: Sendable {
        let compression: BodyCompression
        let minimumBytes: Int
        init(_ compression: BodyCompression, minimumBytes: Int) {
            self.compression = compression
            self.minimumBytes = minimumBytes
        }
    }

    /// A first attempt's compressed body and its coding, sent again by a retry (boxed for the same reason).
    final class Sent: Sendable {
        let body: TransportRequest.Body
        let coding: String
        init(_ body: TransportRequest.Body, coding: String) {
            self.body = body
            self.coding = coding
        }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

extension DataRequest {
    /// Compresses the request body, for large uploads to a server that reads `Content-Encoding`.
    ///
    /// The body is compressed in chunks of 64 KiB as the request is built, into memory when it is up to 1 MiB and
    /// into a temporary file otherwise (readable by its owner alone, removed when the call ends), so a large body
    /// costs a few chunks of memory beyond itself; a cancelled call stops between chunks. The body goes with its
    /// compressed `Content-Length` on every transport, never chunked, so servers that need a length and signed upload
    /// URLs take it. An adapter that signs the payload reads it with `request.body?.collect(upTo:)` (for a body in a
    /// file, `httpBody` is `nil`). Each attempt builds the same bytes, and a 307 or 308 redirect resends them. A body
    /// that already has a `Content-Encoding`, or is shorter than `minimumBytes`, is sent as it is. Compression uses the
    /// system's zlib; where none can be loaded the request fails with stage ``KonexError/Stage/invalidRequest`` before
    /// anything is sent.
    /// ```swift
    /// let saved = try await client.request(UploadLog(entries: entries)).compressingBody(.gzip).validate().response()
    /// ```
    /// - Parameters:
    ///   - compression: ``BodyCompression/gzip`` by default, or ``BodyCompression/deflate``.
    ///   - minimumBytes: Bodies shorter than this go uncompressed (a known size only); 1 KiB by default.
    public consuming func compressingBody(_ compression: BodyCompression = .gzip, minimumBytes: Int = 1_024)
        -> DataRequest
    {
        var copy = self
        copy.bodyCompression = BodyCompression.Setting(compression, minimumBytes: minimumBytes)
        return copy
    }

    /// `request` with its body compressed as ``compressingBody(_:minimumBytes:)`` asked.
    static func compressed(_ request: TransportRequest, as compression: BodyCompression, minimumBytes: Int) throws
        -> TransportRequest
    {
        guard let body = request.body, request.value(forHTTPHeaderField: "Content-Encoding") == nil else {
            return request
        }
        let size: Int? =
            switch body.storage {
            case .data(let data): data.count
            case .file(let file): Int(exactly: BodyFile.size(of: file))
            case .stream: nil
            case .chunks:
                throw KonexError.invalidRequest(
                    "compressingBody(.\(compression)) cannot compress a body of chunks: it is sent as it comes",
                    method: request.method, url: request.url)
            }
        if let size, size < max(minimumBytes, 1) { return request }
        guard let zlib = Zlib.shared else {
            throw KonexError.invalidRequest(
                "compressingBody(.\(compression)) needs the system's zlib, which could not be loaded",
                method: request.method, url: request.url)
        }
        var compressed = request
        do {
            compressed.body = try BodyCompressing.compress(body, size: size, format: compression.format, with: zlib)
        } catch is CancellationError {
            throw KonexError(
                stage: .cancelled, message: "cancelled while compressing the request body", method: request.method,
                url: request.url, request: request)
        } catch {
            throw KonexError(
                stage: .fileSystem, message: "cannot compress the request body: \(error)", method: request.method,
                url: request.url, request: request, underlyingError: error)
        }
        compressed.setValue(compression.name, forHTTPHeaderField: "Content-Encoding")
        // The compressed size is known, in memory or in its file: said, so the body goes with a length (a server that
        // needs one, a signed upload URL) rather than chunked.
        compressed.setValue(compressed.body?.byteCount.map(String.init), forHTTPHeaderField: "Content-Length")
        return compressed
    }
}

extension DataRequest {
    /// The compressed body of a request's first attempt and its coding, to send again on a retry; `nil` when the body
    /// was not compressed (none, too short, or already encoded).
    static func compressedBody(of request: TransportRequest) -> BodyCompression.Sent? {
        guard let body = request.body, let coding = request.value(forHTTPHeaderField: "Content-Encoding"),
            body.keepsAlive is TemporaryBodyFile || body.keepsAlive is CompressedInMemory
        else { return nil }
        return BodyCompression.Sent(body, coding: coding)
    }

    /// Puts the first attempt's compressed body in a retry's rebuilt request.
    static func send(_ compressed: BodyCompression.Sent, in request: inout TransportRequest) {
        request.body = compressed.body
        request.setValue(compressed.coding, forHTTPHeaderField: "Content-Encoding")
        request.setValue(compressed.body.byteCount.map(String.init), forHTTPHeaderField: "Content-Length")
    }
}

/// Compressing a request body a chunk at a time.
enum BodyCompressing {
    /// Bodies up to this size are compressed into memory; larger ones (and streams) into a temporary file.
    static let inMemoryLimit = 1 << 20
    static let chunk = 1 << 16

    static func compress(_ body: TransportRequest.Body, size: Int?, format: Zlib.Format, with zlib: Zlib) throws
        -> TransportRequest.Body
    {
        let compressor = try Zlib.Compressor(zlib, format: format)
        if let size, size <= inMemoryLimit, case .data(let data) = body.storage {
            var output = Data()
            try data.withUnsafeBytes { input in
                try compressor.compress(input, finish: true) { output.append(contentsOf: $0) }
            }
            return TransportRequest.Body(storage: .data(output), keepsAlive: CompressedInMemory.mark)
        }
        let file = TemporaryBodyFile()
        try BodyFile.createOwnerOnly(file.url)
        let handle = try FileHandle(forWritingTo: file.url)
        defer { try? handle.close() }
        let write: (UnsafeRawBufferPointer) throws -> Void = { try handle.write(contentsOf: Data($0)) }
        try forEachChunk(of: body) { chunk, last in
            try chunk.withUnsafeBytes { try compressor.compress($0, finish: last, output: write) }
        }
        return TransportRequest.Body(storage: .file(file.url), keepsAlive: file)
    }

    /// Hands the body to `body` in chunks, the last one marked (empty when the source ended on a chunk boundary).
    private static func forEachChunk(of source: TransportRequest.Body, _ body: (Data, Bool) throws -> Void) throws {
        switch source.storage {
        case .data(let data):
            var start = data.startIndex
            repeat {
                try Task.checkCancellation()
                let end = min(start + chunk, data.endIndex)
                try body(data[start..<end], end == data.endIndex)
                start = end
            } while start < data.endIndex
        case .file(let file):
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            try forEachChunk(reading: { try handle.read(upToCount: chunk) ?? Data() }, body)
        case .stream(let box):
            let stream = box.stream
            stream.open()
            defer { stream.close() }
            var buffer = [UInt8](repeating: 0, count: chunk)
            try forEachChunk(
                reading: {
                    let read = stream.read(&buffer, maxLength: buffer.count)
                    if read < 0 { throw stream.streamError ?? CocoaError(.fileReadUnknown) }
                    return Data(buffer[..<read])
                }, body)
        case .chunks:
            throw TransportRequest.Body.SentAsItComes()  // refused before: `compressed(_:as:minimumBytes:)`
        }
    }

    /// Reads ahead one chunk, so the last is known to be last; a cancelled call stops between chunks.
    private static func forEachChunk(reading read: () throws -> Data, _ body: (Data, Bool) throws -> Void) throws {
        var current = try read()
        while true {
            try Task.checkCancellation()
            let next = current.isEmpty ? Data() : try read()
            try body(current, next.isEmpty)
            if next.isEmpty { return }
            current = next
        }
    }
}

/// Marks a body compressed into memory by ``DataRequest/compressingBody(_:minimumBytes:)``.
final class CompressedInMemory: Sendable {
    static let mark = CompressedInMemory()
}

/// A temporary file removed when the call that made it ends (`DataRequest.removingCompressedFile`), or at the latest
/// when the last request body that holds it goes.
final class TemporaryBodyFile: Sendable {
    let url = BodyFile.temporary()
    /// Removes the file now: the call ended, though a `Response` or a `KonexError` may hold its request for long.
    func remove() { BodyFile.remove(url) }
    deinit { BodyFile.remove(url) }
}
