import Foundation
import Konex

/// What a mock endpoint answers: a status, headers and a body, an optional delay, or a fault.
///
/// ```swift
/// .json(post)                                  // 200, application/json
/// .json(APIError(code: "gone"), status: 410)
/// .string("pong"), .status(204), .file(fixtures.url("posts.json"))
/// .json(report).delayed(by: .seconds(3))
/// .fault(.connectionLost)
/// ```
public struct MockResponse: Sendable {
    enum Body: Sendable {
        case data(Data)
        case file(URL)
        case failed(String)
        case chunks([MockChunk], then: StreamEnding)
    }

    /// The status code.
    public var status: Int
    /// The response headers.
    public var headers: [String: String]

    /// The headers as a transport hands them over. A dictionary holds one `Set-Cookie`, so several cookies are
    /// written joined by `", "` (as HAR replay and Foundation join them); they come back apart, one field a line, as
    /// a server sends them.
    var headerFields: HTTPHeaders {
        guard headers.keys.contains(where: { $0.caseInsensitiveCompare("Set-Cookie") == .orderedSame }) else {
            return HTTPHeaders(headers)
        }
        var fields: [(name: String, value: String)] = []
        for (name, value) in headers {
            if name.caseInsensitiveCompare("Set-Cookie") == .orderedSame {
                fields += SetCookieLines.split(value).map { (name: name, value: $0) }
            } else {
                fields.append((name, value))
            }
        }
        return HTTPHeaders(keepingRepeats: fields)
    }
    var body: Body
    /// A delay before this response, added to the endpoint's and the transport's.
    public var delay: Delay?
    /// A fault to produce instead of (or on top of) the response.
    public var fault: Fault?

    init(status: Int, headers: [String: String], body: Body, delay: Delay? = nil, fault: Fault? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.fault = fault
    }

    /// An empty body with `status`.
    public static func status(_ status: Int, headers: [String: String] = [:]) -> MockResponse {
        MockResponse(status: status, headers: headers, body: .data(Data()))
    }

    /// Raw bytes.
    public static func data(
        _ data: Data, status: Int = 200, contentType: String = "application/octet-stream",
        headers: [String: String] = [:]
    ) -> MockResponse {
        MockResponse(status: status, headers: ["Content-Type": contentType].merging(headers) { $1 }, body: .data(data))
    }

    /// UTF-8 text.
    public static func string(
        _ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8",
        headers: [String: String] = [:]
    ) -> MockResponse {
        data(Data(text.utf8), status: status, contentType: contentType, headers: headers)
    }

    /// An `Encodable` value as JSON (keys sorted). An encoding failure is reported when the endpoint is hit.
    public static func json(
        _ value: some Encodable, status: Int = 200, headers: [String: String] = [:], encoder: JSONEncoder? = nil
    ) -> MockResponse {
        let encoder =
            encoder
            ?? {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                return encoder
            }()
        let allHeaders = ["Content-Type": "application/json"].merging(headers) { $1 }
        do {
            return MockResponse(status: status, headers: allHeaders, body: .data(try encoder.encode(value)))
        } catch {
            return MockResponse(
                status: status, headers: allHeaders, body: .failed("the mock body could not be encoded: \(error)"))
        }
    }

    /// A file's contents, read when the endpoint is hit; the content type follows the file extension.
    public static func file(
        _ url: URL, status: Int = 200, contentType: String? = nil, headers: [String: String] = [:]
    ) -> MockResponse {
        let type = contentType ?? MediaTypes.forExtension(url.pathExtension)
        return MockResponse(status: status, headers: ["Content-Type": type].merging(headers) { $1 }, body: .file(url))
    }

    /// A body that arrives in chunks, each after its delay on the transport's clock, then ends as `ending` says.
    ///
    /// Read with `stream()`, the chunks arrive one by one (a ManualClock test of "first token after 200 ms, then one
    /// every 20 ms" runs in microseconds); read whole, the response waits for all of them.
    /// ```swift
    /// mock.stub(.get("/tokens"), .chunks([.text("a", after: .milliseconds(200)), .text("b", after: .milliseconds(20))]))
    /// ```
    public static func chunks(
        _ chunks: [MockChunk], status: Int = 200, contentType: String = "application/octet-stream",
        headers: [String: String] = [:], then ending: StreamEnding = .finish
    ) -> MockResponse {
        MockResponse(
            status: status, headers: ["Content-Type": contentType].merging(headers) { $1 },
            body: .chunks(chunks, then: ending))
    }

    /// Server-Sent Events (`text/event-stream`), the first after `firstAfter`, then one every `interval`.
    /// ```swift
    /// mock.stub(.get("/feed"), .events(deltas, firstAfter: .milliseconds(200), every: .milliseconds(20)))
    /// mock.stub(.get("/flaky"), .events(three, then: .connectionLost))      // a fault mid-stream
    /// ```
    public static func events(
        _ events: [ServerSentEvent], firstAfter: Duration = .zero, every interval: Duration = .zero,
        headers: [String: String] = [:], then ending: StreamEnding = .finish
    ) -> MockResponse {
        let chunks = events.enumerated().map { index, event in
            MockChunk(Data(event.wireFormat.utf8), after: index == 0 ? firstAfter : interval)
        }
        return .chunks(chunks, contentType: "text/event-stream", headers: headers, then: ending)
    }

    /// A fault instead of a response.
    public static func fault(_ fault: Fault) -> MockResponse {
        MockResponse(status: 0, headers: [:], body: .data(Data()), fault: fault)
    }

    /// This response after an extra delay.
    public func delayed(by duration: Duration) -> MockResponse { delayed(.fixed(duration)) }

    /// This response after an extra delay.
    public func delayed(_ delay: Delay) -> MockResponse {
        var copy = self
        copy.delay = delay
        return copy
    }

    /// This response with a fault applied to it (e.g. `.truncatedBody`).
    public func withFault(_ fault: Fault) -> MockResponse {
        var copy = self
        copy.fault = fault
        return copy
    }

    /// The body's bytes.
    func bodyData() throws -> Data {
        switch body {
        case .data(let data): return data
        case .file(let url):
            do { return try Data(contentsOf: url) } catch {
                throw MockConfigurationError(
                    "the mock body file \(url.path) cannot be read: \(error.localizedDescription)")
            }
        case .failed(let reason): throw MockConfigurationError(reason)
        case .chunks(let chunks, _): return chunks.reduce(into: Data()) { $0.append($1.data) }
        }
    }
}

/// A mock was set up in a way that cannot answer (an unreadable body file, an unencodable value).
public struct MockConfigurationError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// How long a mock waits before answering; all waiting goes through the transport's clock.
public enum Delay: Sendable, Hashable {
    /// No wait.
    case none
    /// A fixed wait.
    case fixed(Duration)
    /// A wait drawn uniformly from the range by the transport's seeded generator (same seed, same delays).
    case random(ClosedRange<Duration>)
}

/// Something going wrong, on purpose.
public enum Fault: Sendable, Hashable {
    /// `URLError(.timedOut)`.
    case timeout
    /// `URLError(.notConnectedToInternet)`.
    case notConnected
    /// `URLError(.networkConnectionLost)`.
    case connectionLost
    /// `URLError(.cannotConnectToHost)`: nothing listening.
    case connectionRefused
    /// `URLError(.cancelled)`, as if the system cancelled the task.
    case cancelled
    /// The response arrives with only the first half of its body.
    case truncatedBody
    /// The response arrives with a body that is not valid JSON.
    case malformedJSON
    /// The request never completes; it ends only when its task is cancelled.
    case hang

    var urlErrorCode: URLError.Code? {
        switch self {
        case .timeout: .timedOut
        case .notConnected: .notConnectedToInternet
        case .connectionLost: .networkConnectionLost
        case .connectionRefused: .cannotConnectToHost
        case .cancelled: .cancelled
        case .truncatedBody, .malformedJSON, .hang: nil
        }
    }
}

/// How many times an endpoint answers before it stops matching.
public enum Times: Sendable, Hashable {
    /// Every time (the last response of a sequence repeats).
    case always
    /// Exactly once.
    case once
    /// `n` times.
    case times(Int)

    var limit: Int? {
        switch self {
        case .always: nil
        case .once: 1
        case .times(let count): count
        }
    }
}

enum MediaTypes {
    static func forExtension(_ ext: String) -> String {
        switch ext.lowercased() {
        case "json", "har": "application/json"
        case "txt": "text/plain; charset=utf-8"
        case "html": "text/html; charset=utf-8"
        case "xml": "application/xml"
        case "sse": "text/event-stream"
        case "png": "image/png"
        case "jpg", "jpeg": "image/jpeg"
        default: "application/octet-stream"
        }
    }
}
