import Foundation

/// When a ``RecordingTransport`` goes to the live transport and writes what it sees (as in VCR).
public enum RecordMode: String, Sendable, Hashable, CaseIterable {
    /// Replay only; a request without a fixture is an error. The default, and the only mode CI allows.
    case none
    /// Record when the fixture file does not exist yet; replay once it does.
    case once
    /// Replay what matches; record requests that have no fixture yet.
    case newEpisodes
    /// Re-record everything, replacing the file.
    case all

    /// The environment variable that overrides the mode set in code: `KONEX_RECORD_MODE=once swift test`.
    public static let environmentKey = "KONEX_RECORD_MODE"

    /// The mode from `KONEX_RECORD_MODE` when it is set, else `fallback`.
    public static func fromEnvironment(default fallback: RecordMode = .none) -> RecordMode {
        ProcessInfo.processInfo.environment[environmentKey].flatMap(RecordMode.init(rawValue:)) ?? fallback
    }
}
