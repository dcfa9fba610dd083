import Foundation
import Konex

#if canImport(Glibc)
    import Glibc
    private let streamSocketType = Int32(SOCK_STREAM.rawValue)
    private let noSignalFlag = Int32(MSG_NOSIGNAL)
#elseif canImport(Darwin)
    import Darwin
    private let streamSocketType = SOCK_STREAM
    private let noSignalFlag: Int32 = 0  // Darwin has no MSG_NOSIGNAL (it would need SO_NOSIGPIPE per socket)
#endif

/// A one-trick TCP server on 127.0.0.1 for faults httpbin cannot produce: it reads the request, writes `reply`
/// (possibly nothing, possibly a truncated response, possibly one made from the request), and closes the connection.
public final class MisbehavingServer: @unchecked Sendable {  // immutable after init
    public let port: UInt16
    private let listener: Int32
    private let received = Lock<[String]>([])

    /// The request lines received so far (e.g. `GET /a%20b HTTP/1.1`), exactly as they came off the socket.
    public var requestLines: [String] { received.value }

    private let gate = DispatchSemaphore(value: 0)
    private let holds: Bool

    /// - Parameters:
    ///   - reply: What to write after reading the request.
    ///   - holdingReplies: Whether to wait for ``release()`` before replying, so a test knows a request is in flight.
    ///   - keptAliveOnce: When given, the first connection answers its first request with it (a keep-alive answer),
    ///     then reads the next request on that connection and closes without a word: a server whose keep-alive timer
    ///     fired as the client reused the connection. Later connections get `reply`.
    ///   - reuseAnswer: What the kept-alive connection writes to the request it reused before it closes (nothing by
    ///     default): bytes a response left over past its `Content-Length`, read as the start of the next answer.
    ///   - port: The port to listen on (one ``MisbehavingServer/unusedPort()`` gave: a server that comes up where a
    ///     client found nothing); 0, the default, for any free one.
    ///   - answering: When given, makes the reply from the request's bytes (the first read of at most 4 KiB), in
    ///     place of `reply`: a WebSocket handshake's answer depends on the key the client sent.
    public init(
        reply: Data, holdingReplies: Bool = false, keptAliveOnce: Data? = nil, reuseAnswer: Data = Data(),
        port: UInt16 = 0, answering: (@Sendable (Data) -> Data)? = nil
    ) throws {
        holds = holdingReplies
        let listener = socket(AF_INET, streamSocketType, 0)
        guard listener >= 0, let bound = Self.bindToLoopback(listener, port: port), listen(listener, 16) == 0 else {
            throw POSIXError(.EADDRINUSE)
        }
        self.port = bound
        self.listener = listener
        let received = self.received
        let gate = self.gate
        Thread.detachNewThread {
            var connections = 0
            while true {
                let connection = accept(listener, nil, nil)
                if connection < 0 {  // shut down by deinit
                    #if !canImport(Darwin)
                        // Closed by this thread, once it will not accept again: closed by deinit while a reply was
                        // still being written, the number went to the next test's server and this loop took its
                        // request (seen: an 8 MiB line served to the test that expected endless events).
                        close(listener)
                    #endif
                    return
                }
                @discardableResult func readRequest() -> Data {
                    var buffer = [UInt8](repeating: 0, count: 4_096)
                    let count = recv(connection, &buffer, buffer.count, 0)
                    let line = buffer.prefix(max(0, count)).prefix { $0 != 0x0D && $0 != 0x0A }
                    received.withLock { $0.append(String(decoding: line, as: UTF8.self)) }
                    return Data(buffer.prefix(max(0, count)))
                }
                func write(_ data: Data) {
                    data.withUnsafeBytes { raw in
                        var sent = 0
                        while sent < raw.count {
                            let written = send(connection, raw.baseAddress! + sent, raw.count - sent, noSignalFlag)
                            if written <= 0 { break }
                            sent += written
                        }
                    }
                }
                let request = readRequest()
                if let keptAlive = keptAliveOnce, connections == 0 {
                    write(keptAlive)
                    readRequest()  // the reused connection's request, which gets no answer (or leftover bytes)
                    if !reuseAnswer.isEmpty { write(reuseAnswer) }
                } else {
                    if holdingReplies { gate.wait() }
                    write(answering?(request) ?? reply)
                }
                connections += 1
                close(connection)
            }
        }
    }

    /// A port on 127.0.0.1 nobody listens on (bound for a moment, then closed: connecting to it is refused).
    public static func unusedPort() throws -> UInt16 {
        let probe = socket(AF_INET, streamSocketType, 0)
        guard probe >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(probe) }
        guard let port = bindToLoopback(probe, port: 0) else { throw POSIXError(.EADDRINUSE) }
        return port
    }

    /// Binds `socket` to 127.0.0.1 and `port` (0 for any free one); the port it got, or `nil` when it cannot.
    private static func bindToLoopback(_ socket: Int32, port: UInt16) -> UInt16? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        return bound ? UInt16(bigEndian: address.sin_port) : nil
    }

    /// Lets held replies go (one per request held).
    public func release(_ count: Int = 1) {
        for _ in 0..<count { gate.signal() }
    }

    deinit {
        if holds { release(16) }
        shutdown(listener, Int32(SHUT_RDWR))  // wakes the accepting thread, which closes the listener (Linux)
        #if canImport(Darwin)
            close(listener)  // Darwin's accept wakes on close instead
        #endif
    }
}
