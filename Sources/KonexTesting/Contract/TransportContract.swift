import Foundation
import Konex

/// What every `Transport` must do, checked against a real httpbin-compatible server: one suite for Konex's
/// transports and for third-party ones.
///
/// Each check sends through the transport itself (not through a client), so it tests the transport alone. Faults
/// httpbin cannot produce (bodies of 64 MiB, a server that closes early, stalls or resets, informational responses)
/// come from a small server the run starts on 127.0.0.1 for itself. A
/// transport that cannot meet a check on a platform says so by name in ``knownLimits``, and the outcome reports it as
/// a known limit instead of hiding it.
///
/// A check that fails only on time (a cancellation that took over a second, a HEAD that took over three) is run again,
/// up to three times in all: a stalled machine can make a sound transport slow once, but a transport that really
/// waits is slow every time.
/// ```swift
/// let contract = TransportContract(transport: MyTransport(), server: URL(string: "http://127.0.0.1:8080")!)
/// for outcome in await contract.run() { #expect(outcome.isAcceptable, "\(outcome)") }
/// ```
public struct TransportContract: Sendable {
    /// One requirement: a name and what it checks.
    public struct Check: Sendable {
        /// The requirement, as a sentence.
        public let name: String
        let run: @Sendable (Context) async throws -> Void
    }

    /// What a check works with.
    struct Context: Sendable {
        let transport: any Transport
        /// The httpbin-compatible server.
        let server: URL
        /// The run's own fault server (``ContractServer``).
        let faults: URL

        /// A client over the transport, for the checks of what Konex does above it (redirects).
        let client: KonexClient

        init(transport: any Transport, server: URL, faults: URL) {
            self.transport = transport
            self.server = server
            self.faults = faults
            client = KonexClient(transport: transport)
        }
    }

    /// What one check found.
    public struct Outcome: Sendable, CustomStringConvertible {
        /// The check's name.
        public let name: String
        /// `nil` when it passed; else what went wrong.
        public let failure: String?
        /// Whether the transport declared this check a known limit.
        public let isKnownLimit: Bool
        /// How long the check took.
        public let duration: Duration

        /// Passed, or failed as declared.
        public var isAcceptable: Bool { failure == nil || isKnownLimit }

        public var description: String {
            let took = " (\(duration.formatted(.units(allowed: [.seconds, .milliseconds], fractionalPart: .hide))))"
            guard let failure else {
                return "✔ \(name)" + took + (isKnownLimit ? ", declared a known limit but it passed" : "")
            }
            return (isKnownLimit ? "◌ \(name)\(took): known limit: " : "✘ \(name)\(took): ") + failure
        }
    }

    /// The transport under test.
    public let transport: any Transport
    /// The httpbin-compatible server (its `/anything`, `/status`, `/redirect`, `/gzip`, `/stream`, `/delay` …).
    public let server: URL
    /// Names of checks this transport is known not to meet here, with the reason.
    public let knownLimits: [String: String]

    /// Names of checks not even attempted, with the reason: those that trap inside the platform's own code (and would
    /// take the test process down). Each is reported as a known limit that was not run.
    public let notRun: [String: String]

    /// Creates a contract run.
    /// - Parameters:
    ///   - transport: The transport under test.
    ///   - server: The base URL of an httpbin-compatible server.
    ///   - knownLimits: Check names the transport cannot meet on this platform, each with its reason.
    ///   - notRun: Check names that cannot be attempted on this platform (a trap in the platform's code), each with
    ///     its reason.
    public init(
        transport: any Transport, server: URL, knownLimits: [String: String] = [:], notRun: [String: String] = [:]
    ) {
        self.transport = transport
        self.server = server
        self.knownLimits = knownLimits
        self.notRun = notRun
    }

    /// Runs every check (or those named), one after another.
    /// - Parameter names: The checks to run; all when `nil`.
    /// - Returns: One outcome per check, in order.
    public func run(_ names: Set<String>? = nil) async -> [Outcome] {
        var outcomes: [Outcome] = []
        let faultServer: ContractServer
        do {
            faultServer = try ContractServer()
        } catch {
            return Self.checks.map {
                Outcome(
                    name: $0.name, failure: "no loopback fault server: \(error)", isKnownLimit: false, duration: .zero)
            }
        }
        let context = Context(transport: transport, server: server, faults: faultServer.url)
        for check in Self.checks where names?.contains(check.name) ?? true {
            if let reason = notRun[check.name] {
                outcomes.append(
                    Outcome(name: check.name, failure: "not run: \(reason)", isKnownLimit: true, duration: .zero))
                continue
            }
            let started = ContinuousClock.now
            var failure = await Self.failure(of: check, in: context, within: Self.checkLimit)
            // A known limit is expected to fail: running it again would only cost time.
            for _ in 1..<Self.timedAttempts where failure?.isTiming == true && knownLimits[check.name] == nil {
                failure = await Self.failure(of: check, in: context, within: Self.checkLimit)
            }
            outcomes.append(
                Outcome(
                    name: check.name, failure: failure?.description, isKnownLimit: knownLimits[check.name] != nil,
                    duration: started.duration(to: .now)))
        }
        withExtendedLifetime(faultServer) {}
        return outcomes
    }

    /// The longest a check may take before it is reported as hung: far above what the slowest takes on a loaded
    /// machine (64 MiB bodies under the thread sanitizer), so only a transport that never answers reaches it.
    static let checkLimit: Duration = .seconds(300)

    /// What `check` found: `nil` when it passed. A check still running after `limit` is cancelled and reported as
    /// hung, and the run goes on without waiting for it (a transport that deadlocks must not stop the whole run).
    static func failure(of check: Check, in context: Context, within limit: Duration) async -> Violation? {
        let (outcomes, report) = AsyncStream.makeStream(of: Violation?.self)
        let work = Task {
            do {
                try await check.run(context)
                report.yield(nil)
            } catch let violation as Violation {
                report.yield(violation)
            } catch {
                report.yield(Violation("\(error)"))
            }
        }
        let watchdog = Task {
            try await Task.sleep(for: limit)
            report.yield(Violation("no outcome after \(limit): the check hung, and was cancelled"))
            work.cancel()
        }
        var first = outcomes.makeAsyncIterator()
        let failure = await first.next() ?? Violation("no outcome")
        watchdog.cancel()
        report.finish()
        return failure
    }

    /// How many times a check that fails only on time is run before its failure stands.
    static let timedAttempts = 3

    /// A broken requirement.
    struct Violation: Error, CustomStringConvertible {
        let description: String
        /// Whether only the time it took was wrong: such a check is run again (see ``timedAttempts``).
        let isTiming: Bool
        init(_ description: String, isTiming: Bool = false) {
            self.description = description
            self.isTiming = isTiming
        }
    }

    static func require(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw Violation(message()) }
    }

    /// Requires a bound on time: a failure here is run again before it stands, since a loaded machine can stall a
    /// sound transport for seconds.
    static func requireInTime(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw Violation(message(), isTiming: true) }
    }

    static func request(
        _ server: URL, _ path: String, method: String = "GET", body: Data? = nil, timeout: TimeInterval? = nil
    ) -> URLRequest {
        var request = URLRequest(url: URL(string: server.absoluteString + path)!)
        request.httpMethod = method
        request.httpBody = body
        if let timeout { request.timeoutInterval = timeout }
        return request
    }

    /// Sends `request` for a body taken as it arrives.
    static func stream(_ request: URLRequest, over transport: any Transport, bufferLimit: Int) async throws -> (
        ResponseHead, ResponseBody
    ) {
        try await transport.send(
            TransportRequest(request), context: TransportContext(delivery: .incremental, bufferLimit: bufferLimit))
    }

    /// Sends `request` through `client` and requires the redirect rules to refuse it (a ``KonexError`` of stage
    /// `.redirect`); `what` names the request in the violation.
    static func requireRedirectRefused(_ request: URLRequest, through client: KonexClient, _ what: String) async throws
    {
        do {
            _ = try await client.request(request).response()
            throw Violation("\(what) was followed")
        } catch let error as KonexError {
            try require(error.stage == .redirect, "\(what): failed at \(error.stage): \(error)")
        }
    }

    /// Sends `request` and requires it to fail, within `limit`; returns the error.
    static func requireFailure(
        of request: URLRequest, through transport: any Transport, within limit: Duration, _ what: String
    ) async throws -> any Error {
        let started = ContinuousClock.now
        do {
            let (data, response) = try await transport.data(for: request)
            throw Violation("\(what): succeeded with \(response.statusCode) and \(data.count) B instead of failing")
        } catch let violation as Violation {
            throw violation
        } catch {
            let took = started.duration(to: .now)
            try requireInTime(took < limit, "\(what): failed, but only after \(took)")
            return error
        }
    }

    /// httpbin's `/redirect-to`, answering `status` with `Location: target`.
    static func redirectTo(
        _ server: URL, _ target: String, status: Int, method: String = "GET", body: Data? = nil
    ) -> URLRequest {
        let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? target
        return request(server, "/redirect-to?url=\(encoded)&status_code=\(status)", method: method, body: body)
    }

    static func json(_ data: Data) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw Violation("the body is not a JSON object: \(String(decoding: data.prefix(120), as: UTF8.self))")
        }
        return object
    }
}
