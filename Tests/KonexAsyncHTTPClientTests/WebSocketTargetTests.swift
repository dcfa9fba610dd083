#if AsyncHTTPClient
    import Foundation
    import Konex
    import Testing

    @testable import KonexAsyncHTTPClient

    /// Where a WebSocket handshake goes, read from the request Konex built.
    struct WebSocketTargetTests {
        @Test func anIPv6LiteralConnectsBareAndKeepsItsBracketsInHost() throws {
            let target = try WebSocketTarget(
                URLRequest(url: URL(string: "ws://[::1]:8080/chat?room=a%20b")!), compression: nil)
            #expect(target.host == "::1" && target.port == 8080 && !target.secure)
            #expect(target.head.uri == "/chat?room=a%20b")
            #expect(target.head.headers["Host"] == ["[::1]:8080"])
        }

        @Test func defaultPortsSchemesAndTheHeadersTheHandshakeWritesItself() throws {
            var request = URLRequest(url: URL(string: "https://example.com")!)
            request.setValue("Bearer t", forHTTPHeaderField: "Authorization")
            request.setValue("h2c", forHTTPHeaderField: "Upgrade")  // the handshake's own: never a second value
            request.setValue("x", forHTTPHeaderField: "Sec-WebSocket-Extensions")
            let target = try WebSocketTarget(request, compression: WebSocketCompressionOffer())
            #expect(target.secure && target.port == 443 && target.head.uri == "/")
            #expect(target.head.headers["Host"] == ["example.com"])
            #expect(target.head.headers["Authorization"] == ["Bearer t"])
            #expect(target.head.headers["Upgrade"].isEmpty)
            #expect(target.head.headers["Sec-WebSocket-Extensions"] == ["permessage-deflate; client_max_window_bits"])
        }

        @Test func aSchemeThatIsNotWebOrWebSocketIsRefused() {
            let error = #expect(throws: TransportFailure.self) {
                _ = try WebSocketTarget(URLRequest(url: URL(string: "ftp://example.com/x")!), compression: nil)
            }
            #expect(error?.kind == .badURL)
        }
    }
#endif
