import Foundation
import Konex

/// A check of a fixture directory for CI: every fixture parses, HAR files are usable, no secret is left, nothing is
/// stale, and (given a test run's journal) nothing is unused. `swift run konex-fixtures <dir>` prints it.
///
/// ```swift
/// let report = FixtureReport.check(FixtureDirectory(url), maximumAge: 180, secrets: [token])
/// print(report.table)
/// if report.hasProblems { exit(1) }
/// ```
public struct FixtureReport: Sendable {
    /// One finding about one file.
    public struct Finding: Sendable, Hashable {
        /// How bad it is.
        public enum Severity: String, Sendable, Hashable, Comparable {
            case ok, note, problem
            public static func < (lhs: Severity, rhs: Severity) -> Bool {
                [.ok, .note, .problem].firstIndex(of: lhs)! < [.ok, .note, .problem].firstIndex(of: rhs)!
            }
        }

        /// The file, relative to the directory.
        public let file: String
        /// How bad it is.
        public let severity: Severity
        /// What was found.
        public let message: String
    }

    /// Every finding, file by file.
    public let findings: [Finding]

    /// Whether anything must be fixed (a parse failure, a secret, a stale or unused fixture).
    public var hasProblems: Bool { findings.contains { $0.severity == .problem } }

    /// Checks every file below `directory`.
    /// - Parameters:
    ///   - directory: The fixture directory.
    ///   - maximumAge: Flag HAR entries recorded more than this many days before `now`; `nil` not to check.
    ///   - secrets: Values that must appear in no file (tokens, passwords), besides the headers `Redaction` covers.
    ///   - journal: Requests a test run made (`GET /posts?page=2`, one a line): fixtures none of them used are
    ///     listed; `nil` not to check.
    ///   - now: The current date (injectable for tests).
    public static func check(
        _ directory: FixtureDirectory, maximumAge: Int? = nil, secrets: [String] = [], journal: [String]? = nil,
        now: Date = Date()
    ) -> FixtureReport {
        var findings: [Finding] = []
        let files: [String]
        do { files = try directory.files() } catch {
            return FixtureReport(findings: [Finding(file: directory.root.path, severity: .problem, message: "\(error)")]
            )
        }
        for file in files {
            guard let url = try? directory.url(file), let data = try? Data(contentsOf: url) else {
                findings.append(Finding(file: file, severity: .problem, message: "cannot be read"))
                continue
            }
            var found: [Finding] = []
            // Named by its position, never by any of its characters: a report is read in logs and CI output.
            if let index = secrets.firstIndex(where: { !$0.isEmpty && data.range(of: Data($0.utf8)) != nil }) {
                found.append(
                    Finding(
                        file: file, severity: .problem,
                        message: "holds registered secret number \(index + 1) of \(secrets.count)"))
            }
            if file.hasSuffix(".har") {
                found += checkHAR(url, file: file, maximumAge: maximumAge, now: now)
            } else if file.hasSuffix(".json"),
                !data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }),
                (try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)) == nil
            {
                // An empty file is an empty body (a 204); anything else must be JSON.
                found.append(Finding(file: file, severity: .problem, message: "not valid JSON"))
            } else if file.hasSuffix(".sse"), String(data: data, encoding: .utf8) == nil {
                found.append(Finding(file: file, severity: .problem, message: "an event stream that is not UTF-8"))
            }
            findings += found.isEmpty ? [Finding(file: file, severity: .ok, message: "ok")] : found
        }
        if let journal { findings += unused(in: directory, journal: journal) }
        return FixtureReport(findings: findings)
    }

    private static func checkHAR(_ url: URL, file: String, maximumAge: Int?, now: Date) -> [Finding] {
        let archive: HAR
        let skipped: [HAR.SkippedEntry]
        do { (archive, skipped) = try HAR.read(from: url) } catch {
            return [Finding(file: file, severity: .problem, message: "\(error)")]
        }
        var found = skipped.map { Finding(file: file, severity: .note, message: "skipped \($0)") }
        for (index, entry) in archive.log.entries.enumerated() {
            for header in entry.request.headers + entry.response.headers
            where Redaction.default.isSecret(header: header.name) && header.value != Redaction.placeholder {
                found.append(
                    Finding(
                        file: file, severity: .problem, message: "entry \(index): header \(header.name) is not redacted"
                    ))
            }
            if let maximumAge, let date = LenientDate.parse(entry.startedDateTime),
                now.timeIntervalSince(date) > Double(maximumAge) * 86_400
            {
                let days = Int(now.timeIntervalSince(date) / 86_400)
                found.append(
                    Finding(
                        file: file, severity: .problem,
                        message: "entry \(index) is \(days) days old (limit \(maximumAge)): record it again"))
            }
        }
        if found.allSatisfy({ $0.severity != .problem }) {
            found.append(Finding(file: file, severity: .ok, message: "\(archive.log.entries.count) entries"))
        }
        return found
    }

    /// Fixtures that no journal line reached.
    private static func unused(in directory: FixtureDirectory, journal: [String]) -> [Finding] {
        guard let transport = try? FixtureTransport(directory: directory, clock: ImmediateClock(), allowRepeats: true)
        else {
            return []
        }
        for line in journal where !line.isEmpty {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let url = URL(string: "https://fixtures.invalid" + parts[1]) else { continue }
            let request = TransportRequest(head: RequestHead(method: HTTPMethod(String(parts[0])), url: url))
            _ = try? transport.mock.pick(for: request)
        }
        return transport.mock.unusedEndpoints.map {
            Finding(file: "(journal)", severity: .problem, message: "never used: \($0.description)")
        }
    }

    /// The findings as a plain-text table, worst first within each file, redacted like a log (a journal line or a
    /// skipped entry may name a URL with a token).
    public var table: String {
        let width = max(4, findings.map(\.file.count).max() ?? 4)
        var lines = ["file".padding(toLength: width, withPad: " ", startingAt: 0) + "  status   finding"]
        lines.append(String(repeating: "-", count: width) + "  -------  -------")
        for finding in findings {
            lines.append(
                finding.file.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                    + finding.severity.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0) + "  "
                    + Redaction.default.text(finding.message))
        }
        let problems = findings.filter { $0.severity == .problem }.count
        lines.append("")
        lines.append(problems == 0 ? "no problems" : "\(problems) problem(s)")
        return lines.joined(separator: "\n")
    }
}
