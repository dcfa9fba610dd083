import Foundation
import Konex

/// Runs `operation` with every `KonexClient` sending through `mock`, and waiting on the mock's clock, the
/// plain-function form of the `.mocked` trait for XCTest and Swift 6.0.
///
/// ```swift
/// func testShowsTheUser() async throws {
///     let mock = MockTransport(clock: ImmediateClock()).stubbing(.get("/me"), .json(me))
///     try await withMock(mock) { try await model.load() }
/// }
/// ```
/// - Parameters:
///   - mock: The mock every client uses inside the scope; also ``MockTransport/current`` there.
///   - verifyingAllEndpointsUsed: Throw when an endpoint was never used; `true` by default.
///   - isolation: The caller's actor, kept for `operation` (leave the default).
///   - operation: The code under test.
/// - Returns: What `operation` returns.
/// - Throws: What `operation` throws, else ``MockConfigurationError`` naming the endpoints never used.
public func withMock<Result>(
    _ mock: MockTransport, verifyingAllEndpointsUsed: Bool = true, isolation: isolated (any Actor)? = #isolation,
    operation: () async throws -> Result
) async throws -> Result {
    let result = try await MockTransport.$current.withValue(
        mock,
        operation: {
            // The mock's own clock, as the `.mocked` trait does: its delays and the clients' retry waits agree.
            try await KonexClient.withTransport(mock, clock: mock.clock, operation: operation)
        }, isolation: isolation)
    if verifyingAllEndpointsUsed { try mock.verifyAllEndpointsUsed() }
    return result
}
