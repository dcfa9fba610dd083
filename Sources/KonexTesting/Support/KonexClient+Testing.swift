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
    ///   - cookieJar: The jar the client keeps cookies in (a login then an authenticated call in one test); none by
    ///     default.
    public static func mocked(
        _ transport: any Transport, baseURL: URL = URL(string: "https://api.test")!,
        clock: any Clock<Duration> = ImmediateClock(), cookieJar: CookieJar? = nil
    ) -> KonexClient {
        KonexClient(baseURL: baseURL, transport: transport, clock: clock, cookieJar: cookieJar)
    }

    /// A client serving the fixtures in `directory`, for one-line test setup.
    ///
    /// ```swift
    /// let client = try KonexClient.fixtures(FixtureDirectory(besides: #filePath))
    /// ```
    /// - Parameters:
    ///   - directory: The fixtures.
    ///   - baseURL: The base URL; `https://api.test` by default.
    ///   - delay: How long each answer takes; none by default.
    ///   - clock: What delays and retries wait on; an ``ImmediateClock`` by default.
    ///   - cookieJar: The jar the client keeps cookies in, fed by the fixtures' `Set-Cookie` lines; none by default.
    /// - Throws: ``FixtureError`` for malformed fixtures.
    public static func fixtures(
        _ directory: FixtureDirectory, baseURL: URL = URL(string: "https://api.test")!, delay: Delay = .none,
        clock: any Clock<Duration> = ImmediateClock(), cookieJar: CookieJar? = nil
    ) throws -> KonexClient {
        KonexClient(
            baseURL: baseURL, transport: try FixtureTransport(directory: directory, clock: clock, delay: delay),
            clock: clock, cookieJar: cookieJar)
    }
}
