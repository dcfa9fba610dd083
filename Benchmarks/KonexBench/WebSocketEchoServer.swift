#if AsyncHTTPClient
    import Foundation
    import NIOCore
    import NIOHTTP1
    import NIOPosix
    import NIOWebSocket

    /// A WebSocket echo server on SwiftNIO (`konex-bench --serve-ws`, in a process of its own): every text or binary
    /// frame back as it came, pings answered, a close echoed. Fast enough that the client is what is measured.
    enum WebSocketEchoServer {
        static func serve() throws -> Never {
            let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
            let upgrader = NIOWebSocketServerUpgrader(
                maxFrameSize: 1 << 24, automaticErrorHandling: true,
                shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandlers(
                            NIOWebSocketFrameAggregator(
                                minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16,
                                maxAccumulatedFrameSize: 1 << 24),
                            Echo())
                    }
                })
            let bootstrap = ServerBootstrap(group: group)
                .serverChannelOption(ChannelOptions.backlog, value: 2048)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.pipeline.configureHTTPServerPipeline(
                        withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
                }
            let channel = try bootstrap.bind(host: "127.0.0.1", port: 0).wait()
            FileHandle.standardOutput.write(Data("\(channel.localAddress!.port!)\n".utf8))
            // Serve while the benchmark lives: the parent's blocked signals are inherited (SIGTERM does not reach this
            // process), and a parent that dies early must not leave a server behind.
            let parent = getppid()
            while getppid() == parent { sleep(1) }
            _ = channel
            exit(0)
        }

        final class Echo: ChannelInboundHandler, Sendable {
            typealias InboundIn = WebSocketFrame
            typealias OutboundOut = WebSocketFrame

            func channelRead(context: ChannelHandlerContext, data: NIOAny) {
                var frame = unwrapInboundIn(data)
                var payload = frame.unmaskedData
                switch frame.opcode {
                case .text, .binary:
                    context.writeAndFlush(
                        wrapOutboundOut(WebSocketFrame(fin: true, opcode: frame.opcode, data: payload)), promise: nil)
                case .ping:
                    context.writeAndFlush(
                        wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: payload)), promise: nil)
                case .connectionClose:
                    let code =
                        payload.readSlice(length: min(2, payload.readableBytes))
                        ?? context.channel.allocator.buffer(capacity: 0)
                    context.writeAndFlush(
                        wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: code)), promise: nil)
                    context.close(promise: nil)
                default:
                    break
                }
                frame.data.clear()
            }
        }
    }
#endif
