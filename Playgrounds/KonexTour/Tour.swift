import Foundation
import Konex
import KonexTesting

/// The walkthrough: each step prints what it does and what came back.
struct Tour {
    let client: KonexClient
    let live: Bool
    /// A Server-Sent Events server for step 11 when live (`--sse URL`).
    var sse: URL?
    /// Whether the client sends through AsyncHTTPClientTransport (`--transport ahc`).
    var overAsyncHTTPClient = false
    /// A WebSocket server for step 15 when live (`--ws URL`, scripts/ws-server).
    var webSockets: URL?
    /// What opens WebSockets live: NIOWebSocketTransport with the AsyncHTTPClient trait, else URLSession.
    var webSocketTransport: (any WebSocketTransport)?

    func step(_ number: Int, _ title: String) {
        print("\n── \(number). \(title) " + String(repeating: "─", count: max(0, 60 - title.count)))
    }

    func run() async throws {
        step(1, "A struct request, decoded at a key path")
        let show = try await client.request(GetSlideshow()).validate().responseObject(
            of: Slideshow.self, atKeyPath: "slideshow")
        print("“\(show.title)” by \(show.author)")

        step(2, "An array, straight out of the envelope")
        let slides = try await client.request(GetSlideshow()).validate().responseArray(
            of: Slide.self, atKeyPath: "slideshow.slides")
        for slide in slides { print("• \(slide.title)") }

        step(3, "A KonexBasicRequest subclass with parameters")
        let search = try await client.request(SearchRequest(query: "swift & konex")).validate().responseJSON()
        print(
            "server saw q = \(search["args"]?["q"]?.stringValue ?? "?"), X-Tour = \(search["headers"]?["X-Tour"]?.stringValue ?? "?")"
        )

        step(4, "An enum endpoint with a JSON body, its progress as a sequence")
        let (post, progress) = client.request(HTTPBin.post(Note(text: "Konex is back"))).trackingProgress()
        let fractions = Task {
            var seen: [String] = []
            for await update in progress {
                seen.append("\(update.direction) \(Int((update.fractionCompleted ?? 0) * 100)) %")
            }
            return seen
        }
        let echo = try await post.validate().responseObject(of: Echo.self)
        print("echoed: \(echo.json?.text ?? "-")")
        print("progress: \(await fractions.value.joined(separator: " → "))")

        step(5, "Components at three levels, in pipeline order")
        let order = Recorder()
        client.plugins = [Announce(level: "client", recorder: order)]
        struct Tracked: KonexRequest {
            let recorder: Recorder
            let path = "/json"
            var requestPlugins: [any KonexPlugin] { [Announce(level: "request", recorder: recorder)] }
        }
        _ = try await client.request(Tracked(recorder: order)).withPlugin(Announce(level: "call site", recorder: order))
            .validate().process(.keyPath("slideshow")).responseObject(of: Slideshow.self)
        client.plugins = []
        print(order.events.joined(separator: " → "))

        step(6, "A typed error body")
        do {
            _ = try await client.request(HTTPBin.status(404)).validate().responseObject(
                of: Empty.self, errorType: NotFound.self)
        } catch let error as KonexError {
            print(
                "status \(error.statusCode ?? 0); error body: \(error.errorBody(as: NotFound.self)?.error ?? "none (empty body)")"
            )
            print("log line: \(error)")
        }

        step(7, "Retry with backoff (503 until attempts run out)")
        let attempts = Recorder()
        do {
            _ = try await client.request(HTTPBin.status(503)).withPlugin(Announce(level: "attempt", recorder: attempts))
                .validate()
                .retry(RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(100))).response()
        } catch let error as KonexError {
            print("gave up after \(attempts.events.count / 2) attempts: \(error.message)")
        }
        // A retry budget: when the server fails for everyone, retries stay within a share of the requests.
        let budget = RetryBudget(ratio: 0.2, minimumRetries: 2)
        let budgeted = Recorder()
        for _ in 0..<10 {
            _ = try? await client.request(HTTPBin.status(503)).withPlugin(
                Announce(level: "attempt", recorder: budgeted)
            )
            .validate()
            .retry(RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1), budget: budget)).response()
        }
        print("10 failing requests, 3 attempts each, one shared budget: \(budgeted.events.count / 2) attempts, not 30")

        step(8, "Cancelling a slow request")
        let started = ContinuousClock.now
        let slow = client.request(HTTPBin.delay(seconds: 3)).responseData(
            onSuccess: { _ in print("finished (unexpected)") },
            onError: { error in print("→ \(error.stage) after \(ContinuousClock.now - started)") })
        try await Task.sleep(for: .milliseconds(400))
        slow.cancel()
        await slow.wait()

        step(9, "What would be sent, as cURL (secrets redacted)")
        print(
            try await client.request(HTTPBin.post(Note(text: "hi"))).withAdapter(.bearer("secret-token"))
                .cURLDescription())

        step(10, "Testing with KonexTesting: a mock, a manual clock, a journal")
        try await testingDemo()

        step(11, "Streaming: Server-Sent Events, read as they arrive")
        try await streamingDemo()

        step(12, "Intercepting app code that builds its own client, with a HAR recorded from httpbin")
        try await interceptionDemo()

        step(13, "An HTTP cache, coalescing and a limit, the same on Linux and Apple platforms")
        try await productionDemo()

        step(14, "On servers: the same chain over AsyncHTTPClient")
        try await serversDemo()

        step(15, "WebSockets through the same pipeline: a 401 refreshed, messages as they arrive")
        try await webSocketDemo()

        step(16, "A client generated from an OpenAPI document, through Konex")
        try await openAPIDemo()

        print(
            "\nDone. \(live ? "Ran live." : "Ran offline on Playgrounds/KonexTour/Fixtures; try --live http://127.0.0.1:PORT against httpbin.")"
        )
    }

    func serversDemo() async throws {
        print("every step above went through \(type(of: client.transport))")
        guard overAsyncHTTPClient else {
            print("run it again with --transport ahc (swift run --traits AsyncHTTPClient konex-tour --transport ahc)")
            return
        }
        // The server takes 1 s live (/delay/1), 120 ms offline (the fixture delay): a 50 ms timeout fires at 50 ms,
        // where FoundationNetworking on Linux would round it to a whole second.
        let started = ContinuousClock.now
        do {
            _ = try await client.request("/delay/1").timeout(.milliseconds(50)).responseData()
            print("the answer came within 50 ms?")
        } catch let error as KonexError where error.isTimeout {
            let took = started.duration(to: .now)
            print(
                "a 50 ms timeout fired after \(took.formatted(.units(allowed: [.milliseconds], width: .abbreviated)))")
        }
    }

    func streamingDemo() async throws {
        let started = ContinuousClock.now
        func elapsed() -> String {
            let milliseconds = Int((ContinuousClock.now - started) / .milliseconds(1))
            return "+\(milliseconds) ms".padding(toLength: 10, withPad: " ", startingAt: 0)
        }
        if let sse {
            let events = KonexClient(baseURL: sse)
            let stream = try await events.request("/events?n=5&gap_ms=150").validate().stream(idleTimeout: .seconds(10))
            for try await event in stream.events() { print("\(elapsed()) id \(event.id ?? "-"): \(event.data)") }
        } else if live {
            struct Line: Decodable, Sendable { let id: Int }
            let stream = try await client.request("/stream/3").validate().stream()
            for try await line in stream.jsonLines(decoding: Line.self) { print("\(elapsed()) JSON line \(line.id)") }
        } else {
            struct Delta: Decodable, Sendable { let text: String }
            let stream = try await client.request("/chat/stream").validate().stream()
            print("head: \(stream.statusCode) \(stream.headers["Content-Type"] ?? "")")
            for try await delta in stream.events(decoding: Delta.self, until: "[DONE]") {
                print("\(elapsed()) \(delta.text)")
            }
        }
    }

    func productionDemo() async throws {
        /// Counts what reaches the transport, to show what the interceptors saved.
        struct Counting: Transport {
            let inner: any Transport
            let calls = Lock(0)
            func send(_ request: TransportRequest, context: TransportContext) async throws -> (
                ResponseHead, ResponseBody
            ) {
                calls.withLock { $0 += 1 }
                return try await inner.send(request, context: context)
            }
        }
        let counting = Counting(inner: client.transport)
        let api = KonexClient(
            baseURL: client.baseURL, headers: client.headers, transport: counting,
            interceptors: [HTTPCache(), RequestCoalescer(), ConcurrencyLimit(perHost: 4)])
        let first = try await api.request("/cache/60").validate().response()
        let second = try await api.request("/cache/60").validate().response()
        print("GET /cache/60 twice: \(first.source), then \(second.source) (Age \(second.headers["Age"] ?? "-"))")
        let burst = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<10 {
                group.addTask { try await api.request("/delay/1").validate().response().statusCode == 200 }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        let offline = try await api.request("/cache/60").cachePolicy(.returnCacheDataDontLoad).response()
        print("10 identical GET /delay/1 at once: \(burst) answers")
        print("offline, from the cache: \(offline.statusCode) \(offline.source)")
        print("transport calls for those 13 requests: \(counting.calls.value)")
    }

    func interceptionDemo() async throws {
        /// App code as apps write it: the screen makes its own client and takes no transport.
        struct SlideshowScreen {
            let client = KonexClient(baseURL: URL(string: "https://httpbin.org")!)
            func headline() async throws -> String {
                let show = try await client.request("/json").validate().responseObject(
                    of: Slideshow.self, atKeyPath: "slideshow")
                return "\(show.title) by \(show.author)"
            }
        }
        let recorded = try FixtureTransport(
            directory: FixtureDirectory(besides: #filePath, named: "Recorded"), clock: ImmediateClock())
        let headline = try await KonexClient.withTransport(recorded) { try await SlideshowScreen().headline() }
        print("the screen's own client, intercepted: \(headline)")
        print("served from Recorded/httpbin.har: \(recorded.mock.requests.map { "\($0.method) \($0.path)" })")
        print("in a test, one line does it: @Test(.fixtures(\"httpbin\")) or @Test(.mocked { … })")
    }

    func testingDemo() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/slow"), MockResponse.json(Note(text: "worth the wait")).delayed(by: .seconds(3)))
        let client = KonexClient.mocked(mock, clock: clock)
        let pending = Task { try await client.request("/slow").responseObject(of: Note.self) }
        try await clock.waitForSleepers()
        print("a 3-second endpoint is waiting on the manual clock…")
        clock.advance(by: .seconds(3))
        print("advanced 3 s instantly → \(try await pending.value.text)")
        print("journal: \(mock.requests.map { "\($0.method) \($0.path)" })")
        do { _ = try await client.request("/nope").responseData() } catch let error as KonexError {
            print("unmatched requests fail loudly:\n\(error.underlyingError.map { "\($0)" } ?? "")")
        }

        // Waiting for the network: offline, the request waits for the path instead of failing or retrying.
        mock.stub(
            MockEndpoint(.get("/feed"), responses: [.fault(.notConnected)]).inScenario("network", whenState: "started"))
        mock.stub(
            MockEndpoint(.get("/feed"), responses: [.json(Note(text: "fresh"))]).inScenario("network", whenState: "up"))
        let monitor = MockConnectivityMonitor(.offline)
        client.retriers = [
            ConnectivityRetrier(monitor: monitor, maximumWait: .seconds(60), clock: clock), RetryPolicy(),
        ]
        let before = mock.requestCount
        let feed = Task { try await client.request("/feed").responseObject(of: Note.self) }
        try await monitor.waitForWaiters()
        clock.advance(by: .seconds(45))
        print("offline: \(mock.requestCount - before) attempt, then 45 s of manual time waiting for the path, no retry")
        mock.setState("up", ofScenario: "network")
        monitor.set(.online)
        print("the path is back → \(try await feed.value.text) (\(mock.requestCount - before) attempts in all)")
    }
}

/// Records plugin events in order.
final class Recorder: Sendable {
    private let lock = Lock<[String]>([])
    func add(_ event: String) { lock.withLock { $0.append(event) } }
    var events: [String] { lock.value }
}

struct Announce: KonexPlugin {
    let level: String
    let recorder: Recorder
    func didSendRequest(_ request: TransportRequest) async { recorder.add("\(level) sees request") }
    func didReceiveResponse(_ result: Result<ReceivedResponse, KonexError>, for request: TransportRequest) async {
        recorder.add("\(level) sees response")
    }
}
