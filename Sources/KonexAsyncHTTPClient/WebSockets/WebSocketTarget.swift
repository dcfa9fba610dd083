#if AsyncHTTPClient
    import Foundation
    import Konex
    import NIOHTTP1

    /// Where a WebSocket handshake goes and what it carries, read once from the request Konex built.
    struct WebSocketTarget: Sendable {
        /// The request's URL, as errors and responses name it.
        let url: URL
        let host: String
        let port: Int
        /// `wss` (or `https`).
        let secure: Bool
        /// The request head: origin-form target, the request's headers and Host. NIO's upgrader adds `Upgrade`,
        /// `Connection`, `Sec-WebSocket-Key` and `Sec-WebSocket-Version`.
        let head: HTTPRequestHead

        /// Headers the handshake writes itself; a value in the request would be a second, conflicting one.
        private static let ownHeaders: Set<String> = [
            "host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions",
            "content-length", "transfer-encoding",
        ]

        /// - Parameters:
        ///   - request: The handshake request as Konex built and adapted it.
        ///   - compression: The `permessage-deflate` offer, if any.
        init(_ request: URLRequest, compression: WebSocketCompressionOffer?) throws {
            guard let url = request.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
                let host = components.host, !host.isEmpty
            else { throw TransportFailure(.badURL, url: request.url) }
            let scheme = components.scheme?.lowercased()
            switch scheme {
            case "ws", "http": secure = false
            case "wss", "https": secure = true
            default: throw TransportFailure(.badURL, url: url)
            }
            self.url = url
            // URLComponents keeps an IPv6 literal's brackets in `host`; sockets want it bare.
            self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
            let defaultPort = secure ? 443 : 80
            port = components.port ?? defaultPort
            var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
            if let query = components.percentEncodedQuery { target += "?" + query }
            var headers = HTTPHeaders()
            // An IPv6 literal keeps its brackets in Host (RFC 9110 §7.2), whichever way URLComponents spelled it.
            let named = self.host.contains(":") ? "[\(self.host)]" : self.host
            headers.add(name: "Host", value: port == defaultPort ? named : "\(named):\(port)")
            for (name, value) in request.allHTTPHeaderFields ?? [:] where !Self.ownHeaders.contains(name.lowercased()) {
                headers.add(name: name, value: value)
            }
            if let compression { headers.add(name: "Sec-WebSocket-Extensions", value: compression.headerValue) }
            head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers)
        }

        /// The server's answer as Konex reads any response head (every field kept, repeats and case as sent).
        func response(to head: HTTPResponseHead) -> ResponseHead {
            AsyncHTTPClientTransport.head(status: head.status, headers: head.headers, url: url)
        }
    }
#endif
