import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSessionTransport: WebSocketTransport {
    /// Opens a connection with `URLSessionWebSocketTask`. On Linux that needs a libcurl built with WebSocket support;
    /// without it the connection fails at once with ``WebSocketFailure/Kind/unsupported`` saying so (use
    /// `NIOWebSocketTransport` from KonexAsyncHTTPClient there).
    public func connect(_ head: RequestHead, options: WebSocketOptions) async throws -> any WebSocketChannel {
        if options.tls != appliedTLS { return try await applying(options.tls).connect(head, options: options) }
        #if canImport(FoundationNetworking) && os(Linux) && (arch(x86_64) || arch(arm64))
            if let libcurl = LibcurlSupport.info, !libcurl.protocols.contains("ws") {
                throw WebSocketFailure(
                    .unsupported,
                    "URLSession here cannot open WebSockets: FoundationNetworking's libcurl \(libcurl.version) was built "
                        + "without ws/wss (swift-corelibs-foundation #5431); use NIOWebSocketTransport from "
                        + "KonexAsyncHTTPClient (trait AsyncHTTPClient)")
            }
        #endif
        var request = head.urlRequest
        if let url = request.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            switch components.scheme?.lowercased() {
            case "http": components.scheme = "ws"
            case "https": components.scheme = "wss"
            default: break
            }
            request.url = components.url ?? url
        }
        let task = session.webSocketTask(with: request)
        task.maximumMessageSize = options.maximumMessageSize
        task.resume()
        // URLSession reports the opening only to a delegate; a ping is answered only once the connection is open, and
        // fails with the refused handshake's response in `task.response`.
        let channel = URLSessionWebSocketChannel(task: task)
        do {
            try await channel.ping()
        } catch {
            if let response = task.response as? HTTPURLResponse, response.statusCode != 101 {
                throw WebSocketHandshakeRefused(response: response)
            }
            if let urlError = error as? URLError, urlError.code == .unsupportedURL || urlError.code == .badURL {
                throw WebSocketFailure(
                    .unsupported,
                    "URLSession here cannot open WebSockets (\(urlError.code.name)): FoundationNetworking's libcurl "
                        + "was built without ws/wss (swift-corelibs-foundation #5431); use NIOWebSocketTransport")
            }
            if let urlError = error as? URLError, let request = task.originalRequest {
                throw explained(urlError, for: request)
            }
            throw error
        }
        return channel
    }
}

/// A `URLSessionWebSocketTask` as a ``WebSocketChannel``; messages are read one `receive` at a time.
final class URLSessionWebSocketChannel: WebSocketChannel {
    let task: URLSessionWebSocketTask

    init(task: URLSessionWebSocketTask) { self.task = task }

    var response: ResponseHead {
        guard let response = task.response as? HTTPURLResponse else {
            return ResponseHead(statusCode: 101, url: task.originalRequest?.url ?? URL(fileURLWithPath: "/"))
        }
        return ResponseHead(response)
    }

    func send(_ message: WebSocketMessage) async throws {
        let outgoing: URLSessionWebSocketTask.Message =
            switch message {
            case .text(let text): .string(text)
            case .binary(let data): .data(data)
            }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            task.send(outgoing) { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    func receive() async throws -> WebSocketMessage? {
        do {
            let message = try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<URLSessionWebSocketTask.Message, any Error>) in
                task.receive { continuation.resume(with: $0) }
            }
            switch message {
            case .string(let text): return .text(text)
            case .data(let data): return .binary(data)
            @unknown default: return nil
            }
        } catch {
            if task.closeCode != .invalid { return nil }  // closed with a close frame: a clean end
            throw WebSocketFailure(.connectionLost, "the connection broke: \(error)", closeCode: .abnormalClosure)
        }
    }

    func ping() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            task.sendPing { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    func close(code: WebSocketCloseCode, reason: String) async {
        task.cancel(
            with: URLSessionWebSocketTask.CloseCode(rawValue: Int(code.rawValue)) ?? .normalClosure,
            reason: Data(reason.utf8))
    }

    func abort() { task.cancel() }

    var closeCode: WebSocketCloseCode? {
        task.closeCode == .invalid ? nil : WebSocketCloseCode(UInt16(clamping: task.closeCode.rawValue))
    }

    var closeReason: String? { task.closeReason.map { String(decoding: $0, as: UTF8.self) } }
}
