import Foundation

extension Received {
    /// Runs one attempt's exchange within `limit` on `clock`: past it the exchange is cancelled and the attempt fails
    /// as timed out. Only a call with a total timeout pays for this (a task group, a child and a sleep).
    /// - Throws: ``TransportFailure`` of kind ``TransportFailure/Kind/timedOut`` past the limit; the exchange's errors.
    static func within(
        _ limit: Duration, on clock: any Clock<Duration>, url: URL,
        _ exchange: @escaping @Sendable () async throws -> (Data, ResponseHead, Body, TransportReply?)
    ) async throws -> (Data, ResponseHead, Body, TransportReply?) {
        try await withThrowingTaskGroup(of: (Data, ResponseHead, Body, TransportReply?)?.self) { group in
            group.addTask { try await exchange() }
            group.addTask {
                try await clock.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            if let answer = first { return answer }
            // Out of time. The exchange is cancelled; one that finished in the same instant leaves no file or
            // open stream behind.
            group.cancelAll()
            while let late = try? await group.next() {
                guard let (_, _, body, _) = late else { continue }
                BodyFile.remove(body.file)
                body.stream?.cancel()
                body.webSocket?.abort()
            }
            throw TransportFailure(.timedOut, url: url, underlying: TotalTimeoutExceeded(limit: limit))
        }
    }
}

/// Why an attempt timed out when its total timeout passed: the underlying error of its ``TransportFailure``.
public struct TotalTimeoutExceeded: Error, Sendable, CustomStringConvertible {
    /// The limit that passed.
    public let limit: Duration

    public var description: String { "the exchange ran longer than its total timeout of \(limit)" }
}
