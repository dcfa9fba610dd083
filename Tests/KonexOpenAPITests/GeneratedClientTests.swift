#if OpenAPI
    import Foundation
    import HTTPTypes
    import Konex
    @testable import KonexOpenAPI
    import KonexTesting
    import OpenAPIRuntime
    import PostsAPI
    import TestSupport
    import Testing

    /// The client swift-openapi-generator made from Playgrounds/OpenAPIExample/openapi.yaml, run through Konex on
    /// KonexTesting's mocks and fixtures: no server, no network.
    @Suite struct GeneratedClientTests {
        let server = URL(string: "https://api.example.com/v1")!

        func api(_ konex: KonexClient) -> Client { Client(serverURL: server, transport: konex.openAPITransport) }

        @Test func anOperationMockedByItsIDWithADelayOnAManualClock() async throws {
            let clock = ManualClock()
            let mock = MockTransport(clock: clock)
            mock.stub(.operation("getPost"), .json(["id": 1, "title": "Hello"] as JSON).delayed(by: .seconds(2)))
            let api = api(KonexClient.mocked(mock, clock: clock))
            let call = Task { try await api.getPost(path: .init(id: 1)) }
            try await clock.waitForSleepers()  // the call waits on the endpoint's delay…
            clock.advance(by: .seconds(2))  // …which passes at once
            #expect(try await call.value.ok.body.json == .init(id: 1, title: "Hello"))
            #expect(mock.requests.first?.url?.absoluteString == "https://api.example.com/v1/posts/1")
        }

        /// A status no HTTP response has (a tampered cache entry or fixture) is a typed error, not a trap in
        /// swift-http-types.
        @Test(arguments: [70_000, 1_000, 99, -1, Int.max])
        func anImpossibleStatusIsATypedErrorNotATrap(status: Int) async throws {
            let mock = MockTransport(clock: ImmediateClock())
            mock.stub(.get("/v1/posts/7"), .json(["id": 7, "title": "x"] as JSON, status: status))
            let error = try await requireThrows(ClientError.self) {
                _ = try await api(KonexClient.mocked(mock)).getPost(path: .init(id: 7))
            }
            let konex = try #require(error.underlyingError as? KonexError, "\(error)")
            #expect(konex.stage == .validation)
            #expect(konex.message.contains("status \(status) is not an HTTP status"), "\(konex.message)")
        }

        @Test func aDocumentedErrorStatusReachesTheGeneratedCodeAsAResponse() async throws {
            let mock = MockTransport(clock: ImmediateClock())
            mock.stub(.get("/v1/posts/7"), .json(["error": "no such post"], status: 404))
            let output = try await api(KonexClient.mocked(mock)).getPost(path: .init(id: 7))
            #expect(try output.notFound.body.json.error == "no such post")
        }

        @Test func a401IsRefreshedOnceAndTheOperationRetried() async throws {
            let mock = MockTransport(clock: ImmediateClock())
            mock.stub(
                .post("/v1/posts").header("Authorization", "Bearer fresh"),
                .json(["id": 3, "title": "New"] as JSON, status: 201))
            mock.stub(.post("/v1/posts"), .json(["error": "expired"], status: 401))
            let refreshes = Lock(0)
            let auth = TokenAuthenticator(credential: .init(accessToken: "stale")) { _ in
                refreshes.withLock { $0 += 1 }
                return .init(accessToken: "fresh")
            }
            let konex = KonexClient.mocked(mock)
            konex.adapters = [auth]
            konex.retriers = [auth]
            let created = try await api(konex).createPost(body: .json(.init(title: "New"))).created.body.json
            #expect(created == .init(id: 3, title: "New"))
            #expect(refreshes.value == 1)
            #expect(mock.requests.map { $0.header("Authorization") } == ["Bearer stale", "Bearer fresh"])
        }

        @Test func a401NoRetrierTakesIsTheGeneratedCodesToHandle() async throws {
            let mock = MockTransport(clock: ImmediateClock())
            mock.stub(.post("/v1/posts"), .json(["error": "expired"], status: 401))
            let output = try await api(KonexClient.mocked(mock)).createPost(body: .json(.init(title: "New")))
            #expect(try output.unauthorized.body.json.error == "expired")
        }

        @Test func aCacheableListIsServedByTheClientsCache() async throws {
            let mock = MockTransport(clock: ImmediateClock())
            mock.stub(
                .operation("listPosts"),
                .json([["id": 1, "title": "Hello"]] as JSON, headers: ["Cache-Control": "max-age=60"]))
            let konex = KonexClient.mocked(mock)
            konex.interceptors = [HTTPCache(storage: .memory(capacity: 1 << 20), cookieStorage: nil)]
            let api = api(konex)
            for _ in 1...3 { #expect(try await api.listPosts().ok.body.json.count == 1) }
            #expect(mock.requests.count == 1)
        }

        /// An event stream with no newline (or one endless event) reaches the runtime's decoder within Konex's limits:
        /// a typed error, not a buffer that grows without bound.
        /// An event stream with no newline reaches the runtime's decoder within Konex's line limit: a typed error,
        /// not a buffer that grows without bound.
        @Test func anEndlessLineIsATypedError() async throws {
            let mock = MockTransport(clock: ImmediateClock())
            let line = Data(repeating: UInt8(ascii: "x"), count: 64 << 10)
            mock.stub(
                .operation("streamEvents"),
                .chunks(Array(repeating: MockChunk(line), count: 48), contentType: "text/event-stream", then: .hang))
            let events = try await api(KonexClient.mocked(mock)).streamEvents().ok.body.textEventStream
            let error = try await requireThrows(StreamFailure.self) {
                for try await _ in events.asDecodedServerSentEvents() {}
            }
            #expect(error.kind == .lineTooLong)
        }

        /// A streamed operation's error body arrives whole (up to the 64 KiB Konex keeps of one), or as a typed error
        /// that says it went on: never a body cut short without a word.
        @Test(arguments: [10 << 10, 64 << 10, (64 << 10) + 1, 300 << 10])
        func aStreamedOperationsErrorBodyIsWholeOrATypedError(size: Int) async throws {
            let body = Data((0..<size).map { UInt8(ascii: "a") + UInt8($0 % 26) })
            let mock = MockTransport(clock: ImmediateClock())
            mock.stub(.operation("streamEvents"), .data(body, status: 503, contentType: "text/plain"))
            let api = api(KonexClient.mocked(mock))
            guard size > 64 << 10 else {
                guard case .undocumented(statusCode: 503, let payload) = try await api.streamEvents() else {
                    Issue.record("a 503 with a short body reaches the generated code as undocumented")
                    return
                }
                let received = try await Data(collecting: try #require(payload.body), upTo: .max)
                #expect(received == body)
                return
            }
            let error = try await requireThrows(ClientError.self) { _ = try await api.streamEvents() }
            let konex = try #require(error.underlyingError as? KonexError, "\(error)")
            #expect(konex.isDataPartial)
            #expect(konex.statusCode == 503)
            #expect(konex.data == body.prefix(64 << 10))
            #expect(konex.message.contains("longer than the 65536 bytes"), "\(konex.message)")
        }

        /// The record limits alone, on small numbers: an event of many short lines, a JSON sequence's records, and an
        /// RS that must not reset an event stream's line.
        @Test func recordLimitsCountLinesEventsAndSeparators() async throws {
            func run(_ text: String, events: Bool) async -> StreamFailure.Kind? {
                let chunks = AsyncStream<Data> { continuation in
                    for byte in text.utf8 { continuation.yield(Data([byte])) }
                    continuation.finish()
                }
                let bounded = BoundedRecords(
                    chunks, eventsSpanLines: events, maximumLineLength: 10, maximumEventSize: 25)
                do {
                    for try await _ in bounded {}
                    return nil
                } catch let failure as StreamFailure {
                    return failure.kind
                } catch {
                    return nil
                }
            }
            #expect(await run("data: 1234\ndata: 5678\n\ndata: 9\n\n", events: true) == nil)
            #expect(await run("data: 1234\ndata: 5678\ndata: 9abc\n", events: true) == .eventTooLarge)
            #expect(await run("data: 12345\n", events: true) == .lineTooLong)
            #expect(await run("data: 12\u{1E}345678\n", events: true) == .lineTooLong)
            #expect(await run("\u{1E}{\"a\":1}\n\u{1E}{\"b\":2}\n", events: false) == nil)
            // CRLF ends a line once: it must not read as a line and a blank one, resetting the event every line.
            #expect(await run("data: 1234\r\ndata: 5678\r\ndata: 9abc\r\n", events: true) == .eventTooLarge)
            #expect(await run("data: 1234\r\ndata: 5678\r\n\r\ndata: 9\r\n\r\n", events: true) == nil)
            #expect(await run("{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n", events: false) == nil)
        }

        @Test func serverSentEventsStreamThroughTheRuntimesDecoder() async throws {
            let clock = ManualClock()
            let mock = MockTransport(clock: clock)
            let published = (1...3).map { ServerSentEvent(data: #"{"id":\#($0)}"#, id: String($0)) }
            mock.stub(.operation("streamEvents"), .events(published, every: .milliseconds(500)))
            let body = try await api(KonexClient.mocked(mock, clock: clock)).streamEvents().ok.body.textEventStream
            let reader = Task {
                var ids: [String] = []
                for try await event in body.asDecodedServerSentEvents() { ids.append(event.id ?? "") }
                return ids
            }
            for _ in 1...2 {
                try await clock.waitForSleepers()  // the next event is half a second away: it arrives when it is due
                clock.advance(by: .milliseconds(500))
            }
            #expect(try await reader.value == ["1", "2", "3"])
        }

        @Test func aFailureKeepsKonexsStageAndRequest() async throws {
            let mock = MockTransport(clock: ImmediateClock())
            mock.stub(.operation("listPosts"), .fault(.notConnected))
            let api = api(KonexClient.mocked(mock))
            let error = try await requireThrows(ClientError.self) { try await api.listPosts() }
            #expect(error.operationID == "listPosts")
            let konex = try #require(error.underlyingError as? KonexError)
            #expect(konex.stage == .transport)
            #expect(konex.url?.absoluteString == "https://api.example.com/v1/posts")
        }

        @Test func cancellingTheCallersTaskCancelsTheRequest() async throws {
            let clock = ManualClock()
            let mock = MockTransport(clock: clock)
            mock.stub(.operation("getPost"), .json(["id": 1, "title": "late"] as JSON).delayed(by: .seconds(30)))
            let api = api(KonexClient.mocked(mock, clock: clock))
            let call = Task { try await api.getPost(path: .init(id: 1)) }
            try await clock.waitForSleepers()  // the request is on its way
            call.cancel()
            let error = try await requireThrows(ClientError.self) { _ = try await call.value }
            #expect((error.underlyingError as? KonexError)?.stage == .cancelled)
        }

        @Test func aHARFixtureReplaysOffline() async throws {
            let fixtures = FixtureDirectory(besides: #filePath, named: "Fixtures")
            let api = api(try KonexClient.fixtures(fixtures))
            #expect(try await api.listPosts().ok.body.json.map(\.title) == ["Hello", "Konex"])
            #expect(try await api.getPost(path: .init(id: 7)).notFound.body.json.error == "no such post")
        }
    }
#endif
