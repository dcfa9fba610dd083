import Foundation
import Konex
import TestSupport
import Testing

#if AsyncHTTPClient
    import KonexAsyncHTTPClient
    import NIOSSL
#endif

/// Where the WebSocket server is: scripts/test starts python-websockets (scripts/ws-server) on 127.0.0.1.
enum WebSocketServer {
    static let url: URL? = ProcessInfo.processInfo.environment["KONEX_WS_URL"].flatMap(URL.init(string:))
    static var isAvailable: Bool { url != nil }
    static let skipReason: Comment = "KONEX_WS_URL is not set: run scripts/test, which starts scripts/ws-server"

    /// How the connection `id` ended, as the server saw it.
    static func ended(_ id: String) async throws -> (code: Int?, reason: String) {
        let client = KonexClient(baseURL: url!)
        struct Ended: Decodable, Sendable {
            let code: Int?
            let reason: String?
        }
        for _ in 0..<100 {  // the server writes it down when its handler ends, a moment after the close
            let info = try await client.request("stats?id=\(id)").responseObject(of: Ended.self)
            if let code = info.code { return (code, info.reason ?? "") }
            try await Task.sleep(for: .milliseconds(20))
        }
        return (nil, "")
    }

    /// The same endpoints over TLS, and the certificate scripts/ws-server made for them.
    static let tls: (URL, String)? = {
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment["KONEX_WSS_URL"].flatMap(URL.init(string:)),
            let cert = environment["KONEX_WSS_CERT"]
        else { return nil }
        return (url, cert)
    }()

    /// How many messages /flood has sent on the connection `id`.
    static func progress(_ id: String) async throws -> Int {
        struct Progress: Decodable, Sendable { let sent: Int }
        return try await KonexClient(baseURL: url!).request("progress?id=\(id)").responseObject(of: Progress.self).sent
    }
}

/// URLSessionTransport on this platform: WebSockets where libcurl speaks them, else a precise error at once.
@Suite(.enabled(if: WebSocketServer.isAvailable, WebSocketServer.skipReason))
struct URLSessionWebSocketTests {
    @Test func echoesOrSaysPreciselyWhyItCannot() async throws {
        let client = KonexClient(baseURL: WebSocketServer.url!)
        do {
            let socket = try await client.request("echo").timeout(.seconds(5)).webSocket()
            try await socket.send("hello")
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("hello"))
            await socket.close()
        } catch let error as KonexError {
            // Debian's libcurl 7.88 has no ws/wss (swift-corelibs-foundation #5431): the run-time check must say so.
            #expect(error.stage == .connection)
            #expect((error.underlyingError as? WebSocketFailure)?.kind == .unsupported)
            #expect(error.message.contains("libcurl"))
        }
    }
}

#if AsyncHTTPClient
    /// The chain against python-websockets through NIOWebSocketTransport, on a real socket.
    @Suite(.enabled(if: WebSocketServer.isAvailable, WebSocketServer.skipReason))
    struct NIOWebSocketIntegrationTests {
        let client = KonexClient(
            baseURL: WebSocketServer.url!, transport: AsyncHTTPClientTransport.shared,
            webSocketTransport: NIOWebSocketTransport.shared)

        struct Note: Codable, Sendable, Equatable { let text: String }

        @Test func echoesTextBinaryAndJSONThenClosesCleanlyBothSidesAgree() async throws {
            let id = UUID().uuidString
            let socket = try await client.request("echo?id=\(id)").webSocket()
            #expect(socket.response.statusCode == 101)
            try await socket.send("hello")
            try await socket.send(Data([0, 1, 2, 255]))
            try await socket.send(json: Note(text: "json"))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("hello"))
            #expect(try await iterator.next() == .binary(Data([0, 1, 2, 255])))
            #expect(try await iterator.next() == .text(#"{"text":"json"}"#))
            await socket.close(.normalClosure, reason: "done")
            #expect(try await WebSocketServer.ended(id).code == 1000)  // the server received our close (frames masked)
        }

        @Test func aRefusedHandshakeRefreshesTheTokenAndConnects() async throws {
            let auth = TokenAuthenticator(credential: .init(accessToken: "stale")) { _ in .init(accessToken: "fresh") }
            let socket = try await client.request("auth").withAdapter(auth).retry(auth).webSocket()
            #expect(auth.refreshCount == 1)
            try await socket.send("authorised")
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("authorised"))
            await socket.close()
        }

        @Test func withoutARetrierTheRefusalIsAHandshakeErrorWithItsStatus() async throws {
            let error = try await #require(throws: KonexError.self) { _ = try await client.request("auth").webSocket() }
            #expect(error.stage == .handshake && error.statusCode == 401)
        }

        @Test func aFragmentedMessageWithAPingBetweenItsFragmentsArrivesWhole() async throws {
            let socket = try await client.request("fragmented").webSocket()
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("fragmented message"))
            await socket.close()
        }

        @Test func aServerClosingWith1011IsAConnectionErrorWithThatCode() async throws {
            let socket = try await client.request("close-1011").webSocket()
            var got: [WebSocketMessage] = []
            let error = try await #require(throws: KonexError.self) {
                for try await message in socket.messages { got.append(message) }
            }
            #expect(got == [.text("bye")])
            #expect(error.stage == .connection && socket.closeCode == .internalServerError)
        }

        @Test func aMessageOverTheLimitIsClosedWith1009() async throws {
            let id = UUID().uuidString
            let socket = try await client.request("too-big?id=\(id)")
                .webSocket(options: WebSocketOptions(maximumMessageSize: 1 << 20))
            let error = try await #require(throws: KonexError.self) { for try await _ in socket.messages {} }
            #expect(error.stage == .protocolViolation && error.message.contains("1009"))
            #expect(try await WebSocketServer.ended(id).code == 1009)
        }

        @Test func pingsAreAnsweredAndTheConnectionStaysOpen() async throws {
            // The pong deadline is far above a loaded machine's stalls: what is proved is that pings are answered and
            // the connection stays open, not how fast the server answers.
            let socket = try await client.request("echo").webSocket(
                pingInterval: .milliseconds(50), pongTimeout: .seconds(10))
            try await Task.sleep(for: .milliseconds(300))
            try await socket.send("still here")
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("still here"))
            await socket.close()
        }

        @Test func cancellingTheReaderClosesWithGoingAway() async throws {
            let id = UUID().uuidString
            let socket = try await client.request("chat?id=\(id)").webSocket()
            let reader = Task { for try await _ in socket.messages {} }
            try await Task.sleep(for: .milliseconds(100))
            reader.cancel()
            _ = await reader.result
            #expect(try await WebSocketServer.ended(id).code == 1001)
        }

        @Test func aSlowReaderPausesTheSocketSoTheServerWaitsAndNothingIsLost() async throws {
            let id = UUID().uuidString
            let count = 2_000
            let socket = try await client.request("flood?id=\(id)&count=\(count)&size=16384")
                .webSocket(options: WebSocketOptions(receiveBufferLimit: 8))
            try await Task.sleep(for: .milliseconds(500))
            // 32 MiB were ready to go; a reader that took nothing for half a second held the server to what the
            // inbox, one socket read and the kernel's buffers hold.
            let sentWhileIdle = try await WebSocketServer.progress(id)
            #expect(
                sentWhileIdle < count / 2, "the server sent \(sentWhileIdle) of \(count) to a reader that read none")
            var expected: UInt32 = 0
            for try await message in socket.messages {
                guard case .binary(let data) = message, data.count == 16_384 else {
                    Issue.record("message \(expected) is \(message)")
                    break
                }
                #expect(data.prefix(4).reduce(0) { $0 << 8 | UInt32($1) } == expected)
                expected += 1
            }
            #expect(expected == UInt32(count))  // in order, none lost, then the server's clean close
            #expect(socket.closeCode == .normalClosure && socket.closeReason == "flooded")
        }

        @Test func aSlowReaderStillSeesTheCloseAnswerAtOnce() async throws {
            // Before: with reading paused for a slow reader, the server's answer to our close was never read, so
            // close() waited out its timeout and ended with 1006.
            // A close timeout of 120 s that the close must not wait out: 60 s of margin for a loaded machine (the
            // thread sanitizer has stalled a run for 37 s), and still half of what the old behaviour took.
            let socket = try await client.request("flood?count=400&size=262144")
                .webSocket(options: WebSocketOptions(closeTimeout: .seconds(120), receiveBufferBytes: 1 << 20))
            try await Task.sleep(for: .milliseconds(500))
            let started = ContinuousClock.now
            await socket.close()
            #expect(started.duration(to: .now) < .seconds(60))
            #expect(socket.closeCode == .normalClosure)
        }

        @Test func aSlowReaderIsNotFailedByAPongStuckBehindUnreadData() async throws {
            // Before: with reading paused for a slow reader, the pong to each ping waited in the socket behind the
            // flood, and the pong timeout failed a connection whose server was answering all along.
            // A pong deadline of 3 s, far above a loaded machine's stalls (300 ms failed once in a fresh-clone run over
            // AsyncHTTPClient while the server flooded 50 MB): a pong stuck behind unread data would never come, so
            // 4 s without reading still fails the old behaviour, and a slow but live server never fails this one.
            let socket = try await client.request("flood?count=200&size=262144")
                .webSocket(
                    options: WebSocketOptions(receiveBufferBytes: 1 << 20), pingInterval: .milliseconds(300),
                    pongTimeout: .seconds(3))
            try await Task.sleep(for: .seconds(4))  // a dozen pings while nothing is read
            var count = 0
            for try await _ in socket.messages { count += 1 }
            #expect(count == 200)
            #expect(socket.closeCode == .normalClosure && socket.closeReason == "flooded")
        }

        @Test func theServersCloseReasonArrivesAndOursReachesTheServer() async throws {
            let socket = try await client.request("close-1011").webSocket()
            do { for try await _ in socket.messages {} } catch {}  // 1011 is a connection error; the reason is kept
            #expect(socket.closeCode == .internalServerError && socket.closeReason == "restarting")

            let id = UUID().uuidString
            let echo = try await client.request("echo?id=\(id)").webSocket()
            await echo.close(.goingAway, reason: String(repeating: "é", count: 100))  // 200 bytes: cut to 123
            let ended = try await WebSocketServer.ended(id)
            #expect(ended.code == 1001 && ended.reason == String(repeating: "é", count: 61))
        }

        @Test func textThatIsNotUTF8IsClosedWith1007() async throws {
            let id = UUID().uuidString
            let socket = try await client.request("bad-utf8?id=\(id)").webSocket()
            let error = try await #require(throws: KonexError.self) { for try await _ in socket.messages {} }
            #expect(error.stage == .protocolViolation && error.message.contains("UTF-8"))
            #expect(try await WebSocketServer.ended(id).code == 1007)
        }

        @Test func aReservedBitWithoutAnExtensionIsClosedWith1002() async throws {
            let id = UUID().uuidString
            let socket = try await client.request("reserved-bit?id=\(id)").webSocket()
            let error = try await #require(throws: KonexError.self) { for try await _ in socket.messages {} }
            #expect(error.stage == .protocolViolation && socket.closeCode == .protocolError)
            #expect(try await WebSocketServer.ended(id).code == 1002)
        }

        @Test func aServerThatNeverAnswersTheCloseIsDroppedAfterTheCloseTimeout() async throws {
            let socket = try await client.request("deaf")
                .webSocket(options: WebSocketOptions(closeTimeout: .milliseconds(300)))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("ready"))
            let clock = ContinuousClock()
            let took = await clock.measure { await socket.close() }
            // The lower bound is the point; the upper one only detects a hang (a loaded machine stalls for seconds).
            #expect(took >= .milliseconds(250) && took < .seconds(60), "close took \(took)")
            #expect(socket.closeCode == .abnormalClosure)  // RFC 6455 §7.1.5: no close frame came back
        }

        @Test func permessageDeflateBothWaysWhenAskedAndOnlyThen() async throws {
            let compressed = try await client.request("echo")
                .webSocket(options: WebSocketOptions(compression: true))
            let agreed = compressed.response.value(forHTTPHeaderField: "Sec-WebSocket-Extensions") ?? ""
            #expect(agreed.hasPrefix("permessage-deflate"))
            let text = String(repeating: #"{"user":"konex","room":"swift"},"#, count: 4_000)
            var iterator = compressed.messages.makeAsyncIterator()
            for round in 0..<3 {  // the shared window carries over from message to message
                try await compressed.send("\(round)" + text)
                #expect(try await iterator.next() == .text("\(round)" + text))
            }
            try await compressed.send(Data([0, 1, 2, 255]))
            #expect(try await iterator.next() == .binary(Data([0, 1, 2, 255])))
            try await compressed.send("")  // RFC 7692 §7.2.3.6: one 0x00 byte
            #expect(try await iterator.next() == .text(""))
            await compressed.close()

            let plain = try await client.request("echo").webSocket()
            #expect(plain.response.value(forHTTPHeaderField: "Sec-WebSocket-Extensions") == nil)
            await plain.close()
        }

        @Test func aCompressedBombIsClosedWith1009AsItInflates() async throws {
            let id = UUID().uuidString
            let socket = try await client.request("bomb?id=\(id)")
                .webSocket(options: WebSocketOptions(maximumMessageSize: 1 << 20, compression: true))
            let error = try await #require(throws: KonexError.self) { for try await _ in socket.messages {} }
            #expect(error.stage == .protocolViolation && socket.closeCode == .messageTooBig)
            #expect(try await WebSocketServer.ended(id).code == 1009)
        }

        /// Frames no well-behaved server sends, written raw after the handshake: each must end in the close code
        /// RFC 6455 names (the server records what the client sent), and never in a crash or a hang.
        @Test(arguments: [
            ("a masked frame (§5.1)", "818501020304" + "6967686f6e", 1002),
            ("a fragmented ping (§5.5)", "0900", 1002),
            ("a ping of 126 bytes (§5.5)", "897e007e" + String(repeating: "61", count: 126), 1002),
            ("a continuation with nothing to continue", "800161", 1002),
            ("a new message inside a fragmented one", "0101618101" + "62", 1002),
            ("a reserved opcode", "8300", 1002),
            ("a close frame of one byte", "880103", 1002),
            ("a close code that must not be sent (1005)", "880203ed", 1002),
            ("a close code below 1000", "880203e7", 1002),
            ("a close reason that is not UTF-8", "880403e8c328", 1007),
        ])
        func aBrokenFrameEndsInTheCloseCodeRFC6455Names(_ frame: String, _ hex: String, _ code: Int) async throws {
            let id = UUID().uuidString
            let socket = try await client.request("raw?id=\(id)&hex=\(hex)").webSocket()
            let error = try await #require(throws: KonexError.self, "\(frame)") {
                for try await _ in socket.messages {}
            }
            #expect(error.stage == .protocolViolation, "\(frame): \(error.message)")
            #expect(try await WebSocketServer.ended(id).code == code, "\(frame)")
        }

        @Test func aCharacterSplitAcrossFragmentsArrivesWhole() async throws {
            // "cé" as two fragments, the é's two bytes split between them; then the server's close 1000 "bye".
            let socket = try await client.request("raw?hex=0102" + "63c3" + "8001a9" + "880503e8" + "627965")
                .webSocket()
            var got: [WebSocketMessage] = []
            for try await message in socket.messages { got.append(message) }
            #expect(got == [.text("cé")])
            #expect(socket.closeCode == .normalClosure && socket.closeReason == "bye")
        }

        @Test func wssWithTheServersCertificateTrustedEchoesAndClosesCleanly() async throws {
            let (url, certificate) = try #require(WebSocketServer.tls, "scripts/ws-server exports KONEX_WSS_URL")
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificate))
            let secure = KonexClient(baseURL: url, webSocketTransport: NIOWebSocketTransport(tlsConfiguration: tls))
            let id = UUID().uuidString
            let socket = try await secure.request("echo?id=\(id)").webSocket(
                options: WebSocketOptions(compression: true))
            try await socket.send("over TLS")
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("over TLS"))
            await socket.close(.normalClosure, reason: "done")
            #expect(try await WebSocketServer.ended(id).code == 1000)
        }

        @Test func wssWithACertificateNobodyTrustsFailsTheHandshakeAtOnce() async throws {
            let (url, _) = try #require(WebSocketServer.tls, "scripts/ws-server exports KONEX_WSS_URL")
            let untrusting = KonexClient(baseURL: url, webSocketTransport: NIOWebSocketTransport.shared)
            let clock = ContinuousClock()
            let start = clock.now
            let error = try await #require(throws: KonexError.self) {
                _ = try await untrusting.request("echo").webSocket()
            }
            #expect(error.stage == .transport && clock.now - start < .seconds(5), "\(error.message)")
        }

        @Test func aSenderBlockedByAServerThatStoppedReadingIsCancelledAtOnce() async throws {
            let socket = try await client.request("deaf")
                .webSocket(options: WebSocketOptions(closeTimeout: .milliseconds(200)))
            let megabyte = Data(count: 1 << 20)
            let sender = Task {
                for _ in 0..<256 { try await socket.send(megabyte) }  // far more than the kernel's buffers hold
            }
            try await Task.sleep(for: .milliseconds(500))
            let clock = ContinuousClock()
            let start = clock.now
            sender.cancel()
            let error = try await #require(throws: KonexError.self) { try await sender.value }
            // Without cancellation the sender would wait for good (the server never reads again): 5 s is a hang
            // detector, not a speed target (a loaded two-core machine once took over a second to unwind the send).
            #expect(error.stage == .cancelled && clock.now - start < .seconds(5))
            await socket.close()  // the queued frames go nowhere: the close times out and drops the connection
            #expect(socket.closeCode == .abnormalClosure)
        }

        @Test func fiftyConcurrentSendersShareOneCompressionWindowInOrder() async throws {
            // permessage-deflate's window is shared by every message on the connection: frames compressed out of
            // the order they go out would not inflate at the server (it would close with 1002 or 1007).
            let socket = try await client.request("echo").webSocket(options: WebSocketOptions(compression: true))
            let sent = (0..<50).map { "\($0): " + String(repeating: "konex websocket ", count: 200 + $0) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for text in sent { group.addTask { try await socket.send(text) } }
                try await group.waitForAll()
            }
            var echoed: Set<String> = []
            for try await message in socket.messages {
                guard case .text(let text) = message else { break }
                echoed.insert(text)
                if echoed.count == sent.count { break }
            }
            #expect(echoed == Set(sent))
            await socket.close()
        }

        @Test func aRefusalKeepsItsHeadersAndTheStartOfItsBody() async throws {
            let error = try await #require(throws: KonexError.self) { _ = try await client.request("auth").webSocket() }
            #expect(error.statusCode == 401)
            #expect(String(decoding: error.data ?? Data(), as: UTF8.self) == "token expired\n")
            #expect(error.response?.value(forHTTPHeaderField: "Content-Length") == "14")
        }

        @Test func aHandshakeToAPortWithNoServerFailsAtOnceAndNamesTheURL() async throws {
            let nobody = KonexClient(
                baseURL: URL(string: "ws://127.0.0.1:9")!, webSocketTransport: NIOWebSocketTransport.shared)
            let error = try await #require(throws: KonexError.self) { _ = try await nobody.request("chat").webSocket() }
            #expect(error.stage == .transport && error.url?.absoluteString == "ws://127.0.0.1:9/chat")
        }

        @Test func cancellingTheHandshakeEndsItAtOnce() async throws {
            // It reads the handshake and answers nothing.
            let silent = try MisbehavingServer(reply: Data(), holdingReplies: true)
            let client = KonexClient(
                baseURL: URL(string: "ws://127.0.0.1:\(silent.port)")!, webSocketTransport: NIOWebSocketTransport.shared
            )
            let opening = Task { try await client.request("chat").timeout(.seconds(30)).webSocket() }
            try await Task.sleep(for: .milliseconds(100))
            let clock = ContinuousClock()
            let start = clock.now
            opening.cancel()
            let error = try await #require(throws: KonexError.self) { _ = try await opening.value }
            // The handshake's own timeout is 30 s: 10 s detects a cancellation that did not end it.
            #expect(error.stage == .cancelled && clock.now - start < .seconds(10))
        }
    }
#endif

@Suite struct WebSocketPrerequisites {
    @Test func serverIsConfiguredWhenRequired() {
        if Server.isRequired { #expect(WebSocketServer.isAvailable, "scripts/test must export KONEX_WS_URL") }
    }
}

#if AsyncHTTPClient
    extension MemoryHeavy {
        /// What a hostile WebSocket server can make an idle reader hold, measured on the process, one at a time.
        @Suite(.enabled(if: WebSocketServer.isAvailable, WebSocketServer.skipReason))
        struct WebSocketMemoryTests {
            let client = KonexClient(
                baseURL: WebSocketServer.url!, transport: AsyncHTTPClientTransport.shared,
                webSocketTransport: NIOWebSocketTransport.shared)

            @Test func aReaderThatReadsNothingOfAFloodHoldsItsByteBudget() async throws {
                try await idleReader(compressed: false)
            }

            @Test func aReaderThatReadsNothingOfCompressedZerosHoldsItsByteBudget() async throws {
                try await idleReader(compressed: true)
            }

            /// Connects to `/flood` (messages of zeros after a 4-byte index: with permessage-deflate each costs about a
            /// thousandth of its size on the wire), reads nothing for two seconds, then reads everything.
            func idleReader(compressed: Bool) async throws {
                // Before: 256 messages were held whatever their size: 8 MiB messages to an idle reader grew the process
                // by 1.1 GB, and 15 MiB of compressed zeros (15 KiB each on the wire) by 1.25 GB.
                let id = UUID().uuidString
                let (count, size) = compressed ? (24, 15 << 20) : (32, 8 << 20)
                let before = ResidentMemory.bytes()
                let socket = try await client.request("flood?id=\(id)&count=\(count)&size=\(size)")
                    .webSocket(options: WebSocketOptions(compression: compressed))
                try await Task.sleep(for: .seconds(2))
                let grown = ResidentMemory.bytes() - before
                let sent = try await WebSocketServer.progress(id)
                // The budget (32 MiB) + a message waiting for room + one being read, with the allocator's slack.
                #expect(grown < 160 << 20, "an idle reader grew the process by \(grown >> 20) MiB (\(sent) sent)")
                // Compressed, all of it fits in the kernel's buffers: what matters is what was inflated.
                if !compressed {
                    #expect(sent < count, "the server sent all \(count) messages to a reader that read none")
                }
                var expected: UInt32 = 0
                for try await message in socket.messages {
                    guard case .binary(let data) = message, data.count == size else {
                        Issue.record("message \(expected) is \(message)")
                        break
                    }
                    #expect(data.prefix(4).reduce(0) { $0 << 8 | UInt32($1) } == expected)
                    expected += 1
                }
                #expect(expected == UInt32(count))  // once the reader reads, every message arrives, in order
                #expect(socket.closeCode == .normalClosure)
            }
        }
    }
#endif

#if AsyncHTTPClient
    /// Pins over `NIOWebSocketTransport`: checked once the TLS handshake has verified the server's certificate,
    /// before the upgrade request is written.
    @Suite(.enabled(if: WebSocketServer.tls != nil, WebSocketServer.skipReason))
    struct NIOWebSocketPinningTests {
        static func settings(pinning pin: PublicKeyPin, backup: PublicKeyPin) throws -> TLSSettings {
            let (_, path) = WebSocketServer.tls!
            let certificate = try TLSCertificate(pem: String(contentsOfFile: path, encoding: .utf8))
            return TLSSettings(serverTrust: .pinning(pin, backup: backup, roots: .certificates([certificate])))
        }

        static var serverPin: PublicKeyPin {
            get throws {
                try TLSCertificate(pem: String(contentsOfFile: WebSocketServer.tls!.1, encoding: .utf8)).publicKeyPin
            }
        }

        @Test func thePinnedKeyPasses() async throws {
            let backup = try PublicKeyPin(sha256: Array(repeating: 7, count: 32))
            let client = KonexClient(
                baseURL: WebSocketServer.tls!.0, webSocketTransport: NIOWebSocketTransport.shared,
                tls: try Self.settings(pinning: backup, backup: try Self.serverPin))
            let socket = try await client.request("echo").webSocket()
            try await socket.send("pinned")
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("pinned"))
            await socket.close()
        }

        @Test func anotherKeyFailsNamingThePinsAndTheKeyPresented() async throws {
            let pins = [
                try PublicKeyPin(sha256: Array(repeating: 1, count: 32)),
                try PublicKeyPin(sha256: Array(repeating: 2, count: 32)),
            ]
            let client = KonexClient(
                baseURL: WebSocketServer.tls!.0, webSocketTransport: NIOWebSocketTransport.shared,
                tls: try Self.settings(pinning: pins[0], backup: pins[1]))
            let error = try await #require(throws: KonexError.self) { _ = try await client.request("echo").webSocket() }
            let failure = try #require((error.underlyingError as? TransportFailure)?.underlying as? TLSFailure)
            let presented = try Self.serverPin
            #expect(failure.reason == .pinMismatch(presented: [presented]) && failure.pins == pins)
            #expect("\(error)".contains(pins[0].description) && "\(error)".contains(presented.description))
        }
    }
#endif
