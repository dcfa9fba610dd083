import Foundation

extension Received {
    /// Runs one attempt's exchange within `limit` on `clock` (``firstOf(_:orDeadline:on:discarding:)``): past it the
    /// caller gets a timeout at once and the exchange is cancelled, without waiting for it to stop (a transport slow
    /// to honour cancellation would stretch the limit to the body's end); what it answers late is cleaned up. Only a
    /// call with a total timeout pays for this.
    /// - Throws: ``TransportFailure`` of kind ``TransportFailure/Kind/timedOut`` past the limit; `CancellationError`
    ///   when the caller is cancelled; the exchange's errors.
    static func within(
        _ limit: Duration, on clock: any Clock<Duration>, url: URL,
        _ reply: @escaping @Sendable () async throws -> TransportReply
    ) async throws -> TransportReply {
        let outcome = await firstOf(
            { () async -> Result<TransportReply, any Error> in
                do { return .success(try await reply()) } catch { return .failure(error) }
            },
            orDeadline: limit, on: clock,
            discarding: { late in
                // Too late: nobody reads it.
                guard case .success(let reply) = late else { return }
                reply.discard()
            })
        guard let outcome else {
            if Task.isCancelled { throw CancellationError() }
            throw TransportFailure(.timedOut, url: url, underlying: TotalTimeoutExceeded(limit: limit))
        }
        return try outcome.get()
    }
}

/// Why an attempt timed out when its total timeout passed: the underlying error of its ``TransportFailure``.
public struct TotalTimeoutExceeded: Error, Sendable, CustomStringConvertible {
    /// The limit that passed.
    public let limit: Duration

    public var description: String { "the exchange ran longer than its total timeout of \(limit)" }
}
