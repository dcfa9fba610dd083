import Foundation

#if canImport(Glibc)
    import Glibc
    private let streamSocketType = Int32(SOCK_STREAM.rawValue)
    private let sendFlags = Int32(MSG_NOSIGNAL)
#elseif canImport(Musl)
    import Musl
    private let streamSocketType = Int32(SOCK_STREAM)
    private let sendFlags = Int32(MSG_NOSIGNAL)
#elseif canImport(Darwin)
    import Darwin
    private let streamSocketType = SOCK_STREAM
    private let sendFlags: Int32 = 0  // SO_NOSIGPIPE is set on each connection instead
#endif

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
final class ContractServer: @unchecked Sendable {  // immutable after init; the listener is closed once, in deinit
    let port: UInt16
    private let listener: Int32

    /// The server's base URL, `http://127.0.0.1:port`.
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    init() throws {
        let listener = socket(AF_INET, streamSocketType, 0)
        guard listener >= 0 else { throw POSIXError(.EMFILE) }
        var reuse: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 512) == 0 else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        self.listener = listener
        Thread.detachNewThread {
            while true {
                let connection = accept(listener, nil, nil)
                if connection < 0 { return }  // the listener was shut down
                Thread.detachNewThread { Self.serve(connection) }
            }
        }
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

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

    private static func serve(_ connection: Int32) {
        defer { close(connection) }
        #if canImport(Darwin)
            var noSignal: Int32 = 1
            setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &noSignal, socklen_t(MemoryLayout<Int32>.size))
        #endif
        guard let (head, leftover) = readHead(connection) else { return }
        let requestLine = head.prefix { $0 != "\r" && $0 != "\n" }
        let parts = requestLine.split(separator: " ")
        guard parts.count >= 2 else { return }
        let path = String(parts[1])
        let promised = "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n"
        switch path {
        case _ where path.hasPrefix("/bytes/"):
            let count = min(Int(path.dropFirst("/bytes/".count)) ?? 0, 1 << 30)
            guard write(connection, "HTTP/1.1 200 OK\r\nContent-Length: \(count)\r\nConnection: close\r\n\r\n")
            else { return }
            var remaining = count
            while remaining > 0 {
                let size = min(remaining, block.count)
                guard write(connection, block.prefix(size)) else { return }
                remaining -= size
            }
        case "/upload":
            let length = contentLength(head) ?? 0
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
                connection,
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(answer.utf8.count)\r\n"
                    + "Connection: close\r\n\r\n\(answer)")
        case "/close-early":
            _ = write(connection, promised + String(repeating: "x", count: 100))
        case "/stall":
            guard write(connection, promised + String(repeating: "x", count: 10)) else { return }
            waitForPeerToClose(connection, atMost: 30)
        case "/reset":
            guard write(connection, promised + String(repeating: "x", count: 100)) else { return }
            // A zero linger time makes close(2) send RST instead of FIN.
            var lingering = linger(l_onoff: 1, l_linger: 0)
            setsockopt(connection, SOL_SOCKET, SO_LINGER, &lingering, socklen_t(MemoryLayout<linger>.size))
        case "/informational":
            _ = write(
                connection,
                "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
                    + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nfinal")
        case "/moved":
            _ = write(
                connection,
                "HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n"
                    + "Connection: close\r\n\r\nmoved here")
        default:
            _ = write(connection, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        }
    }

    /// The request head (up to the blank line, at most 64 KiB) and the body bytes that came with it.
    private static func readHead(_ connection: Int32) -> (String, Data)? {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let separator = Data("\r\n\r\n".utf8)
        while received.count < 1 << 16 {
            let count = recv(connection, &buffer, buffer.count, 0)
            if count <= 0 { return nil }
            received.append(contentsOf: buffer.prefix(count))
            if let end = received.range(of: separator) {
                return (String(decoding: received[..<end.upperBound], as: UTF8.self), Data(received[end.upperBound...]))
            }
        }
        return nil
    }

    private static func contentLength(_ head: String) -> Int? {
        for line in head.split(separator: "\r\n") {
            let pieces = line.split(separator: ":", maxSplits: 1)
            if pieces.count == 2, pieces[0].lowercased() == "content-length" {
                return Int(pieces[1].trimmingCharacters(in: .whitespaces))
            }
        }
        return nil
    }

    private static func write(_ connection: Int32, _ text: String) -> Bool {
        write(connection, Data(text.utf8))
    }

    private static func write(_ connection: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let written = send(connection, raw.baseAddress! + sent, raw.count - sent, sendFlags)
                if written <= 0 { return false }
                sent += written
            }
            return true
        }
    }

    /// Blocks until the client closes its side (a read returns 0 or fails), or `seconds` pass.
    private static func waitForPeerToClose(_ connection: Int32, atMost seconds: Int) {
        var descriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
        var buffer = [UInt8](repeating: 0, count: 1_024)
        let deadline = Date().addingTimeInterval(TimeInterval(seconds))
        while Date() < deadline {
            guard poll(&descriptor, 1, 100) >= 0 else { return }
            if descriptor.revents != 0, recv(connection, &buffer, buffer.count, 0) <= 0 { return }
        }
    }
}
