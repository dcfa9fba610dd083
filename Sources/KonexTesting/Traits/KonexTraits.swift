#if compiler(>=6.1) && canImport(Testing)
    import Foundation
    import Konex
    import Testing

    /// A Swift Testing trait that runs a test (or a whole suite) with every `KonexClient` sending through a test
    /// transport: a mock, a fixture directory, or a recorder. One line a test, and app code needs no rewiring.
    ///
    /// ```swift
    /// @Test(.mocked { $0.stub(.get("/me"), .json(me)) })
    /// func showsTheUser() async throws {
    ///     try await model.load()                          // KonexClient.shared inside gets the mock
    ///     #expect(MockTransport.current?.requests.count == 1)
    /// }
    ///
    /// @Suite(.fixtures("blog")) struct BlogTests { … }      // Fixtures/blog beside this file
    /// @Test(.recorded("github", mode: .once)) func repos() async throws { … }
    /// ```
    /// Endpoints (or recorded entries) never used fail the test, unless `verifyingAllUsed` is `false`. Needs
    /// Swift 6.1 (`TestScoping`); with 6.0, wrap the test body in ``withMock(_:verifyingAllEndpointsUsed:isolation:operation:)``
    /// or `KonexClient.withTransport(_:operation:)`.
    public struct KonexTransportTrait: TestTrait, SuiteTrait, TestScoping {
        enum Kind: Sendable {
            case mocked(@MainActor @Sendable (MockTransport) -> Void)
            case fixtures(FixtureDirectory)
            case recorded(URL, RecordMode)
        }

        let kind: Kind
        let verifyingAllUsed: Bool
        let clock: (any Clock<Duration>)?

        /// A suite trait applies once to the whole suite (one transport, shared by its tests), not once per test.
        public var isRecursive: Bool { false }

        public func provideScope(
            for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
        ) async throws {
            switch kind {
            case .mocked(let configure):
                let mock = MockTransport(clock: clock ?? ImmediateClock())
                await configure(mock)
                try await MockTransport.$current.withValue(mock) {
                    try await KonexClient.withTransport(mock, clock: clock ?? ImmediateClock()) { try await function() }
                }
                if verifyingAllUsed { report(mock.unusedEndpoints.map(\.description), what: "mock endpoint") }
            case .fixtures(let directory):
                let fixtures = try FixtureTransport(directory: directory, clock: clock ?? ImmediateClock())
                try await FixtureTransport.$current.withValue(fixtures) {
                    try await KonexClient.withTransport(fixtures, clock: clock ?? ImmediateClock()) {
                        try await function()
                    }
                }
                if verifyingAllUsed { report(fixtures.mock.unusedEndpoints.map(\.description), what: "fixture") }
            case .recorded(let file, let mode):
                let recorder = try RecordingTransport(live: URLSessionTransport(), fixture: file, mode: mode)
                try await RecordingTransport.$current.withValue(recorder) {
                    try await KonexClient.withTransport(recorder, clock: clock) { try await function() }
                }
                if verifyingAllUsed { report(await recorder.unusedEntries, what: "recorded entry") }
            }
        }

        private func report(_ unused: [String], what: String) {
            guard !unused.isEmpty else { return }
            Issue.record(
                "\(unused.count) \(what)(s) never used (pass verifyingAllUsed: false to allow it): \(unused.joined(separator: ", "))"
            )
        }
    }

    extension Trait where Self == KonexTransportTrait {
        /// Runs with every `KonexClient` sending through a new `MockTransport` that `configure` sets up.
        /// - Parameters:
        ///   - verifyingAllUsed: Fail the test when an endpoint was never used; `true` by default.
        ///   - clock: What the mock's delays and the clients' retries wait on; an ``ImmediateClock`` by default.
        ///   - configure: Declares the endpoints; it runs on the main actor, where an app's own models (main-actor
        ///     isolated by default in Xcode 26) may be encoded as mock bodies.
        public static func mocked(
            verifyingAllUsed: Bool = true, clock: (any Clock<Duration>)? = nil,
            _ configure: @escaping @MainActor @Sendable (MockTransport) -> Void
        ) -> Self {
            KonexTransportTrait(kind: .mocked(configure), verifyingAllUsed: verifyingAllUsed, clock: clock)
        }

        /// Runs with every `KonexClient` served by the fixtures in the folder `Fixtures/<name>` beside the test file.
        /// - Parameters:
        ///   - name: The folder inside `Fixtures`.
        ///   - verifyingAllUsed: Fail when a fixture was never used; `false` by default (a folder often serves many
        ///     tests).
        ///   - filePath: Leave the default: the test file's path.
        public static func fixtures(_ name: String, verifyingAllUsed: Bool = false, filePath: String = #filePath)
            -> Self
        {
            KonexTransportTrait(
                kind: .fixtures(FixtureDirectory(besides: filePath, named: "Fixtures/\(name)")),
                verifyingAllUsed: verifyingAllUsed, clock: nil)
        }

        /// Runs with every `KonexClient` going through a recorder of `Fixtures/<name>.har` beside the test file.
        /// - Parameters:
        ///   - name: The HAR file's name, without `.har`.
        ///   - mode: When to record; `KONEX_RECORD_MODE` overrides it, and `CI=true` refuses to record.
        ///   - verifyingAllUsed: Fail when a recorded entry was never replayed; `true` by default.
        ///   - filePath: Leave the default: the test file's path.
        public static func recorded(
            _ name: String, mode: RecordMode = .none, verifyingAllUsed: Bool = true, filePath: String = #filePath
        ) -> Self {
            let file = FixtureDirectory(besides: filePath, named: "Fixtures").root.appendingPathComponent("\(name).har")
                .standardizedFileURL
            return KonexTransportTrait(kind: .recorded(file, mode), verifyingAllUsed: verifyingAllUsed, clock: nil)
        }
    }
#endif
