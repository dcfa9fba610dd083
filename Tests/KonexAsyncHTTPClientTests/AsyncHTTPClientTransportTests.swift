#if AsyncHTTPClient
    import AsyncHTTPClient
    import Foundation
    import Konex
    import KonexAsyncHTTPClient
    import KonexTesting
    import TestSupport
    import Testing

    /// Where scripts/test's httpbin is.
    enum HTTPBin {
        static let url = ProcessInfo.processInfo.environment["KONEX_HTTPBIN_URL"].flatMap(URL.init(string:))
        static let skipReason: Comment =
            "KONEX_HTTPBIN_URL is not set: run scripts/test, which starts a real httpbin on 127.0.0.1"
    }

    /// The AsyncHTTPClient transport against a real httpbin on 127.0.0.1 (scripts/test starts it and runs this target
    /// with `--traits AsyncHTTPClient`), and against a hostile socket.
    @Suite(.serialized, .enabled(if: HTTPBin.url != nil, HTTPBin.skipReason))
    struct AsyncHTTPClientTransportTests {
        static let server = HTTPBin.url

        struct Echo: Decodable, Sendable {
            let url: String
            let headers: [String: String]
            let json: [String: String]?
        }

        func client(_ transport: AsyncHTTPClientTransport = .shared, timeout: Duration? = nil) throws -> KonexClient {
            let url = try #require(Self.server, "scripts/test exports KONEX_HTTPBIN_URL")
            return KonexClient(baseURL: url, transport: transport, timeout: timeout)
        }

        @Test func getsAndPostsThroughTheWholeChain() async throws {
            let client = try client()
            let echo = try await client.request("get?q=a%20b").withAdapter(.header("X-Case", "MiXeD")).validate()
                .responseObject(of: Echo.self)
            #expect(echo.url.hasSuffix("/get?q=a%20b"))
            #expect(echo.headers["X-Case"] == "MiXeD")
            struct Post: KonexRequest {
                let path = "post"
                let method = HTTPMethod.post
                var body: RequestBody? { .json(["name": "ada"]) }
            }
            let posted = try await client.request(Post()).validate().responseObject(of: Echo.self)
            #expect(posted.json == ["name": "ada"])
        }

        @Test func redirectsFollowKonexsPolicy() async throws {
            let following = try client()
            #expect(try await following.request("redirect/3").validate().response().statusCode == 200)
            let http = AsyncHTTPClientTransport.makeClient()
            defer { Task { try await http.shutdown() } }
            let stopping = try client(AsyncHTTPClientTransport(client: http, redirectPolicy: .doNotFollow))
            let stopped = try await stopping.request("redirect-to?url=/get&status_code=302").response()
            #expect(stopped.statusCode == 302)
            #expect(stopped.headers["Location"] == "/get")
        }

        @Test func aClientThatFollowsRedirectsItselfIsRefusedAndPlantsNoCookie() async throws {
            // A default HTTPClient follows redirects: host A's redirect to host B came back as A's answer, B's
            // `Set-Cookie: s=B` went into the jar for A, and Konex's redirect rules never ran.
            let url = try #require(Self.server, "scripts/test exports KONEX_HTTPBIN_URL")
            let http = HTTPClient(eventLoopGroupProvider: .singleton)
            defer { Task { try await http.shutdown() } }
            let jar = CookieJar()
            let client = KonexClient(
                baseURL: url, transport: AsyncHTTPClientTransport(client: http), cookieJar: jar)
            let hostB = "http://localhost:\(url.port ?? 80)/response-headers?Set-Cookie=s%3DB"
            let path = "redirect-to?url=\(hostB.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
            let error = try await requireThrows(KonexError.self) { try await client.request(path).response() }
            #expect(error.transportFailure == .other)
            #expect(error.message.contains("followed 1 redirect(s) itself"), "\(error.message)")
            #expect(error.message.contains("redirectConfiguration is .disallow"))
            #expect(jar.all.isEmpty, "the jar holds \(jar.all.map(\.name))")
        }

        @Test func aSubSecondTimeoutFiresAtItsTime() async throws {
            let http = AsyncHTTPClientTransport.makeClient()
            defer { Task { try await http.shutdown() } }
            let client = try client(AsyncHTTPClientTransport(client: http, headTimeout: .milliseconds(300)))
            let started = ContinuousClock.now
            let error = try await requireThrows(KonexError.self) { try await client.request("delay/10").responseData() }
            let took = started.duration(to: .now)
            #expect(error.stage == .transport)
            #expect(error.isTimeout)
            // FoundationNetworking rounds timeouts to whole seconds: 0.3 s fires after ~1 ms there. The lower bound is
            // the point; the timeout error itself shows it fired before the server's answer (10 s). An upper bound
            // under 10 s would only measure the machine's load.
            #expect(took >= .milliseconds(250), "took \(took)")
        }

        @Test func cancellingTheTaskCancelsTheTransferAtOnce() async throws {
            let client = try client()
            // A body dripped over 100 s: a transfer that ignored the cancel would last that long.
            let request = Task { try await client.request("drip?numbytes=10&duration=100&delay=0").responseData() }
            try await Task.sleep(for: .milliseconds(200))
            let started = ContinuousClock.now
            request.cancel()
            let error = try await requireThrows(KonexError.self) { try await request.value }
            #expect(error.stage == .cancelled)
            // A hang detector well under the body's 100 s, far above a loaded machine's stalls.
            #expect(started.duration(to: .now) < .seconds(60))
        }

        @Test func gzipBodiesAreDecoded() async throws {
            struct Gzipped: Decodable { let gzipped: Bool }
            #expect(try await client().request("gzip").validate().responseObject(of: Gzipped.self).gzipped)
        }

        @Test func theCacheRetriesAndStreamsWorkUnchanged() async throws {
            let url = try #require(Self.server)
            let cache = HTTPCache(cookieStorage: nil)
            let client = KonexClient(baseURL: url, transport: AsyncHTTPClientTransport.shared, interceptors: [cache])
            _ = try await client.request("cache/60").validate().response()
            #expect(try await client.request("cache/60").validate().response().source == .cache)
            let stream = try await client.request("stream/5").validate().stream()
            var lines = 0
            for try await _ in stream.lines() { lines += 1 }
            #expect(lines == 5)
        }

        @Test func aSlowReaderSlowsTheTransferInsteadOfOverflowing() async throws {
            // 4 MiB through a 64 KiB buffer, read slowly: back pressure, never a bufferOverflow (which is what
            // FoundationNetworking, unable to pause, must answer).
            let size = 4 << 20
            let server = try MisbehavingServer(
                reply: Data("HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\nConnection: close\r\n\r\n".utf8)
                    + Data(repeating: 7, count: size))
            let client = KonexClient(
                baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, transport: AsyncHTTPClientTransport.shared)
            let stream = try await client.request("big").validate().stream(bufferLimit: 64 << 10)
            var total = 0
            var chunks = 0
            for try await chunk in stream.chunks {
                total += chunk.count
                chunks += 1
                if chunks % 16 == 0 { try await Task.sleep(for: .milliseconds(2)) }
            }
            #expect(total == size)
        }

        /// A reader that starts late, behind a buffer far smaller than one of the socket's reads: the body waits in
        /// the socket (a reader that has not started slows the transfer), and no chunk fails the stream by its size.
        @Test func aLateReaderOfABodySentInOneWriteGetsItAll() async throws {
            let size = 512 << 10
            let server = try MisbehavingServer(
                reply: Data("HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\nConnection: close\r\n\r\n".utf8)
                    + Data(repeating: 3, count: size))
            let client = KonexClient(
                baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, transport: AsyncHTTPClientTransport.shared)
            let stream = try await client.request("big").validate().stream(bufferLimit: 4_096)
            try await Task.sleep(for: .milliseconds(300))
            var total = 0
            for try await chunk in stream.chunks { total += chunk.count }
            #expect(total == size)
        }

        @Test func downloadsGoToAFileAndProgressCountsEachChunk() async throws {
            let client = try client()
            let destination = FileManager.default.temporaryDirectory.appendingPathComponent("konex-ahc-\(UUID()).bin")
            defer { try? FileManager.default.removeItem(at: destination) }
            let events = Lock<[Int64]>([])
            let response = try await client.request("range/102400").validate()
                .onProgress { progress in
                    if progress.direction == .download { events.withLock { $0.append(progress.completedBytes) } }
                }
                .download(to: destination)
            #expect(response.statusCode == 200)
            #expect(try Data(contentsOf: destination).count == 102_400)
            #expect(events.value.last == 102_400)
            #expect(events.value.count >= 2)  // more than the end: bytes were counted as they came
        }

        @Test func aHostileContentLengthIsATypedErrorNotATrap() async throws {
            // FoundationNetworking traps on this one (RELIABILITY.md); over AsyncHTTPClient it is a typed error.
            let server = try MisbehavingServer(
                reply: Data(
                    "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807\r\nConnection: close\r\n\r\n{}".utf8))
            let client = KonexClient(
                baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, transport: AsyncHTTPClientTransport.shared)
            let error = try await requireThrows(KonexError.self) { try await client.request("x").responseData() }
            #expect(error.stage == .transport)
        }
    }
#endif

#if AsyncHTTPClient
    /// AsyncHTTPClientTransport against the whole transport contract, the HTTP client API proposal's raw-server cases
    /// included: every check passes, with no limit declared.
    @Suite(.enabled(if: HTTPBin.url != nil, HTTPBin.skipReason))
    struct AsyncHTTPClientTransportContractTests {
        @Test func meetsTheWholeContract() async throws {
            let server = try #require(AsyncHTTPClientTransportTests.server, "scripts/test exports KONEX_HTTPBIN_URL")
            let outcomes = await TransportContract(transport: AsyncHTTPClientTransport.shared, server: server).run()
            #expect(outcomes.count == TransportContract.checks.count)
            for outcome in outcomes {
                print("AsyncHTTPClientTransport contract: \(outcome)")
                #expect(outcome.isAcceptable, "\(outcome)")
            }
        }
    }
#endif
