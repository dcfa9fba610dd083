import Foundation
import Konex

// The transport a KonexTesting trait (or a `withMock` scope) set up for the running test, reachable from inside it.

extension MockTransport {
    /// The mock of the ``withMock(_:verifyingAllEndpointsUsed:isolation:operation:)`` scope (or `.mocked` trait)
    /// the current test runs in; `nil` outside one.
    @TaskLocal public static var current: MockTransport?
}

extension FixtureTransport {
    /// The fixtures of the `.fixtures` trait the current test runs in; `nil` outside one.
    @TaskLocal public static var current: FixtureTransport?
}

extension RecordingTransport {
    /// The recorder of the `.recorded` trait the current test runs in; `nil` outside one.
    @TaskLocal public static var current: RecordingTransport?
}
