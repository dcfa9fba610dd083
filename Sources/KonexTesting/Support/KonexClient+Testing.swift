import Foundation
import Konex

extension KonexClient {
    /// A client wired to a mock transport, for one-line test setup.
    ///
    /// ```swift
    /// let mock = MockTransport(clock: ImmediateClock())
    /// let client = KonexClient.mocked(mock)
    /// ```
    /// - Parameters:
    ///   - transport: The mock (or fixture) transport.
    ///   - baseURL: The base URL; `https://api.test` by default.
    ///   - clock: What retries wait on; an ``ImmediateClock`` by default, so backoff takes no time.
    public static func mocked(
        _ transport: any Transport, baseURL: URL = URL(string: "https://api.test")!,
        clock: any Clock<Duration> = ImmediateClock()
    ) -> KonexClient {
        KonexClient(baseURL: baseURL, transport: transport, clock: clock)
    }

    /// A client serving the fixtures in `directory`, for one-line test setup.
    ///
    /// ```swift
    /// let client = try KonexClient.fixtures(FixtureDirectory(besides: #filePath))
    /// ```
    /// - Throws: ``FixtureError`` for malformed fixtures.
    public static func fixtures(
        _ directory: FixtureDirectory, baseURL: URL = URL(string: "https://api.test")!, delay: Delay = .none,
        clock: any Clock<Duration> = ImmediateClock()
    ) throws -> KonexClient {
        KonexClient(
            baseURL: baseURL, transport: try FixtureTransport(directory: directory, clock: clock, delay: delay),
            clock: clock)
    }
}
