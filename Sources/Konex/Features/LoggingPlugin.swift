import Foundation

/// Logs requests and responses, with secrets redacted, to a sink you choose (standard error by default).
///
/// ```swift
/// client.plugins.append(LoggingPlugin(level: .bodies))
/// client.request(Login()).withPlugin(.logging(level: .headers) { line in logger.debug("\(line)") })
/// ```
/// `Authorization`, cookies, API keys, token-like query items and password/token JSON fields are redacted by
/// default; extend ``Redaction`` for your own.
public struct LoggingPlugin: KonexPlugin {
    /// How much is logged.
    public enum Level: Int, Sendable, Comparable {
        /// The request line and the status line with timing.
        case basic
        /// Plus headers.
        case headers
        /// Plus bodies, up to `bodyLimit` bytes.
        case bodies

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// How much is logged.
    public let level: Level
    /// The most body bytes logged.
    public let bodyLimit: Int
    /// What is redacted; `nil` hides what the client's redaction hides (``Redaction/current``).
    public let redaction: Redaction?
    let sink: @Sendable (String) -> Void

    /// Creates a logger.
    /// - Parameters:
    ///   - level: How much to log; `.basic` by default.
    ///   - bodyLimit: The most body bytes logged; 1,024 by default.
    ///   - redaction: What to hide; `nil` (the default) for what the client's redaction hides.
    ///   - sink: Where lines go; standard error by default.
    public init(
        level: Level = .basic, bodyLimit: Int = 1_024, redaction: Redaction? = nil,
        sink: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    ) {
        self.level = level
        self.bodyLimit = bodyLimit
        self.redaction = redaction
        self.sink = sink
    }

    /// The redaction in force: the one given, else the client's (read in the request's task).
    private var active: Redaction { redaction ?? .current }

    public func didSendRequest(_ request: TransportRequest) async {
        var lines = ["→ \(request.httpMethod) \(active.url(request.url.absoluteString))"]
        if level >= .headers { lines += headerLines(request.allHTTPHeaderFields ?? [:]) }
        if level >= .bodies, let body = request.httpBody, !body.isEmpty {
            lines.append(bodyLine(body, contentType: request.value(forHTTPHeaderField: "Content-Type")))
        }
        sink(lines.joined(separator: "\n"))
    }

    public func didReceiveResponse(_ result: Result<ReceivedResponse, KonexError>, for request: TransportRequest) async
    {
        let target = "\(request.httpMethod) \(active.url(request.url.absoluteString))"
        switch result {
        case .success(let received):
            let milliseconds = Double(received.timing.transport / .microseconds(1)) / 1_000
            var notes = ["\(String(format: "%.1f", milliseconds)) ms", "\(received.data.count) bytes"]
            if received.source != .network { notes.append("from \(received.source)") }
            if received.isShared { notes.append("shared") }
            if received.timing.queue > .zero {
                notes.append(
                    "queued \(String(format: "%.1f", Double(received.timing.queue / .microseconds(1)) / 1_000)) ms")
            }
            var lines = ["← \(received.response.statusCode) \(target) (\(notes.joined(separator: ", ")))"]
            if level >= .headers { lines += headerLines(received.response.headerFields) }
            if level >= .bodies, !received.data.isEmpty {
                lines.append(
                    bodyLine(received.data, contentType: received.response.value(forHTTPHeaderField: "Content-Type")))
            }
            sink(lines.joined(separator: "\n"))
        case .failure(let error):
            sink("✕ \(target): \(error.stage): \(active.text(error.message))")
        }
    }

    private func headerLines(_ headers: [String: String]) -> [String] {
        headerLines(HTTPHeaders(keepingRepeats: headers.map { ($0.key, $0.value) }))
    }

    /// Every line as it came (a repeated field is several lines), sorted by name, stable within a name.
    private func headerLines(_ headers: HTTPHeaders) -> [String] {
        headers.fields.enumerated()
            .sorted { ($0.element.name.lowercased(), $0.offset) < ($1.element.name.lowercased(), $1.offset) }
            .map { "  \($0.element.name): \(active.value(ofHeader: $0.element.name, $0.element.value))" }
    }

    /// The body redacted whole, then cut to `bodyLimit`: cutting first would leave JSON no parser reads, and its
    /// tokens logged raw.
    private func bodyLine(_ data: Data, contentType: String?) -> String {
        "  " + active.bodySnippet(data, contentType: contentType, limit: bodyLimit)
    }
}

extension KonexPlugin where Self == LoggingPlugin {
    /// A ``LoggingPlugin``.
    public static func logging(
        level: LoggingPlugin.Level = .basic, bodyLimit: Int = 1_024, redaction: Redaction? = nil,
        sink: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }
    ) -> LoggingPlugin {
        LoggingPlugin(level: level, bodyLimit: bodyLimit, redaction: redaction, sink: sink)
    }
}
