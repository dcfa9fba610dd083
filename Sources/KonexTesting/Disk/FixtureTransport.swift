import Foundation
import Konex

/// A disk-backed `Transport`: serves the fixtures in a directory through the same matching engine as
/// ``MockTransport`` (delays, faults, journal, unmatched-request diagnostics).
///
/// Two kinds of fixture, freely mixed:
/// - **Convention files**: `<path>.<method>.<ext>` answers `METHOD /<path>` (`posts.get.json` → `GET /posts`,
///   `posts/1.delete.json` → `DELETE /posts/1`, `index.get.json` → `GET /`). An optional sidecar
///   `<path>.<method>.meta.json` sets `status`, `headers`, `delayMilliseconds`, `fault`, `query` (required
///   query items; such fixtures are tried before the plain one) and `path` (serve this file at another path).
///   A `.sse` file (`feed.get.sse`) is a recorded `text/event-stream`: read with `stream()`, its events arrive one by
///   one, the first after `delayMilliseconds`, then one every `eventIntervalMilliseconds`.
/// - **HAR files** (`*.har`, e.g. recorded by ``RecordingTransport``): each entry replays by method, path and
///   query; identical requests answer in recorded order.
///
/// ```swift
/// let fixtures = try FixtureTransport(directory: FixtureDirectory(besides: #filePath), clock: ImmediateClock())
/// let client = KonexClient(baseURL: URL(string: "https://api.example.com")!, transport: fixtures)
/// ```
public final class FixtureTransport: Transport {
    /// The directory served.
    public let directory: FixtureDirectory
    /// The engine behind it: add endpoints to it, or inspect its journal.
    public let mock: MockTransport
    /// HAR entries that could not be replayed (a failed request with status 0, a `data:` URL), by file.
    public let skippedEntries: [(file: String, entry: HAR.SkippedEntry)]

    /// Loads every fixture in `directory`.
    /// - Parameters:
    ///   - directory: The fixture directory.
    ///   - clock: What delays wait on.
    ///   - delay: A delay for every response from the directory.
    ///   - allowRepeats: Whether HAR entries answer again after their recorded count (the last repeats); `false`
    ///     by default: identical requests are answered in recorded order, once each.
    ///   - matching: Which parts of a request pick a HAR entry; ``ReplayMatching/default`` by default.
    ///   - passthrough: Where a request no fixture answers goes (e.g. `URLSessionTransport()`); `nil` to fail it
    ///     with the nearest fixtures named.
    /// - Throws: ``FixtureError`` for a malformed HAR or metadata file, naming the file and field.
    public init(
        directory: FixtureDirectory, clock: any Clock<Duration> = ContinuousClock(), delay: Delay = .none,
        allowRepeats: Bool = false, matching: ReplayMatching = .default, passthrough: (any Transport)? = nil
    ) throws {
        self.passthrough = passthrough
        self.directory = directory
        mock = MockTransport(clock: clock, delay: delay)
        var general: [MockEndpoint] = []
        var skipped: [(file: String, entry: HAR.SkippedEntry)] = []
        for file in try directory.files() {
            if file.hasSuffix(".har") {
                let (archive, left) = try HAR.read(from: directory.url(file))
                skipped += left.map { (file, $0) }
                for endpoint in try archive.endpoints(allowRepeats: allowRepeats, matching: matching) {
                    mock.stub(endpoint)
                }
            } else if !file.hasSuffix(".meta.json"),
                let (endpoint, isSpecific) = try Self.conventionEndpoint(for: file, in: directory)
            {
                // Fixtures that constrain the query are tried before the plain fixture for the same path.
                if isSpecific { mock.stub(endpoint) } else { general.append(endpoint) }
            }
        }
        for endpoint in general { mock.stub(endpoint) }
        skippedEntries = skipped
    }

    /// Where unmatched requests go, if anywhere.
    public let passthrough: (any Transport)?

    /// The passthrough's redirect policy, or `RedirectPolicy.follow`: fixtures are followed like live answers.
    public var redirectPolicy: RedirectPolicy { passthrough?.redirectPolicy ?? .follow }

    /// Any settings for the fixtures (no connection is made), and whatever ``passthrough`` applies.
    /// - Parameter tls: The client's settings.
    public func checkCanApply(_ tls: TLSSettings) throws {
        try passthrough?.checkCanApply(tls)
    }

    /// Answers from the fixtures, else from ``passthrough`` (with the same context: a download or a stream goes on
    /// as one), else fails naming the nearest fixtures.
    public func send(_ request: TransportRequest, context: TransportContext) async throws -> (
        ResponseHead, ResponseBody
    ) {
        do {
            return try await mock.send(request, context: context)
        } catch let unmatched as UnmatchedRequestError {
            guard let passthrough else { throw unmatched }
            return try await passthrough.send(request, context: context)
        }
    }

    /// Throws when a fixture (or HAR entry) was never used: for a test that should exercise all it loads.
    public func verifyAllUsed() throws { try mock.verifyAllEndpointsUsed() }

    /// Serves the fixture file at `relativePath` for `matcher`, after `delay`: one endpoint's own file and pace.
    /// - Throws: ``FixtureError`` when the path escapes the directory or the file does not exist.
    public func serve(_ relativePath: String, for matcher: RequestMatcher, status: Int = 200, delay: Duration = .zero)
        throws
    {
        let url = try directory.url(relativePath)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw FixtureError("fixture \(relativePath) does not exist in \(directory.root.path)")
        }
        mock.stub(MockEndpoint(matcher, responses: [.file(url, status: status)], delay: .fixed(delay)))
    }

    private struct Metadata: Decodable {
        var status: Int?
        var headers: [String: String]?
        var delayMilliseconds: Int?
        var eventIntervalMilliseconds: Int?
        var fault: String?
        var query: [String: String]?
        var path: String?
    }

    private static let faults: [String: Fault] = [
        "timeout": .timeout, "notConnected": .notConnected, "connectionLost": .connectionLost,
        "connectionRefused": .connectionRefused, "truncatedBody": .truncatedBody, "malformedJSON": .malformedJSON,
        "hang": .hang,
    ]

    /// A `.sse` fixture as a stream of its events (blocks ended by a blank line), paced as given.
    private static func eventStream(at url: URL, first: Duration = .zero, interval: Duration = .zero) throws
        -> MockResponse
    {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw FixtureError("cannot read the event-stream fixture \(url.path) as UTF-8 text")
        }
        let blocks = text.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n\n")
            .filter { !$0.isEmpty }
        let chunks = blocks.enumerated().map { index, block in
            MockChunk.text(block + "\n\n", after: index == 0 ? first : interval)
        }
        return .chunks(chunks, contentType: "text/event-stream")
    }

    private static func conventionEndpoint(for file: String, in directory: FixtureDirectory) throws
        -> (MockEndpoint, isSpecific: Bool)?
    {
        let parts = file.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3 else { return nil }
        let method = parts[parts.count - 2].uppercased()
        guard ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"].contains(method) else { return nil }
        let stem = parts.dropLast(2).joined(separator: ".")
        let path = stem == "index" ? "/" : "/" + (stem.hasSuffix("/index") ? String(stem.dropLast(6)) : stem)
        var matcher = RequestMatcher(method: HTTPMethod(method), path: path)
        let isEventStream = file.hasSuffix(".sse")
        var response = isEventStream ? try Self.eventStream(at: directory.url(file)) : .file(try directory.url(file))
        let metaPath = "\(stem).\(parts[parts.count - 2]).meta.json"
        let metaURL = try directory.url(metaPath)
        if FileManager.default.fileExists(atPath: metaURL.path) {
            let meta: Metadata
            do {
                meta = try JSONDecoder().decode(Metadata.self, from: Data(contentsOf: metaURL))
            } catch let error as DecodingError {
                throw FixtureError("malformed fixture metadata \(metaURL.path): \(FixtureError.describe(error))")
            }
            response.status = meta.status ?? 200
            response.headers.merge(meta.headers ?? [:]) { $1 }
            if isEventStream {
                let interval = Duration.milliseconds(meta.eventIntervalMilliseconds ?? 0)
                response = try Self.eventStream(
                    at: directory.url(file), first: .milliseconds(meta.delayMilliseconds ?? 0), interval: interval)
            } else if let milliseconds = meta.delayMilliseconds {
                response.delay = .fixed(.milliseconds(milliseconds))
            }
            if let name = meta.fault {
                guard let fault = Self.faults[name] else {
                    throw FixtureError(
                        "unknown fault \"\(name)\" in \(metaURL.path); known: \(Self.faults.keys.sorted().joined(separator: ", "))"
                    )
                }
                response.fault = fault
            }
            if let path = meta.path { matcher.path = path }
            if let query = meta.query { matcher = matcher.query(query) }
            return (MockEndpoint(matcher, responses: [response]), meta.query != nil)
        }
        return (MockEndpoint(matcher, responses: [response]), false)
    }
}
