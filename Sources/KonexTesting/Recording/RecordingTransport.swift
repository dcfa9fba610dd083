import Foundation
import Konex

/// Wraps a live transport, replays a HAR fixture, and records what is missing according to a ``RecordMode``.
///
/// ```swift
/// let recorder = try RecordingTransport(
///     live: URLSessionTransport(), fixture: fixtures.url("posts.har"), mode: .once)
/// let client = KonexClient(baseURL: api, transport: recorder)
/// ```
/// Secrets are redacted before anything is written (see ``Redaction``), the file is written atomically
/// (a temporary file renamed into place, so a failed write leaves the old fixture untouched), and recording
/// is refused when `CI=true`.
public actor RecordingTransport: Transport {
    /// The live transport recorded from.
    public let live: any Transport
    /// The HAR file.
    public let fixture: URL
    /// The mode in force (code, overridden by `KONEX_RECORD_MODE`).
    public let mode: RecordMode
    /// What is scrubbed before writing.
    public let redaction: Redaction

    private let existedAtStart: Bool
    private let replay: MockTransport
    private var archive: HAR
    private let isCI: Bool
    private let now: @Sendable () -> Date

    /// Creates a recorder.
    /// - Parameters:
    ///   - live: The real transport.
    ///   - fixture: The `.har` file to replay and write.
    ///   - mode: The record mode; `KONEX_RECORD_MODE` overrides it.
    ///   - redaction: What to scrub; ``Redaction/default`` by default.
    ///   - environment: The process environment (injectable for tests).
    ///   - now: The clock for `startedDateTime` (injectable for deterministic files).
    /// - Throws: ``FixtureError`` when an existing fixture is malformed.
    public init(
        live: any Transport, fixture: URL, mode: RecordMode = .none, redaction: Redaction = .default,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        now: @escaping @Sendable () -> Date = Date.init
    ) throws {
        let mode = environment[RecordMode.environmentKey].flatMap(RecordMode.init(rawValue:)) ?? mode
        let existed = FileManager.default.fileExists(atPath: fixture.path)
        let loaded = existed && mode != .all ? try HAR.load(from: fixture) : HAR(log: HAR.Log())
        let replay = MockTransport(clock: ImmediateClock())
        for endpoint in try loaded.endpoints(allowRepeats: false) { replay.stub(endpoint) }
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

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let mayRecord: Bool
        switch mode {
        case .none: mayRecord = false
        case .once: mayRecord = !existedAtStart
        case .newEpisodes: mayRecord = true
        case .all: mayRecord = true
        }
        if mode != .all {
            do {
                return try await replay.send(request)
            } catch let unmatched as UnmatchedRequestError {
                guard mayRecord else { throw missingFixture(unmatched) }
            }
        }
        if isCI {
            throw FixtureError(
                "refusing to record \(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "") into \(fixture.path) because CI=true; record locally and commit the fixture"
            )
        }
        let started = now()
        let clock = ContinuousClock()
        let begin = clock.now
        let (data, response) = try await live.send(request)
        let entry = redaction.apply(
            to: HAR.Entry(
                request: request, response: response, body: data, startedAt: started, duration: clock.now - begin))
        var updated = archive
        updated.log.entries.append(entry)
        try write(updated)
        archive = updated
        return (data, response)
    }

    private func missingFixture(_ unmatched: UnmatchedRequestError) -> FixtureError {
        let request = unmatched.request
        let what = "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "")"
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
    private func write(_ archive: HAR) throws {
        let data = try archive.encoded()
        if let secret = redaction.leakedSecret(in: data) {
            throw FixtureError(
                "refusing to write \(fixture.path): it still contains a registered secret (\(secret.prefix(3))…); add a redaction rule for it"
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
