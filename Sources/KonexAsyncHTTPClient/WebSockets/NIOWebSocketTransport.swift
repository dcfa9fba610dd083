#if AsyncHTTPClient
    import AsyncHTTPClient
    import Foundation
    import Konex
    import NIOCore
    import NIOHTTP1
    import NIOWebSocket
    import WebSocketKit

    /// A ``Konex/WebSocketTransport`` over SwiftNIO (vapor/websocket-kit), for Linux, where FoundationNetworking's
    /// libcurl cannot open WebSockets.
    ///
    /// Why websocket-kit: a refused handshake comes back with its status and headers, so a 401 reaches Konex's retriers
    /// (hummingbird's swift-websocket reports only that the upgrade failed), and it needs no package the
    /// AsyncHTTPClient trait does not already bring but itself. What it does not do, and Konex says so instead of
    /// pretending: it cannot pause reading (a reader more than ``Konex/WebSocketOptions/receiveBufferLimit`` messages
    /// behind fails the connection with `bufferOverflow`), it decodes text leniently (invalid UTF-8 is not closed
    /// with 1007), it sends no close reason, and it has no `permessage-deflate`.
    /// ```swift
    /// let client = KonexClient(baseURL: api, transport: AsyncHTTPClientTransport.shared,
    ///                          webSocketTransport: NIOWebSocketTransport.shared)
    /// let socket = try await client.request(Chat()).webSocket()
    /// ```
    public final class NIOWebSocketTransport: WebSocketTransport {
        /// Where connections run.
        public let eventLoopGroup: any EventLoopGroup

        /// A transport on AsyncHTTPClient's default event loop group.
        public static let shared = NIOWebSocketTransport()

        /// Creates a transport.
        /// - Parameter eventLoopGroup: Where connections run; AsyncHTTPClient's default group by default.
        public init(eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup) {
            self.eventLoopGroup = eventLoopGroup
        }

        public func connect(_ request: URLRequest, options: WebSocketOptions) async throws -> any WebSocketChannel {
            guard let given = request.url, var components = URLComponents(url: given, resolvingAgainstBaseURL: false)
            else { throw URLError(.badURL) }
            switch components.scheme?.lowercased() {
            case "http": components.scheme = "ws"
            case "https": components.scheme = "wss"
            default: break
            }
            guard let url = components.url else { throw URLError(.badURL, url: given) }
            var headers = HTTPHeaders()
            for (name, value) in request.allHTTPHeaderFields ?? [:] { headers.add(name: name, value: value) }
            var configuration = WebSocketClient.Configuration(maxFrameSize: max(1, options.maximumMessageSize))
            configuration.maxAccumulatedFrameSize = options.maximumMessageSize
            let connection = NIOWebSocketConnection(url: given, options: options)
            do {
                try await WebSocketKit.WebSocket.connect(
                    to: url, headers: headers, configuration: configuration, on: eventLoopGroup,
                    onUpgrade: { socket in connection.attach(socket) }
                ).get()
            } catch WebSocketClient.Error.invalidResponseStatus(let head) {
                var fields: [String: String] = [:]
                for header in head.headers {
                    fields[header.name] = fields[header.name].map { "\($0), \(header.value)" } ?? header.value
                }
                let response = HTTPURLResponse(
                    url: given, statusCode: Int(head.status.code), httpVersion: "HTTP/1.1", headerFields: fields)!
                throw WebSocketHandshakeRefused(response: response)
            } catch {
                throw AsyncHTTPClientTransport.transportError(error, url: given)
            }
            // websocket-kit completes the upgrade before it hands the socket over: wait for it (briefly).
            guard await connection.attached(within: .seconds(10)) else {
                throw WebSocketFailure(.connectionLost, "the upgraded connection was never handed over")
            }
            return connection
        }
    }

    /// A websocket-kit connection as a ``Konex/WebSocketChannel``: its callbacks fill a bounded inbox the reader
    /// drains.
    final class NIOWebSocketConnection: WebSocketChannel {
        private struct State {
            var socket: WebSocketKit.WebSocket?
            var closingByUs = false
            var attachWaiter: CheckedContinuation<Bool, Never>?
        }

        private let state = Lock(State())
        private let inbox: WebSocketInbox
        private let options: WebSocketOptions
        let response: HTTPURLResponse

        init(url: URL, options: WebSocketOptions) {
            self.options = options
            inbox = WebSocketInbox(limit: options.receiveBufferLimit)
            response = HTTPURLResponse(
                url: url, statusCode: 101, httpVersion: "HTTP/1.1",
                headerFields: ["Upgrade": "websocket", "Connection": "Upgrade"])!
        }

        /// Called on the event loop before any frame is read: every callback is in place for the first message.
        func attach(_ socket: WebSocketKit.WebSocket) {
            let waiter = state.withLock { state in
                state.socket = socket
                defer { state.attachWaiter = nil }
                return state.attachWaiter
            }
            defer { waiter?.resume(returning: true) }
            socket.onText { [weak self] _, text in self?.arrived(.text(text)) }
            socket.onBinary { [weak self] _, buffer in self?.arrived(.binary(Data(buffer.readableBytesView))) }
            socket.onPong { [weak self] _, _ in self?.inbox.pongArrived() }
            socket.onClose.whenComplete { [weak self] _ in
                guard let self else { return }
                let byUs = state.withLock { $0.closingByUs }
                if let code = socket.closeCode.map({ WebSocketCloseCode(UInt16(webSocketErrorCode: $0)) }) {
                    // The codes of a broken protocol (ours for a message over the limit, or the peer's) are failures.
                    switch code {
                    case .messageTooBig:
                        finish(
                            .failed(
                                WebSocketFailure(
                                    .messageTooBig,
                                    "a message was over maximumMessageSize (\(options.maximumMessageSize) bytes): closed with 1009",
                                    closeCode: code)))
                    case .protocolError, .invalidFramePayloadData:
                        finish(
                            .failed(
                                WebSocketFailure(
                                    .protocolViolation, "closed with \(code): a protocol error", closeCode: code)))
                    default:
                        finish(.closed(code, reason: nil))
                    }
                } else if byUs {
                    finish(.closed(.normalClosure, reason: nil))
                } else {
                    finish(
                        .failed(
                            WebSocketFailure(
                                .connectionLost, "the connection ended without a close frame",
                                closeCode: .abnormalClosure)))
                }
            }
        }

        /// Whether the socket was handed over within `limit`.
        func attached(within limit: Duration) async -> Bool {
            await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    await withCheckedContinuation { continuation in
                        let ready = self.state.withLock { state -> Bool in
                            if state.socket != nil { return true }
                            state.attachWaiter = continuation
                            return false
                        }
                        if ready { continuation.resume(returning: true) }
                    }
                }
                group.addTask {
                    try? await Task.sleep(for: limit)
                    let waiter = self.state.withLock { state in
                        defer { state.attachWaiter = nil }
                        return state.attachWaiter
                    }
                    waiter?.resume(returning: false)
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
        }

        /// A message arrived: to the waiting reader, else into the inbox; a full inbox fails the connection (this
        /// transport cannot pause the socket).
        private func arrived(_ message: WebSocketMessage) {
            guard inbox.deliver(message) == .full else { return }
            finish(
                .failed(
                    WebSocketFailure(
                        .bufferOverflow,
                        "the reader fell more than \(options.receiveBufferLimit) messages behind "
                            + "(receiveBufferLimit); this transport cannot pause the socket",
                        closeCode: .policyViolation)))
            _ = state.value.socket?.close(code: .policyViolation)
        }

        private func finish(_ end: WebSocketInbox.End) { inbox.finish(end) }

        func send(_ message: WebSocketMessage) async throws {
            let socket = try state.withLock { state -> WebSocketKit.WebSocket in
                guard self.inbox.end == nil, let socket = state.socket else {
                    throw WebSocketFailure(.connectionLost, "the connection is closed")
                }
                return socket
            }
            switch message {
            case .text(let text): try await socket.send(text)
            case .binary(let data): try await socket.send([UInt8](data))
            }
        }

        func receive() async throws -> WebSocketMessage? { try await inbox.receive() }

        func ping() async throws {
            guard let socket = state.value.socket else {
                throw WebSocketFailure(.connectionLost, "the connection closed")
            }
            try await inbox.awaitPong { socket.sendPing() }
        }

        func close(code: WebSocketCloseCode, reason: String) async {
            let socket = state.withLock { state in
                state.closingByUs = true
                return state.socket
            }
            try? await socket?.close(code: WebSocketErrorCode(codeNumber: Int(code.rawValue)))
        }

        func abort() {
            let socket = state.withLock { state in
                state.closingByUs = true
                return state.socket
            }
            finish(
                .failed(WebSocketFailure(.connectionLost, "the connection was dropped", closeCode: .abnormalClosure)))
            _ = socket?.close(code: .unknown(1006))
        }

        var closeCode: WebSocketCloseCode? { inbox.closeCode }

        var closeReason: String? { nil }  // websocket-kit does not read the reason of a close frame
    }
#endif
