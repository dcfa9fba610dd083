import Foundation
import Konex
import KonexTesting

extension Tour {
    /// A chat endpoint; the server wants `Authorization: Bearer fresh`.
    struct ChatSocket: KonexRequest {
        let path: String
        var urlTemplate: String? { "/chat" }
    }

    /// Step 15: the handshake is refused with 401, the authenticator refreshes, the connection opens, and messages
    /// arrive as the server sends them. Offline a mock server plays a script 300 ms apart; live it is
    /// scripts/ws-server's /auth endpoint (over NIO with the AsyncHTTPClient trait, else URLSession where libcurl can).
    func webSocketDemo() async throws {
        let auth = TokenAuthenticator(credential: .init(accessToken: "stale")) { _ in
            print("  (401 on the handshake: refreshing the token)")
            return .init(accessToken: "fresh")
        }
        let started = ContinuousClock.now
        func elapsed() -> String { "\(Int((ContinuousClock.now - started) / .milliseconds(1))) ms" }
        let sockets: KonexClient
        let path: String
        if live, let url = webSockets {
            guard let transport = webSocketTransport else { return }
            sockets = KonexClient(baseURL: url, webSocketTransport: transport)
            path = "auth"
        } else if live {
            print("(skipped live: pass --ws URL from scripts/ws-server)")
            return
        } else {
            let mock = MockTransport()
            mock.stubWebSocket(
                .get("/chat").header("Authorization", "Bearer fresh"),
                script: [
                    .expectAnyMessage, .send("hello, tour", after: .milliseconds(300)),
                    .send("still here", after: .milliseconds(300)), .close(.normalClosure, reason: "bye"),
                ])
            mock.stubWebSocket(.get("/chat"), handshake: .refuse(status: 401))
            sockets = KonexClient(baseURL: URL(string: "https://chat.tour")!, transport: mock)
            path = "chat"
        }
        do {
            let socket = try await sockets.request(ChatSocket(path: path)).withAdapter(auth).retry(auth).webSocket()
            print("open after \(elapsed()) with \(socket.request.value(forHTTPHeaderField: "Authorization") ?? "-")")
            try await socket.send("hello, tour")
            var received = 0
            for try await message in socket.messages {
                print("\(elapsed()): \(message)")
                received += 1
                if live && received == 1 { await socket.close(.normalClosure, reason: "tour done") }
            }
            print("closed with \(socket.closeCode.map { "\($0)" } ?? "-")")
        } catch let error as KonexError where (error.underlyingError as? WebSocketFailure)?.kind == .unsupported {
            print("this platform's URLSession cannot: \(error.message)")
        }
    }
}
