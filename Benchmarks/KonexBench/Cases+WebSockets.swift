#if AsyncHTTPClient
    import Foundation
    import Konex
    import KonexAsyncHTTPClient
    import NIOCore
    import NIOPosix
    import WebSocketKit

    /// WebSockets: round trips and bytes per second, Konex over NIOWebSocketTransport against websocket-kit used by
    /// hand (the raw transport), on the same NIO echo server in its own process; and what 1,000 idle connections cost.
    /// Target: Konex ≤ 1.10× raw.
    struct WebSocketCases {
        let port: Int
        let config: Config

        /// Starts the echo server (`--serve-ws`) in a process of its own.
        static func start(config: Config) throws -> (WebSocketCases, Process) {
            let (port, process) = try ServerProcess.start("--serve-ws")
            return (WebSocketCases(port: Int(port), config: config), process)
        }

        var url: URL { URL(string: "ws://127.0.0.1:\(port)/echo")! }

        /// websocket-kit by hand: its callbacks feed an AsyncStream the caller reads, as an app would write it.
        final class RawSocket: Sendable {
            let socket: WebSocketKit.WebSocket
            let messages: AsyncStream<ByteBuffer>
            init(_ socket: WebSocketKit.WebSocket, _ messages: AsyncStream<ByteBuffer>) {
                self.socket = socket
                self.messages = messages
            }

            static func open(_ url: URL) async throws -> RawSocket {
                let (messages, continuation) = AsyncStream<ByteBuffer>.makeStream()
                let opened = Lock<WebSocketKit.WebSocket?>(nil)
                var configuration = WebSocketClient.Configuration(maxFrameSize: 1 << 24)
                configuration.maxAccumulatedFrameSize = 1 << 24
                try await WebSocketKit.WebSocket.connect(
                    to: url, configuration: configuration, on: MultiThreadedEventLoopGroup.singleton
                ) { socket in
                    opened.value = socket
                    socket.onText { _, text in continuation.yield(ByteBuffer(string: text)) }
                    socket.onBinary { _, buffer in continuation.yield(buffer) }
                    socket.onClose.whenComplete { _ in continuation.finish() }
                }.get()
                while opened.value == nil { await Task.yield() }
                return RawSocket(opened.value!, messages)
            }
        }

        func konexSocket() async throws -> Konex.WebSocket {
            let client = KonexClient(
                webSocketTransport: NIOWebSocketTransport(eventLoopGroup: MultiThreadedEventLoopGroup.singleton))
            return try await client.request(url).webSocket()
        }

        /// `count` echo round trips of `payload`, Konex against raw, interleaved rounds.
        func roundTrips(id: String, count: Int, payload: Int, binary: Bool) async throws -> Result {
            let raw = try await RawSocket.open(url)
            let konex = try await konexSocket()
            let data = Data(repeating: 0x61, count: payload)
            let text = String(repeating: "a", count: payload)
            func rawRun() async throws -> Sample {
                var iterator = raw.messages.makeAsyncIterator()
                return try await measure {
                    for _ in 0..<count {
                        if binary { try await raw.socket.send([UInt8](data)) } else { try await raw.socket.send(text) }
                        guard await iterator.next() != nil else { throw ServerError("the raw socket closed") }
                    }
                }
            }
            func konexRun() async throws -> Sample {
                var iterator = konex.messages.makeAsyncIterator()
                return try await measure {
                    for _ in 0..<count {
                        if binary { try await konex.send(data) } else { try await konex.send(text) }
                        guard try await iterator.next() != nil else { throw ServerError("the Konex socket closed") }
                    }
                }
            }
            _ = try await rawRun()
            _ = try await konexRun()
            let (k, r) = try await interleaved(rounds: config.rounds, konexRun, rawRun)
            let ratios = zip(k, r).map { $0.wall / $1.wall }
            let konexRate = Double(count) / k.map(\.wall).median
            let rawRate = Double(count) / r.map(\.wall).median
            await konex.close()
            try? await raw.socket.close()
            let bytes =
                binary
                ? String(
                    format: "; %.1f / %.1f MB/s each way", konexRate * Double(payload) / 1e6,
                    rawRate * Double(payload) / 1e6) : ""
            return Result(
                id: id, konex: konexRate, baseline: rawRate, ratio: ratios.median, unit: "round trips/s",
                detail: String(
                    format: "%d × %d B %@; time ratio rounds %.3f…%.3f (target ≤ 1.10)%@", count, payload,
                    binary ? "binary" : "text", ratios.min()!, ratios.max()!, bytes))
        }

        /// RSS before and after opening `count` Konex WebSockets that stay idle.
        func idleConnections(count: Int) async throws -> Result {
            let before = memory().resident
            var sockets: [Konex.WebSocket] = []
            for _ in 0..<count { sockets.append(try await konexSocket()) }
            try await Task.sleep(for: .milliseconds(200))
            let after = memory().resident
            for socket in sockets { await socket.close() }
            let perConnection = Double(after - before) / Double(count) / 1_024
            return Result(
                id: "ws_idle_connections", konex: Double(after - before) / 1_048_576, baseline: nil, ratio: nil,
                unit: "MB RSS growth",
                detail: String(format: "%d open idle connections: %.1f KiB each (client side)", count, perConnection))
        }
    }
#endif
