import Foundation
import Konex

/// The WebSocket side of a ``MockTransport``: endpoints in declaration order, and the sessions they opened.
struct MockWebSockets: Sendable {
    struct Endpoint: Sendable {
        let matcher: RequestMatcher
        let handshake: WebSocketHandshake
        let script: [WebSocketStep]
        var remaining: Int?
    }

    var endpoints: [Endpoint] = []
    var sessions: [MockWebSocketSession] = []
}

extension MockTransport: WebSocketTransport {
    /// Declares a WebSocket endpoint: requests that match get `handshake`, and an accepted connection runs `script` on
    /// the mock's clock (each connection from its start).
    /// - Parameters:
    ///   - matcher: Which handshakes it answers (method GET; headers such as `Authorization` may be matched).
    ///   - handshake: `.accept()` (101) by default, or `.refuse(status:)`.
    ///   - script: What the server does once the connection is open.
    ///   - times: How many connections it answers; `.always` by default.
    public func stubWebSocket(
        _ matcher: RequestMatcher, handshake: WebSocketHandshake = .accept(), script: [WebSocketStep] = [],
        times: Times = .always
    ) {
        webSockets.withLock {
            $0.endpoints.append(.init(matcher: matcher, handshake: handshake, script: script, remaining: times.limit))
        }
    }

    /// Every connection accepted so far, in order.
    public var webSocketSessions: [MockWebSocketSession] { webSockets.value.sessions }

    public func connect(_ head: RequestHead, options: WebSocketOptions) async throws -> any WebSocketChannel {
        let request = TransportRequest(head: head)
        let endpoint = webSockets.withLock { sockets -> MockWebSockets.Endpoint? in
            guard
                let index = sockets.endpoints.firstIndex(where: {
                    $0.remaining != 0 && $0.matcher.matches(request)
                })
            else { return nil }
            if let remaining = sockets.endpoints[index].remaining { sockets.endpoints[index].remaining = remaining - 1 }
            return sockets.endpoints[index]
        }
        guard let endpoint else {
            throw UnmatchedRequestError(request: request, nearest: [])
        }
        let url = request.url
        switch endpoint.handshake {
        case .refuse(let status, let body):
            let response = ResponseHead(statusCode: status, url: url)
            throw WebSocketHandshakeRefused(response: response, data: Data(body.utf8))
        case .accept(let headers):
            var fields = ["Upgrade": "websocket", "Connection": "Upgrade"]
            fields.merge(headers) { _, given in given }
            let response = ResponseHead(statusCode: 101, headerFields: HTTPHeaders(fields), url: url)
            let session = MockWebSocketSession(request: request)
            webSockets.withLock { $0.sessions.append(session) }
            let channel = MockWebSocketChannel(response: response, session: session, options: options)
            channel.run(endpoint.script, on: clock)
            return channel
        }
    }
}
