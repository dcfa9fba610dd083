import Testing

// Swift 6.0's `#require(throws:)` and `#expect(throws:)` return nothing; binding the error they caught needs 6.1.
// The package claims tools 6.0, so its tests bind errors through these two instead.

/// The error `body` throws, when it is an `E`; otherwise records an issue at the caller and throws.
/// - Parameters:
///   - type: The error type expected.
///   - body: The code that should throw.
/// - Returns: The error.
package func requireThrows<E: Error, Result>(
    _ type: E.Type, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Result
) async throws -> E {
    guard let error = await expectThrows(type, sourceLocation: sourceLocation, body) else {
        throw ExpectedError(type: "\(type)")
    }
    return error
}

/// The error `body` throws, when it is an `E`; otherwise records an issue at the caller and returns `nil`.
/// - Parameters:
///   - type: The error type expected.
///   - body: The code that should throw.
/// - Returns: The error, or `nil`.
@discardableResult
package func expectThrows<E: Error, Result>(
    _ type: E.Type, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Result
) async -> E? {
    do {
        let value = try await body()
        Issue.record("expected an error of type \(type), but it returned \(value)", sourceLocation: sourceLocation)
    } catch let error as E {
        return error
    } catch {
        Issue.record(
            "expected an error of type \(type), but it threw \(Swift.type(of: error)): \(error)",
            sourceLocation: sourceLocation)
    }
    return nil
}

/// What `requireThrows` throws after recording the issue, to end the test there.
struct ExpectedError: Error, CustomStringConvertible {
    let type: String
    var description: String { "no \(type) was thrown" }
}
