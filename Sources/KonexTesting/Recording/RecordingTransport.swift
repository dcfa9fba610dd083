import Foundation
import Konex

/// Wraps a live transport, replays a HAR fixture, and records what is missing according to a ``RecordMode``.
///
/// ```swift
/// let recorder = try RecordingTransport(
///     live: URLSessionTransport(), fixture: fixtures.url("posts.har"), mode: .once)
/// let client = KonexClient(baseURL: api, transport: recorder)
/// ```
/// Secrets are redacted before anything is written (see `Redaction`), the file is written atomically
/// (a temporary file renamed into place, so a failed write leaves the old fixture untouched), and recording
/// is refused when `CI=true`.
///
/// A streamed response (`stream()`) is recorded as one entry with the body as it arrived and its chunk timings in
/// `_konex.chunks`; it is written when the stream ends, fails or is cancelled (an endless stream keeps what
/// arrived). It replays as a stream: an event stream event by event, with the recorded pacing when
/// `replaysRecordedPacing` is set.
public actor RecordingTransport: Transport {
    /// The live transport recorded from.
    public let live: any Transport
    /// The HAR file.
    public let fixture: URL
    /// The mode in force (code, overridden by `KONEX_RECORD_MODE`).
    public let mode: RecordMode
    /// What is scrubbed before writing; `nil` scrubs what the recording client's redaction hides
    /// (`Redaction.current`, read as each request is sent).
    public let redaction: Redaction?

    private let existedAtStart: Bool
    let replay: MockTransport
    private var archive: HAR
    private let isCI: Bool
    let now: @Sendable () -> Date

    /// Creates a recorder.
    /// - Parameters:
    ///   - live: The real transport.
    ///   - fixture: The `.har` file to replay and write.
    ///   - mode: The record mode; `KONEX_RECORD_MODE` overrides it.
    ///   - redaction: What to scrub; `nil` (the default) for what the client's redaction hides.
    ///   - environment: The process environment (injectable for tests).
    ///   - now: The clock for `startedDateTime` (injectable for deterministic files).
    ///   - replaysRecordedPacing: Whether replayed streams keep the recorded time between chunks.
    ///   - clock: What a replay's pacing waits on.
    /// - Throws: ``FixtureError`` when an existing fixture is malformed.
    public init(
        live: any Transport, fixture: URL, mode: RecordMode = .none, redaction: Redaction? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        now: @escaping @Sendable () -> Date = Date.init, replaysRecordedPacing: Bool = false,
        clock: any Clock<Duration> = ContinuousClock()
    ) throws {
        let mode = environment[RecordMode.environmentKey].flatMap(RecordMode.init(rawValue:)) ?? mode
        let existed = FileManager.default.fileExists(atPath: fixture.path)
        let loaded = existed && mode != .all ? try HAR.load(from: fixture) : HAR(log: HAR.Log())
        let replay = MockTransport(clock: replaysRecordedPacing ? clock : ImmediateClock())
        for endpoint in try loaded.endpoints(allowRepeats: false, pacing: replaysRecordedPacing) {
            replay.stub(endpoint)
        }
        replay.stubWebSockets(from: loaded, pacing: replaysRecordedPacing)
        self.live = live
        self.fixture = fixture
        self.mode = mode
        self.redaction = redaction
        self.isCI = environment["CI"] == "true"
        self.now = now
        self.existedAtStart = existed
        self.archive = loaded
        self.replay = replay
    }

    /// The entries recorded or loaded so far.
    public var entries: [HAR.Entry] { archive.log.entries }

    /// The live transport's redirect policy, so wrapping a transport keeps how its client follows redirects.
    public nonisolated var redirectPolicy: RedirectPolicy { live.redirectPolicy }

    /// Any settings when only replaying (``RecordMode/none``: no connection is made); else whatever ``live`` applies,
    /// since a recording goes through it.
    /// - Parameter tls: The client's settings.
    public nonisolated func checkCanApply(_ tls: TLSSettings) throws {
        if mode != .none { try live.checkCanApply(tls) }
    }

    /// Loaded entries that were never replayed, as `METHOD URL`.
    public var unusedEntries: [String] { replay.unusedEndpoints.map(\.description) }

    /// Replays the recorded answer, or sends `request` live and records it: a body that arrives whole at once, one
    /// that streams (or a download) when it ends, fails or is cancelled, with its chunk timings.
    public func send(_ request: TransportRequest, context: TransportContext) async throws -> (
        ResponseHead, ResponseBody
    ) {
        let urlRequest = request.urlRequest
        if let recorded = try await replayed(urlRequest, { try await replay.send(request, context: context) }) {
            return recorded
        }
        let redaction = self.redaction ?? .current
        let started = now()
        let begin = ContinuousClock.now
        let (head, body) = try await live.send(request, context: context)
        let response = head
        if let data = body.data {
            try record(
                urlRequest, response, body: data, startedAt: started, duration: ContinuousClock.now - begin,
                redaction: redaction)
            return (head, body)
        }
        let headArrived = ContinuousClock.now
        let forwarding = Lock<Task<Void, Never>?>(nil)
        let (forwarded, out) = ByteStream.makeStream(bufferLimit: context.bufferLimit) {
            forwarding.value?.cancel()
            body.cancel()
        }
        forwarding.value = Task {
            var received = Data()
            var chunks: [HAR.ChunkTiming] = []
            var failure: (any Error)?
            do {
                for try await chunk in body {
                    received.append(chunk)
                    let microseconds = ((ContinuousClock.now - headArrived) / .microseconds(1)).rounded()
                    chunks.append(HAR.ChunkTiming(bytes: chunk.count, atMilliseconds: microseconds / 1_000))
                    if await !out.send(chunk) { break }
                }
            } catch {
                failure = error
            }
            // Whatever arrived is recorded, also when the reader cancelled an endless stream.
            do {
                try self.record(
                    urlRequest, response, body: received, startedAt: started, duration: ContinuousClock.now - begin,
                    redaction: redaction, chunks: chunks)
            } catch {
                failure = failure ?? error
            }
            if let failure { out.finish(throwing: failure) } else { out.finish() }
        }
        return (head, ResponseBody(forwarded))
    }

    /// The recorded answer, when the fixture has one for `request` and the mode replays; `nil` when the request
    /// goes live to be recorded (after checking that the mode and the environment allow it).
    func replayed<Answer>(_ request: URLRequest, _ replay: () async throws -> Answer) async throws -> Answer? {
        if mode != .all {
            do {
                return try await replay()
            } catch let unmatched as UnmatchedRequestError {
                try checkMayRecord(unmatched)
            }
        }
        try checkNotCI(request)
        return nil
    }

    private func checkMayRecord(_ unmatched: UnmatchedRequestError) throws {
        let mayRecord: Bool
        switch mode {
        case .none: mayRecord = false
        case .once: mayRecord = !existedAtStart
        case .newEpisodes: mayRecord = true
        case .all: mayRecord = true
        }
        guard mayRecord else { throw missingFixture(unmatched) }
    }

    private func checkNotCI(_ request: URLRequest) throws {
        if isCI {
            throw FixtureError(
                "refusing to record \(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "") into \(fixture.path) because CI=true; record locally and commit the fixture"
            )
        }
    }

    /// Adds one redacted entry and writes the archive.
    func record(
        _ request: URLRequest, _ response: ResponseHead, body: Data, startedAt: Date, duration: Duration,
        redaction: Redaction, chunks: [HAR.ChunkTiming]? = nil, webSocketMessages: [HAR.WebSocketMessage]? = nil
    ) throws {
        var entry = HAR.Entry(
            request: request, response: response, body: body, startedAt: startedAt, duration: duration)
        if let chunks { entry._konex = HAR.KonexInfo(chunks: chunks) }
        if let webSocketMessages {
            entry._resourceType = "websocket"
            entry._webSocketMessages = webSocketMessages.map { message in
                var redacted = message
                switch message.opcode {
                case 1:
                    let looksJSON = message.data.first == "{" || message.data.first == "["
                    redacted.data = redaction.body(
                        message.data, contentType: looksJSON ? "application/json" : "text/plain")
                case 2:
                    // Binary frames often carry JSON or a form too (and secrets in either): redacted as bytes.
                    guard let bytes = Data(base64Encoded: message.data) else { return message }
                    redacted.data = redaction.body(bytes, contentType: "application/octet-stream").data
                        .base64EncodedString()
                default: break
                }
                return redacted
            }
        }
        entry = redaction.apply(to: entry)
        var updated = archive
        updated.log.entries.append(entry)
        try write(updated, redaction: redaction)
        archive = updated
    }

    private func missingFixture(_ unmatched: UnmatchedRequestError) -> FixtureError {
        let request = unmatched.request
        let what = "\(request.httpMethod) \(request.url.absoluteString)"
        if existedAtStart {
            return FixtureError(
                "no recorded entry for \(what) in \(fixture.path) (mode \(mode.rawValue)). To record it, run the test once with \(RecordMode.environmentKey)=newEpisodes.\n\(unmatched)"
            )
        }
        return FixtureError(
            "missing fixture \(fixture.path) for \(what) (mode \(mode.rawValue)). To record it, run the test once with \(RecordMode.environmentKey)=once (never with CI=true), then commit the file."
        )
    }

    /// Redacted, scanned, then written atomically: the old file survives any failure.
    private func write(_ archive: HAR, redaction: Redaction) throws {
        let data = try archive.encoded()
        if let secret = redaction.leakedSecret(in: archive, encoded: data) {
            // Not one character of it: the message lands in logs and CI output, which is what the refusal protects.
            let position = (redaction.secrets.firstIndex(of: secret) ?? 0) + 1
            throw FixtureError(
                "refusing to write \(fixture.path): it still contains registered secret number \(position) of \(redaction.secrets.count) (Redaction.secrets); add a redaction rule for it"
            )
        }
        let directory = fixture.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try data.write(to: fixture, options: .atomic)
        } catch {
            throw FixtureError("cannot write fixture \(fixture.path): \(error.localizedDescription)")
        }
    }
}
