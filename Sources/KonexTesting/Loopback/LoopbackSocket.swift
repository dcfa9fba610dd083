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

/// The socket work KonexTesting's loopback servers share: a listener on 127.0.0.1 with a thread per connection,
/// reading a request head, writing bytes. Servers for tests, not for traffic.
enum LoopbackSocket {
    /// Listens on 127.0.0.1 (a port the system picks) and hands each connection to `serve` on a thread of its own,
    /// which closes it afterwards. Returns the listener (shut it down and close it to stop) and the port.
    static func listen(_ serve: @escaping @Sendable (Int32) -> Void) throws -> (listener: Int32, port: UInt16) {
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
        guard bound == 0, Foundation.listen(listener, 512) == 0 else {
            close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        Thread.detachNewThread {
            while true {
                let connection = accept(listener, nil, nil)
                if connection < 0 {  // the listener was shut down
                    #if !canImport(Darwin)
                        // Closed here, by the one thread that accepts on it, never before it is done: a number
                        // closed earlier could go to the next test's listener, and this loop would take its requests.
                        close(listener)
                    #endif
                    return
                }
                Thread.detachNewThread {
                    #if canImport(Darwin)
                        var noSignal: Int32 = 1
                        setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &noSignal, socklen_t(MemoryLayout<Int32>.size))
                    #endif
                    serve(connection)
                    close(connection)
                }
            }
        }
        return (listener, UInt16(bigEndian: address.sin_port))
    }

    /// Stops accepting: a thread blocked in `accept` returns (on Linux, `shutdown` wakes it and it closes the
    /// listener itself; Darwin's `accept` wakes on `close`).
    static func stop(_ listener: Int32) {
        shutdown(listener, Int32(SHUT_RDWR))
        #if canImport(Darwin)
            close(listener)
        #endif
    }

    /// The request head (up to the blank line, at most 64 KiB) and the body bytes that came with it.
    static func readHead(_ connection: Int32) -> (head: String, leftover: Data)? {
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

    /// Reads the rest of a body of `length` bytes, `leftover` being its start; `nil` when the peer closes first.
    static func readBody(_ connection: Int32, length: Int, leftover: Data) -> Data? {
        var body = Data(leftover.prefix(length))
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while body.count < length {
            let count = recv(connection, &buffer, min(buffer.count, length - body.count), 0)
            if count <= 0 { return nil }
            body.append(contentsOf: buffer.prefix(count))
        }
        return body
    }

    /// The request line's method and target, and the header fields in order.
    static func parse(_ head: String) -> (method: String, target: String, fields: [(String, String)])? {
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: true)
        guard let requestLine = lines.first else { return nil }
        let parts = requestLine.split(separator: " ")
        guard parts.count >= 2 else { return nil }
        let fields = lines.dropFirst().compactMap { line -> (String, String)? in
            let pieces = line.split(separator: ":", maxSplits: 1)
            guard pieces.count == 2 else { return nil }
            return (String(pieces[0]), pieces[1].trimmingCharacters(in: .whitespaces))
        }
        return (String(parts[0]), String(parts[1]), fields)
    }

    /// The `Content-Length` of a request head, if it has one.
    static func contentLength(_ fields: [(String, String)]) -> Int? {
        fields.first { $0.0.lowercased() == "content-length" }.flatMap { Int($0.1) }
    }

    static func write(_ connection: Int32, _ text: String) -> Bool {
        write(connection, Data(text.utf8))
    }

    /// Writes all of `data`; `false` when the peer went away.
    static func write(_ connection: Int32, _ data: Data) -> Bool {
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
    static func waitForPeerToClose(_ connection: Int32, atMost seconds: Int) {
        var descriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
        var buffer = [UInt8](repeating: 0, count: 1_024)
        let deadline = Date().addingTimeInterval(TimeInterval(seconds))
        while Date() < deadline {
            guard poll(&descriptor, 1, 100) >= 0 else { return }
            if descriptor.revents != 0, recv(connection, &buffer, buffer.count, 0) <= 0 { return }
        }
    }

    /// Waits at most `seconds` for the peer's next bytes on a connection kept open: `true` when some arrive (left
    /// unread), `false` when the peer closes or the time is up.
    static func waitForNextRequest(_ connection: Int32, atMost seconds: Int) -> Bool {
        var descriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, Int32(seconds * 1_000)) > 0 else { return false }
        var byte: UInt8 = 0
        return recv(connection, &byte, 1, Int32(MSG_PEEK)) > 0
    }

    /// Makes `close(2)` reset the connection (RST) instead of closing it in order (FIN).
    static func resetOnClose(_ connection: Int32) {
        var lingering = linger(l_onoff: 1, l_linger: 0)
        setsockopt(connection, SOL_SOCKET, SO_LINGER, &lingering, socklen_t(MemoryLayout<linger>.size))
    }
}
