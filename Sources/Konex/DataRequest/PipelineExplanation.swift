import Foundation

/// The pipeline one request will run, in order, with the level each component came from: what ``DataRequest/explain(_:)``
/// returns.
///
/// Its `description` is written to be read; its properties are there to be tested.
/// ```text
/// GET https://api.example.com/posts (GetPosts), for response…
///   2. adapt      HeaderAdapter (client)
///   3. plugins    LoggingPlugin (client) → Timing (call site)
///   4. transport  HTTPCache (client) → ConcurrencyLimit (client) → URLSessionTransport
///   6. validate   StatusCodeValidator (call site)
///      retry      RetryPolicy (client)
///   7. process    KeyPathProcessor (request)
///   instruments   TracingInstrument, MetricsInstrument
///   clock         ContinuousClock · timeout 30.0 seconds (client)
/// ```
/// Only type names appear, never a component's values, so an explanation is safe to log (an adapter holding a token
/// shows as its type).
public struct PipelineExplanation: Sendable, CustomStringConvertible {
    /// Where a component was attached.
    public enum Level: String, Sendable, Hashable, CustomStringConvertible {
        /// On the ``KonexClient``: runs for every request, first.
        case client
        /// On the ``KonexRequest`` (`requestPlugins` and friends): after the client's.
        case request
        /// On the ``DataRequest`` chain (`withPlugin`, `validate`, …): last.
        case callSite = "call site"

        public var description: String { rawValue }
    }

    /// One component and where it came from.
    public struct Component: Sendable, Hashable, CustomStringConvertible {
        /// The component's type name.
        public let name: String
        /// Where it was attached.
        public let level: Level

        public var description: String { "\(name) (\(level))" }
    }

    /// Which terminal an explanation is for: they do not all run the same steps.
    public enum Terminal: String, Sendable, Hashable {
        /// The `response…` terminals (data, string, JSON, Decodable): every step.
        case response
        /// `download(to:)`: no interceptors, no processors.
        case download
        /// `stream()` and Server-Sent Events: no interceptors, no processors.
        case stream
    }

    /// The terminal explained.
    public let terminal: Terminal
    /// The method.
    public let method: HTTPMethod
    /// The URL as built, redacted by the client's ``Redaction``; `nil` when the request cannot be built.
    public let url: String?
    /// The endpoint's type name, when the request was made from a ``KonexRequest``.
    public let endpoint: String?
    /// The operation the call named (``DataRequest/operation(_:)``), if any.
    public let operationID: String?
    /// Adapt: adapters, in order.
    public let adapters: [Component]
    /// Steps 3 and 5: plugins, in order.
    public let plugins: [Component]
    /// Exchange: interceptors, outermost first (empty when the terminal skips them).
    public let interceptors: [Component]
    /// Exchange: the transport's type name.
    public let transport: String
    /// Whether the transport comes from a ``KonexClient/withTransport(_:clock:isolation:operation:)`` scope (a
    /// KonexTesting trait, say) instead of the client.
    public let transportIsScoped: Bool
    /// Verdict: validators, in order.
    public let validators: [Component]
    /// Verdict: retriers, in the order they are asked.
    public let retriers: [Component]
    /// Process: processors, in order (empty when the terminal skips them).
    public let processors: [Component]
    /// The client's instruments (tracing, metrics), by type name.
    public let instruments: [String]
    /// The type name of the clock that retries and stream timeouts wait on.
    public let clock: String
    /// The timeout and the level it came from; `nil` when the transport's default applies.
    public let timeout: (duration: Duration, level: Level)?
    /// What this terminal skips or refuses, and other surprises, in plain words.
    public let notes: [String]

    public var description: String {
        var lines = [
            "\(method.rawValue) \(url ?? "(cannot be built)")\(endpoint.map { " (\($0))" } ?? "")"
                + "\(operationID.map { ", operation \($0)" } ?? ""), for \(terminal)…"
        ]
        func line(_ label: String, _ items: [String], separator: String = " → ") {
            guard !items.isEmpty else { return }
            lines.append(
                "  " + label.padding(toLength: 14, withPad: " ", startingAt: 0) + items.joined(separator: separator))
        }
        line("2. adapt", adapters.map(\.description))
        line("3. plugins", plugins.map(\.description))
        line("4. transport", interceptors.map(\.description) + [transport + (transportIsScoped ? " (scoped)" : "")])
        line("6. validate", validators.map(\.description))
        line("   retry", retriers.map(\.description))
        line("7. process", processors.map(\.description))
        line("instruments", instruments, separator: ", ")
        let timeout = self.timeout.map { " · timeout \($0.duration) (\($0.level))" } ?? ""
        line("clock", [clock + timeout])
        lines += notes.map { "  note: \($0)" }
        return lines.joined(separator: "\n")
    }
}
