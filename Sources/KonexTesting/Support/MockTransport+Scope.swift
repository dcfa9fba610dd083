import Foundation
import Konex

extension MockTransport {
    /// Runs `body` with a client wired to this mock, then throws if a declared endpoint was never used.
    ///
    /// One line in Swift Testing or XCTest for "exercise exactly what I declared":
    /// ```swift
    /// let mock = MockTransport(clock: ImmediateClock())
    /// mock.stub(.get("/me"), .json(me))
    /// try await mock.verifying { client in
    ///     #expect(try await client.request("/me").responseObject(of: User.self) == me)
    /// }
    /// ```
    /// - Parameters:
    ///   - baseURL: The client's base URL; `https://api.test` by default.
    ///   - body: The test, given the client.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``MockConfigurationError`` naming the unused endpoints.
    public func verifying<Result>(
        baseURL: URL = URL(string: "https://api.test")!, _ body: (KonexClient) async throws -> Result
    ) async throws -> Result {
        let result = try await body(KonexClient.mocked(self, baseURL: baseURL, clock: ImmediateClock()))
        try verifyAllEndpointsUsed()
        return result
    }
}
