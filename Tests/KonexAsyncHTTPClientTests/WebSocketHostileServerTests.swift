#if AsyncHTTPClient
    import Foundation
    import Konex
    import TestSupport
    import Testing

    @testable import KonexAsyncHTTPClient

    /// Servers that do in one write what a polite server does in three, over a real socket.
    @Suite struct WebSocketHostileServerTests {
        @Test func theHandshakeAcceptHelperMatchesRFC6455sExample() {
            #expect(WebSocketAccept.value(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        }

        /// A server that writes the 101 and, in the same write, `frames`, then hangs up: every connection must open
        /// and end as `expected` says (the messages read, then the close code and reason). Before the fix about a
        /// third of the connections that sent a message and a close threw "connection lost" from the handshake (all
        /// of them in a debug build), and the frames were dropped. A race, so each is tried 200 times.
        @Test(arguments: [
            // A server refusing a client right after the upgrade, as many do (4401, 1008).
            (
                WebSocketAccept.frame(opcode: 0x1, Array("42".utf8)) + WebSocketAccept.close(4401, "no token"),
                "[text(42)] 4401 no token"
            ),
            (WebSocketAccept.close(1008, "policy"), "[] 1008 policy"),
            // A clean close right away: the loop ends without an error.
            (WebSocketAccept.frame(opcode: 0x2, [1, 2]) + WebSocketAccept.close(1000, ""), "[binary(2 bytes)] 1000 "),
            // No close frame at all: the message, then 1006 (never a hang).
            (WebSocketAccept.frame(opcode: 0x1, Array("last".utf8)), "[text(last)] 1006 "),
            (Data(), "[] 1006 "),
        ])
        func framesInTheSameWriteAsThe101AreReadOnEveryConnection(_ frames: Data, expected: String) async throws {
            let server = try MisbehavingServer(reply: Data()) { WebSocketAccept.upgrade(answering: $0, then: frames) }
            let client = KonexClient(
                baseURL: URL(string: "ws://127.0.0.1:\(server.port)")!, transport: AsyncHTTPClientTransport.shared,
                webSocketTransport: NIOWebSocketTransport.shared)
            var outcomes: [String] = []
            for _ in 0..<200 {
                let socket: WebSocket
                do {
                    socket = try await client.request("refuse").timeout(.seconds(30)).webSocket()
                } catch {
                    outcomes.append("the handshake threw \(error)")
                    continue
                }
                var messages: [WebSocketMessage] = []
                // A code other than 1000 and 1001 ends the loop with an error, after the messages.
                do { for try await message in socket.messages { messages.append(message) } } catch {}
                outcomes.append("\(messages) \(socket.closeCode.map { "\($0)" } ?? "open") \(socket.closeReason ?? "")")
            }
            let wrong = outcomes.filter { $0 != expected }
            #expect(wrong.isEmpty, "\(wrong.count) of 200 connections: \(Set(wrong).sorted())")
        }
    }
#endif

#if AsyncHTTPClient
    import NIOPosix

    /// A reader that prefers the connection's executor runs on the connection's event loop.
    @Suite struct WebSocketTaskExecutorTests {
        @Test func aReaderThatPrefersTheConnectionsExecutorRunsOnItsEventLoop() async throws {
            let frames = WebSocketAccept.frame(opcode: 0x1, Array("on the loop".utf8)) + WebSocketAccept.close(1000, "")
            let server = try MisbehavingServer(reply: Data()) { WebSocketAccept.upgrade(answering: $0, then: frames) }
            let client = KonexClient(
                baseURL: URL(string: "ws://127.0.0.1:\(server.port)")!, transport: AsyncHTTPClientTransport.shared,
                webSocketTransport: NIOWebSocketTransport.shared)
            let socket = try await client.request("loop").timeout(.seconds(30)).webSocket()
            let executor = try #require(socket.taskExecutor)
            let (messages, onLoop) = try await withTaskExecutorPreference(executor) {
                var messages: [WebSocketMessage] = []
                var onLoop = true
                for try await message in socket.messages {
                    messages.append(message)
                    onLoop = onLoop && MultiThreadedEventLoopGroup.currentEventLoop != nil
                }
                return (messages, onLoop)
            }
            #expect(messages == [.text("on the loop")])
            #expect(onLoop)
            // Without the preference the same reader runs on the concurrency pool, off every event loop.
            #expect(MultiThreadedEventLoopGroup.currentEventLoop == nil)
        }
    }
#endif
