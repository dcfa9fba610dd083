#if AsyncHTTPClient
    import AsyncHTTPClient
    import Foundation
    import Konex
    import NIOCore
    import NIOHTTP1
    import NIOPosix
    import NIOSSL
    import NIOWebSocket

    /// A ``Konex/WebSocketTransport`` over SwiftNIO, for Linux, where FoundationNetworking's libcurl cannot open
    /// WebSockets.
    ///
    /// Konex speaks RFC 6455 itself on NIO's frame codec, so the connection keeps every promise ``Konex/WebSocket``
    /// makes: a refused handshake keeps its status, headers and the start of its body (a 401 reaches the retriers);
    /// a slow reader pauses the socket instead of overflowing a buffer; text that is not UTF-8 is closed with 1007, a
    /// message over the limit with 1009, a broken frame with 1002; close reasons go both ways; a server that never
    /// answers a close is dropped after ``Konex/WebSocketOptions/closeTimeout``; and with
    /// ``Konex/WebSocketOptions/compression`` it offers `permessage-deflate` (RFC 7692, the system's zlib), the limit
    /// applying to a message as it inflates.
    /// ```swift
    /// let client = KonexClient(baseURL: api, transport: AsyncHTTPClientTransport.shared,
    ///                          webSocketTransport: NIOWebSocketTransport.shared)
    /// let socket = try await client.request(Chat()).webSocket()
    /// ```
    public final class NIOWebSocketTransport: WebSocketTransport {
        /// Where connections run.
        public let eventLoopGroup: any EventLoopGroup
        /// How `wss` connections check the server (and present a client certificate).
        public let tlsConfiguration: TLSConfiguration
        private let tlsContext = Lock<NIOSSLContext?>(nil)
        /// The TLS contexts made for a client's ``Konex/TLSSettings`` (``tlsConfiguration`` with them applied).
        private let tlsContexts = Lock<[TLSSettings: NIOSSLContext]>([:])

        /// A transport on AsyncHTTPClient's default event loop group.
        public static let shared = NIOWebSocketTransport()

        /// Creates a transport.
        /// - Parameters:
        ///   - eventLoopGroup: Where connections run; AsyncHTTPClient's default group by default.
        ///   - tlsConfiguration: How `wss` connections check the server; the system's trust roots by default.
        public init(
            eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup,
            tlsConfiguration: TLSConfiguration = .makeClientConfiguration()
        ) {
            self.eventLoopGroup = eventLoopGroup
            self.tlsConfiguration = tlsConfiguration
        }

        public func connect(_ head: RequestHead, options: WebSocketOptions) async throws -> any WebSocketChannel {
            let request = head.urlRequest
            let target = try WebSocketTarget(request, compression: options.compressionOffer)
            let context = try target.secure ? sslContext(for: options.tls) : nil
            let loop = eventLoopGroup.next()
            let handshake = loop.makePromise(of: NIOWebSocketConnection.self)
            let limit = request.timeoutInterval > 0 ? request.timeoutInterval : 60
            let timeout = TimeAmount.nanoseconds(Int64(min(limit, 86_400) * 1e9))
            let bootstrap = ClientBootstrap(group: loop)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .connectTimeout(timeout)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try Self.configure(
                            channel, target: target, tls: context, options: options, handshake: handshake)
                    }
                }
            let connecting = bootstrap.connect(host: target.host, port: target.port)
            connecting.cascadeFailure(to: handshake)
            // The head of a handshake (and the connect before it) is bounded by the request's timeout.
            let deadline = loop.scheduleTask(in: timeout) {
                handshake.fail(TransportFailure(.timedOut, url: target.url))
            }
            handshake.futureResult.whenComplete { result in
                deadline.cancel()
                if case .failure = result { connecting.whenSuccess { $0.close(promise: nil) } }
            }
            do {
                return try await withTaskCancellationHandler {
                    try await handshake.futureResult.get()
                } onCancel: {
                    handshake.fail(CancellationError())
                }
            } catch let error as WebSocketHandshakeRefused {
                throw error
            } catch let error as WebSocketFailure {
                throw error
            } catch let error as NIOHTTPClientUpgradeError where error == .upgraderDeniedUpgrade {
                throw WebSocketFailure(
                    .protocolViolation,
                    "the server answered 101 with a Sec-WebSocket-Accept that does not match the key sent")
            } catch let error as NIOHTTPClientUpgradeError {
                throw WebSocketFailure(
                    .protocolViolation, "the server's 101 answer is not a WebSocket upgrade: \(error)")
            } catch ChannelError.connectTimeout {
                throw TransportFailure(.timedOut, url: target.url)
            } catch {
                throw AsyncHTTPClientTransport.transportError(error, url: target.url)
            }
        }

        /// Applies every setting: custom roots and a client identity (PEM or PKCS#12) through the TLS context, and
        /// pins by checking the key of the server's certificate once the handshake has verified it, before the
        /// upgrade request (and its credentials) is written. NIOSSL gives a handler the server's own certificate
        /// only, so a pin must name the server certificate's key, not a CA's.
        public func checkCanApply(_ tls: TLSSettings) throws {}

        /// One TLS context for every connection under the same settings: making one reads the trust roots.
        private func sslContext(for tls: TLSSettings) throws -> NIOSSLContext {
            guard tls.isDefault else {
                if let made = tlsContexts.withLock({ $0[tls] }) { return made }
                let made = try NIOSSLContext(configuration: tls.applied(to: tlsConfiguration))
                tlsContexts.withLock { $0[tls] = made }
                return made
            }
            return try tlsContext.withLock { context in
                if let context { return context }
                let made = try NIOSSLContext(configuration: tlsConfiguration)
                context = made
                return made
            }
        }

        /// TLS, the HTTP/1.1 codec with NIO's WebSocket upgrader, and the handler that sends the handshake and reads a
        /// refusal. On a 101 the upgrader swaps the HTTP codec for the frame codec and Konex's frame handler.
        private static func configure(
            _ channel: any Channel, target: WebSocketTarget, tls: NIOSSLContext?, options: WebSocketOptions,
            handshake: EventLoopPromise<NIOWebSocketConnection>
        ) throws {
            let pipeline = channel.pipeline.syncOperations
            if let tls {
                // SNI names hosts, not addresses.
                let named = target.host.contains(":") || target.host.allSatisfy { $0.isNumber || $0 == "." }
                try pipeline.addHandler(NIOSSLClientHandler(context: tls, serverHostname: named ? nil : target.host))
            }
            try pipeline.addHandler(EndOfInputDeferral())
            let pins = tls == nil ? [] : options.tls.serverTrust.pins
            let requester = WebSocketHandshakeHandler(target: target, pins: pins, handshake: handshake)
            let requesterBox = NIOLoopBound(requester, eventLoop: channel.eventLoop)
            // A control frame may carry 125 bytes whatever the message limit; the frame reader bounds each frame.
            let frameLimit = min(max(options.maximumMessageSize, 125), Int(UInt32.max))
            let upgrader = WebSocketUpgrader { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    let deflate = try PerMessageDeflate(
                        answer: head.headers["Sec-WebSocket-Extensions"], offered: options.compressionOffer)
                    let handler = WebSocketFrameHandler(
                        options: options, deflate: deflate, maximumFrameSize: frameLimit)
                    try channel.pipeline.syncOperations.addHandler(handler)
                    handshake.succeed(
                        NIOWebSocketConnection(
                            channel: channel, handler: handler, response: target.response(to: head)))
                }
            }
            try pipeline.addHTTPClientHandlers(
                leftOverBytesStrategy: .forwardBytes,
                withClientUpgrade: (
                    upgraders: [upgrader],
                    completionHandler: { _ in
                        channel.pipeline.syncOperations.removeHandler(requesterBox.value, promise: nil)
                    }
                ))
            try pipeline.addHandler(requester)
        }
    }
#endif
