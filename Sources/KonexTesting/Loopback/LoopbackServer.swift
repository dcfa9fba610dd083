import Foundation
import Konex

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real HTTP/1.1 server on 127.0.0.1 that answers every request through a `Transport` of KonexTesting's (a
/// ``MockTransport``, a ``FixtureTransport``): so code that opens its own sockets (an AsyncHTTPClient, a URLSession,
/// a transport of yours) runs offline against mocks and recorded fixtures.
///
/// Each connection gets a thread and one answer (`Connection: close`); the body is sent whole with its length. Stop
/// it with ``stop()``, or let it go.
/// ```swift
/// let server = try LoopbackServer(answeringWith: FixtureTransport(directory: fixtures))
/// let client = KonexClient(baseURL: server.url, transport: AsyncHTTPClientTransport.shared)
/// let posts = try await client.request("/posts").responseArray(of: Post.self)
/// ```
public final class LoopbackServer: Sendable {
    /// The server's base URL, `http://127.0.0.1:port`.
    public let url: URL
    private let listener: Int32
    private let stopped = Lock(false)

    /// Starts a server whose answers come from `transport`.
    /// - Parameter transport: What answers: it receives each request with the server's URL, method, headers and body.
    /// - Throws: A `POSIXError` when no socket can be opened on 127.0.0.1.
    public init(answeringWith transport: any Transport) throws {
        let base = Lock<URL?>(nil)
        let (listener, port) = try LoopbackSocket.listen { connection in
            guard let url = base.value else { return }
            Self.answer(connection, base: url, through: transport)
        }
        self.listener = listener
        url = URL(string: "http://127.0.0.1:\(port)")!
        base.value = url
    }

    /// Stops accepting connections; calling it again (or letting the server go after it) does nothing.
    public func stop() { _ = stopListening() }

    /// Shuts the listener down the first time only, and says whether this call did. The accepting thread closes the
    /// listener after that shutdown, and its number may then go to another socket (a connection of another server, a
    /// client's): a second shutdown, from `deinit` after `stop()`, cut that socket. A parallel test's request saw an
    /// empty reply from its own server.
    func stopListening() -> Bool {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        if first { LoopbackSocket.stop(listener) }
        return first
    }

    deinit { stop() }

    private static func answer(_ connection: Int32, base: URL, through transport: any Transport) {
        guard let (head, leftover) = LoopbackSocket.readHead(connection),
            let (method, target, fields) = LoopbackSocket.parse(head),
            let url = URL(string: base.absoluteString + target),
            let body = LoopbackSocket.readBody(
                connection, length: LoopbackSocket.contentLength(fields) ?? 0, leftover: leftover)
        else { return }
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in fields where !hopByHop.contains(name.lowercased()) {
            request.addValue(value, forHTTPHeaderField: name)
        }
        request.httpBody = body.isEmpty ? nil : body
        // The connection's thread waits for the transport's answer: one request at a time on it, as HTTP/1.1 has.
        let reply = Lock<Swift.Result<(Data, ResponseHead), any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do { reply.value = .success(try await transport.data(for: request)) } catch {
                reply.value = .failure(error)
            }
            done.signal()
        }
        done.wait()
        let (data, response): (Data, ResponseHead)
        switch reply.value {
        case .success(let answer)?:
            (data, response) = answer
        default:
            let message = Data("LoopbackServer: the transport failed: \(reply.value.map { "\($0)" } ?? "")".utf8)
            _ = LoopbackSocket.write(
                connection,
                "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nContent-Length: \(message.count)\r\n"
                    + "Connection: close\r\n\r\n")
            _ = LoopbackSocket.write(connection, message)
            return
        }
        var text = "HTTP/1.1 \(response.statusCode) \(ReasonPhrase.of(response.statusCode))\r\n"
        for (name, value) in response.headerFields {
            guard !hopByHop.contains(name.lowercased()), !framing.contains(name.lowercased()) else { continue }
            text += "\(name): \(value)\r\n"
        }
        let hasBody = method != "HEAD" && response.statusCode != 204 && response.statusCode != 304
        text += "Content-Length: \(hasBody ? data.count : 0)\r\nConnection: close\r\n\r\n"
        guard LoopbackSocket.write(connection, text), hasBody else { return }
        _ = LoopbackSocket.write(connection, data)
    }

    /// Fields about one connection, which the server sets itself.
    private static let hopByHop: Set<String> = [
        "connection", "keep-alive", "transfer-encoding", "te", "upgrade", "proxy-connection", "host",
    ]
    /// Fields about the body's framing and coding: the body is sent as the transport gave it, decoded, with its length.
    private static let framing: Set<String> = ["content-length", "content-encoding"]
}
