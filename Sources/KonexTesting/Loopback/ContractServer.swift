import Foundation

/// A loopback HTTP/1.1 server for the contract's faults that httpbin cannot produce: large generated bodies, an
/// upload counter, a peer that closes early, stalls or resets, informational responses, a redirect with a body.
///
/// One thread per connection and `Connection: close` on every answer: it serves a contract run, not traffic.
/// Routes (`N` is a byte count):
/// - `GET /bytes/N`: `N` bytes of ``pattern(count:)`` with `Content-Length`.
/// - `POST /upload`: reads the body and answers `N matches` when it is `N` bytes of ``pattern(count:)``, else the
///   offset where it differs.
/// - `GET /close-early`: promises 1,000 bytes, sends 100, closes.
/// - `GET /stall`: promises 1,000 bytes, sends 10, then waits for the client to go away (at most 30 s).
/// - `GET /reset`: promises 1,000 bytes, sends 100, then resets the connection (RST).
/// - `GET /informational`: `100 Continue` and `103 Early Hints` before a `200` whose body is `final`.
/// - `GET /moved`: `302` to `/elsewhere` with the body `moved here`.
/// - `GET /status-999`: status 999, which no registry names, with the body `odd`.
/// - `GET /no-reason`: a status line without a reason phrase (`HTTP/1.1 200`), body `ok`.
/// - `GET /not-http`: a line that is not HTTP at all, then close.
/// - `GET /no-content-with-length`, `GET /not-modified-with-length`: 204 and 304 that announce `Content-Length: 5`
///   and send nothing, then keep the connection open for the next request (a client that waits for the 5 bytes hangs).
/// - `HEAD /head-with-length`: `Content-Length: 1000` and no body, then the connection stays open for the next request.
/// - `GET /no-length`: no `Content-Length`, not chunked: the body (`until the end`) ends when the server closes.
/// - `GET /empty-chunked`: a chunked body of no chunks.
final class ContractServer: @unchecked Sendable {  // immutable after init; the listener is closed once, in deinit
    let port: UInt16
    private let listener: Int32

    /// The server's base URL, `http://127.0.0.1:port`.
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    init() throws {
        (listener, port) = try LoopbackSocket.listen { Self.serve($0) }
    }

    deinit { LoopbackSocket.stop(listener) }

    /// The bytes `/bytes/N` sends and `/upload` expects: `i % 251` at offset `i`, so a lost, repeated or reordered
    /// block shows.
    static func pattern(count: Int) -> Data {
        var data = Data(capacity: count)
        while data.count < count { data.append(block.prefix(count - data.count)) }
        return data
    }

    /// 251 × 256 bytes of the pattern: it repeats whole in every block, so one block serves any length and any
    /// offset's next 64,000 bytes are a slice of it.
    private static let block = Data((0..<(251 * 256)).map { UInt8(truncatingIfNeeded: $0 % 251) })

    /// Whether `bytes` are the pattern's bytes at `offset` (at most 64,000 of them).
    private static func matchesPattern(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        let start = offset % 251
        return block.withUnsafeBytes { expected in
            memcmp(expected.baseAddress! + start, bytes.baseAddress!, bytes.count) == 0
        }
    }

    // MARK: - One connection

    /// Keeps a connection whose answer had no body open for the client's next request (a sound client reuses it), for
    /// at most 10 s; a client that wrongly waits for the announced bytes waits there until it gives up.
    /// The paths that answer with a `Content-Length` that is not one, each with its field's value.
    static let invalidLengths = [
        "/length-trailing-comma": "30,", "/length-with-suffix": "30s", "/length-in-hex": "0x20",
        "/length-empty-element": "30, , 30", "/length-signed": "+30",
    ]

    private static func serveNextRequest(on connection: Int32) {
        if LoopbackSocket.waitForNextRequest(connection, atMost: 10) { serve(connection) }
    }

    private static func serve(_ connection: Int32) {
        guard let (head, leftover) = LoopbackSocket.readHead(connection),
            let (method, path, fields) = LoopbackSocket.parse(head)
        else { return }
        let promised = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n"
        func write(_ text: String) -> Bool { LoopbackSocket.write(connection, text) }
        switch path {
        case _ where path.hasPrefix("/bytes/"):
            let count = min(Int(path.dropFirst("/bytes/".count)) ?? 0, 1 << 30)
            guard write("HTTP/1.1 200 OK\r\nContent-Length: \(count)\r\nConnection: close\r\n\r\n") else { return }
            var remaining = count
            while remaining > 0 {
                let size = min(remaining, block.count)
                guard LoopbackSocket.write(connection, block.prefix(size)) else { return }
                remaining -= size
            }
        case "/upload":
            let length = LoopbackSocket.contentLength(fields) ?? 0
            var received = 0
            var mismatch: Int?
            func take(_ bytes: UnsafeRawBufferPointer) {
                if mismatch == nil, !matchesPattern(bytes, at: received) { mismatch = received }
                received += bytes.count
            }
            let early = leftover.prefix(length)
            for start in stride(from: 0, to: early.count, by: 64_000) {
                Data(early.dropFirst(start).prefix(64_000)).withUnsafeBytes { take($0) }
            }
            var buffer = [UInt8](repeating: 0, count: 64_000)
            while received < length {
                let count = recv(connection, &buffer, min(buffer.count, length - received), 0)
                if count <= 0 { return }
                buffer.withUnsafeBytes { take(UnsafeRawBufferPointer(rebasing: $0.prefix(count))) }
            }
            let answer = mismatch.map { "\(received) differs from byte \($0)" } ?? "\(received) matches"
            _ = write(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(answer.utf8.count)\r\n"
                    + "Connection: close\r\n\r\n\(answer)")
        case "/close-early":
            _ = write(promised + String(repeating: "x", count: 100))
        case "/stall":
            guard write(promised + String(repeating: "x", count: 10)) else { return }
            LoopbackSocket.waitForPeerToClose(connection, atMost: 30)
        case "/reset":
            guard write(promised + String(repeating: "x", count: 100)) else { return }
            LoopbackSocket.resetOnClose(connection)
        case "/informational":
            _ = write(
                "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
                    + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nfinal")
        case "/moved":
            _ = write(
                "HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n"
                    + "Connection: close\r\n\r\nmoved here")
        case "/status-999":
            _ = write("HTTP/1.1 999 Odd\r\nContent-Length: 3\r\nConnection: close\r\n\r\nodd")
        case "/no-reason":
            _ = write("HTTP/1.1 200\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        case "/not-http":
            _ = write("SSH-2.0-OpenSSH_9.6\r\n")
        case "/no-content-with-length", "/not-modified-with-length":
            let status = path == "/no-content-with-length" ? "204 No Content" : "304 Not Modified"
            guard write("HTTP/1.1 \(status)\r\nContent-Length: 5\r\n\r\n") else { return }
            serveNextRequest(on: connection)
        case "/head-with-length" where method == "HEAD":
            guard write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nContent-Type: text/plain\r\n\r\n") else { return }
            serveNextRequest(on: connection)
        case "/no-length":
            _ = write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nuntil the end")
        case "/lowercase-version":
            _ = write("Http/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        case "/conflicting-length":
            _ = write("HTTP/1.1 200 OK\r\nContent-Length: 10, 4\r\nConnection: close\r\n\r\n0123456789")
        case _ where invalidLengths[path] != nil:
            // A Content-Length that is not 1*DIGIT (or a list with an empty element), with more bytes than its
            // leading digits say, so a client that reads those digits returns part of the body as if it were whole.
            let field = invalidLengths[path]!
            _ = write(
                "HTTP/1.1 200 OK\r\nContent-Length: \(field)\r\nConnection: close\r\n\r\n"
                    + String(repeating: "0123456789", count: 4))
        case "/trailers":
            _ = write(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Checksum\r\nConnection: close\r\n\r\n"
                    + "5\r\nhello\r\n0\r\nX-Checksum: 5d41402a\r\n\r\n")
        case "/echo-chunks":
            // The head at once, then each chunk of the request's chunked body written back as it arrives: a client
            // that waits for the echo of one chunk before it sends the next sees them interleave. A body that is not
            // chunked is refused at once (a transport that sent none would otherwise wait for its timeout).
            let chunked = fields.contains {
                $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased().contains("chunked")
            }
            guard chunked else {
                _ = write("HTTP/1.1 400 Bad Request\r\nContent-Length: 11\r\nConnection: close\r\n\r\nnot chunked")
                return
            }
            guard
                write(
                    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/octet-stream\r\n"
                        + "Connection: close\r\n\r\n")
            else { return }
            var reader = ChunkedReader(connection: connection, buffered: leftover)
            while let chunk = reader.next(), !chunk.isEmpty {
                guard write(String(chunk.count, radix: 16) + "\r\n"), LoopbackSocket.write(connection, chunk),
                    write("\r\n")
                else { return }
            }
            _ = write("0\r\n\r\n")
        case "/empty-chunked":
            _ = write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n")
        default:
            _ = write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        }
    }
}

/// Reads a chunked request body (RFC 9112 §7.1) off a socket, a chunk at a time, as it arrives.
private struct ChunkedReader {
    let connection: Int32
    var buffered: Data

    /// The next chunk's bytes; empty at the last chunk, `nil` when the connection ended or the framing is wrong.
    mutating func next() -> Data? {
        guard let sizeLine = line(), let size = Int(sizeLine.split(separator: ";")[0], radix: 16), size >= 0,
            size <= 1 << 24
        else { return nil }
        guard fill(size + 2) else { return nil }
        let chunk = buffered.prefix(size)
        buffered = Data(buffered.dropFirst(size + 2))
        return Data(chunk)
    }

    /// The next line, without its CRLF.
    private mutating func line() -> String? {
        while true {
            if let end = buffered.firstRange(of: Data("\r\n".utf8)) {
                let text = String(decoding: buffered[..<end.lowerBound], as: UTF8.self)
                buffered = Data(buffered[end.upperBound...])
                return text
            }
            guard buffered.count < 4_096, receive() else { return nil }
        }
    }

    /// Reads until `count` bytes are buffered.
    private mutating func fill(_ count: Int) -> Bool {
        while buffered.count < count { guard receive() else { return false } }
        return true
    }

    private mutating func receive() -> Bool {
        var bytes = [UInt8](repeating: 0, count: 65_536)
        let count = recv(connection, &bytes, bytes.count, 0)
        guard count > 0 else { return false }
        buffered.append(contentsOf: bytes[..<count])
        return true
    }
}
