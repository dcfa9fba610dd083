import Foundation

#if canImport(Glibc)
    import Glibc
    private let streamSocketType = Int32(SOCK_STREAM.rawValue)
    private let noSignalFlag = Int32(MSG_NOSIGNAL)
#elseif canImport(Darwin)
    import Darwin
    private let streamSocketType = SOCK_STREAM
    private let noSignalFlag: Int32 = 0  // Darwin has no MSG_NOSIGNAL (it would need SO_NOSIGPIPE per socket)
#endif

/// Benchmark scaffolding only: a minimal HTTP/1.1 keep-alive server on 127.0.0.1 answering GETs with fixed bodies.
final class StaticServer: @unchecked Sendable {  // immutable after init; connection threads only read `routes`
    let port: UInt16
    private let listener: Int32
    private let routes: [String: Data]

    init(routes: [String: Data]) throws {
        self.routes = routes
        let listener = socket(AF_INET, streamSocketType, 0)
        guard listener >= 0 else { throw ServerError("socket() failed") }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 512) == 0 else { throw ServerError("bind/listen failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        self.listener = listener
        Thread.detachNewThread { [self] in
            while true {
                let connection = accept(listener, nil, nil)
                if connection < 0 { return }
                var one: Int32 = 1
                setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                Thread.detachNewThread { self.serve(connection) }
            }
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var pending = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let terminator: [UInt8] = [13, 10, 13, 10]
        while true {
            let count = recv(connection, &buffer, buffer.count, 0)
            if count <= 0 { return }
            pending.append(contentsOf: buffer[0..<count])
            while let end = pending.firstRange(of: terminator) {
                let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
                pending.removeSubrange(..<end.upperBound)
                let target = head.split(separator: " ", maxSplits: 2).dropFirst().first.map(String.init) ?? "/"
                let path = String(target.split(separator: "?").first ?? "/")
                if path.hasPrefix("/generated/"), let size = Int(path.dropFirst("/generated/".count)) {
                    if !sendGenerated(size, on: connection) { return }
                    continue
                }
                if path == "/sse-first" {
                    sendFirstEventThenWait(on: connection)
                    return
                }
                if path.hasPrefix("/sse-many/"), let count = Int(path.dropFirst("/sse-many/".count)) {
                    sendManyEvents(count, on: connection)
                    return
                }
                // `/slow/<ms>`: the small body after a server-side delay, like an API that takes its time.
                if path.hasPrefix("/slow/"), let milliseconds = UInt32(path.dropFirst("/slow/".count)) {
                    usleep(milliseconds * 1_000)
                }
                let body = path.hasPrefix("/slow/") ? routes["/small"] : routes[path]
                var response = Data(
                    "HTTP/1.1 \(body == nil ? "404 Not Found" : "200 OK")\r\nContent-Type: application/json\r\nContent-Length: \(body?.count ?? 0)\r\nConnection: keep-alive\r\n\r\n"
                        .utf8)
                response.append(body ?? Data())
                let sent = response.withUnsafeBytes { raw -> Bool in
                    var offset = 0
                    while offset < raw.count {
                        let written = send(
                            connection, raw.baseAddress! + offset, raw.count - offset, noSignalFlag)
                        if written <= 0 { return false }
                        offset += written
                    }
                    return true
                }
                if !sent { return }
            }
        }
    }
}

extension StaticServer {
    private static let eventStreamHead = Array(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
            .utf8)

    /// `stream_first_event`: one event at once, a second of silence, four more, then the connection closes.
    fileprivate func sendFirstEventThenWait(on connection: Int32) {
        guard write(Self.eventStreamHead[...], on: connection),
            write(Array("id: 1\ndata: first\n\n".utf8)[...], on: connection)
        else { return }
        usleep(1_000_000)
        _ = write(Array((2...5).map { "id: \($0)\ndata: event \($0)\n\n" }.joined().utf8)[...], on: connection)
    }

    /// `stream_slow_consumer`: `count` small events as fast as the socket takes them.
    fileprivate func sendManyEvents(_ count: Int, on connection: Int32) {
        guard write(Self.eventStreamHead[...], on: connection) else { return }
        var batch = [UInt8]()
        for index in 1...count {
            batch += Array("id: \(index)\ndata: {\"n\":\(index),\"text\":\"token token token\"}\n\n".utf8)
            if batch.count >= 65_536 || index == count {
                guard write(batch[...], on: connection) else { return }
                batch.removeAll(keepingCapacity: true)
            }
        }
    }

    fileprivate func write(_ bytes: ArraySlice<UInt8>, on connection: Int32) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = send(connection, raw.baseAddress! + offset, raw.count - offset, noSignalFlag)
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
    }

    /// Answers with `size` bytes made on the fly from one 64 KB block, so a huge body costs the server no memory.
    fileprivate func sendGenerated(_ size: Int, on connection: Int32) -> Bool {
        let head = Array(
            "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: \(size)\r\nConnection: keep-alive\r\n\r\n"
                .utf8)
        let block = [UInt8](repeating: 0x6B, count: 65_536)
        guard write(head[...], on: connection) else { return false }
        var remaining = size
        while remaining > 0 {
            let count = min(remaining, block.count)
            guard write(block[..<count], on: connection) else { return false }
            remaining -= count
        }
        return true
    }
}

struct ServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
