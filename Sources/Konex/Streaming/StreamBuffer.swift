import Foundation

/// The queue between a transfer and the reader of a ``ByteStream``: bounded, read once, ended once.
final class StreamBuffer: Sendable {
    private struct State {
        var chunks: [Data] = []
        var head = 0
        var buffered = 0
        /// Set when the producer is done: `nil` error for a clean end.
        var end: (any Error)?? = .none
        /// Whether the reader has been told how the stream ended (an error is thrown once, then `nil`).
        var endDelivered = false
        var waiter: CheckedContinuation<Data?, any Error>?
        /// A producer waiting for room (back pressure): resumed when the reader takes a chunk or the stream ends.
        var spaceWaiter: CheckedContinuation<Void, Never>?
        var cancelled = false
        var onArrival: [@Sendable (Int) -> Void] = []
        var onEnd: [@Sendable () -> Void] = []
    }

    private let state = Lock(State())
    let limit: Int
    private let onCancel: @Sendable () -> Void

    init(limit: Int, onCancel: @escaping @Sendable () -> Void) {
        self.limit = limit
        self.onCancel = onCancel
    }

    /// Whether the producer is done (or the stream was ended for it).
    var isEnded: Bool { state.withLock { $0.end != nil } }

    /// How the stream ended: `nil` while it runs or after a clean end.
    var endError: (any Error)? { state.withLock { $0.end ?? nil } }

    /// Called with each chunk's size as it arrives (idle timeouts, progress).
    /// - Returns: The bytes already held, which arrived before the hook.
    @discardableResult
    func onArrival(_ hook: @escaping @Sendable (Int) -> Void) -> Int {
        state.withLock { state in
            state.onArrival.append(hook)
            return state.buffered
        }
    }

    /// Called once when the stream ends, however it ends.
    func onEnd(_ hook: @escaping @Sendable () -> Void) {
        let endedAlready = state.withLock { state -> Bool in
            if state.end != nil { return true }
            state.onEnd.append(hook)
            return false
        }
        if endedAlready { hook() }
    }

    @discardableResult
    func yield(_ chunk: Data) -> Bool {
        var overflowed = false
        let (accepted, waiter, hooks) = state.withLock {
            state -> (Bool, CheckedContinuation<Data?, any Error>?, [@Sendable (Int) -> Void]) in
            guard state.end == nil else { return (false, nil, []) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (true, waiter, state.onArrival)
            }
            // One chunk larger than the whole buffer is held alone: it is in memory already, and refusing it would
            // fail a transfer for the size of the transport's reads rather than for a reader that fell behind.
            if state.buffered > 0, state.buffered + chunk.count > limit {
                overflowed = true
                return (false, nil, [])
            }
            state.chunks.append(chunk)
            state.buffered += chunk.count
            return (true, nil, state.onArrival)
        }
        for hook in hooks { hook(chunk.count) }
        waiter?.resume(returning: chunk)
        if overflowed {
            end(StreamFailure.bufferOverflow(limit: limit))
            onCancel()
        }
        return accepted
    }

    /// Adds a chunk, waiting while the buffer holds `limit` bytes or more: a producer that can pause (a NIO channel)
    /// slows to the reader's pace instead of overflowing. `false` when the stream has ended.
    func yieldWaitingForRoom(_ chunk: Data) async -> Bool {
        while true {
            let full = state.withLock { state -> Bool? in
                guard state.end == nil else { return nil }
                return state.waiter == nil && state.buffered > 0 && state.buffered + chunk.count > limit
            }
            guard let full else { return false }
            if !full { return yield(chunk) }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.end != nil || state.buffered == 0 || state.buffered + chunk.count <= limit
                        || state.waiter != nil
                    {
                        return true
                    }
                    state.spaceWaiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }

    /// The producer waiting for room, taken so it can be resumed outside the lock.
    private static func takeSpaceWaiter(_ state: inout State) -> CheckedContinuation<Void, Never>? {
        defer { state.spaceWaiter = nil }
        return state.spaceWaiter
    }

    /// Ends the stream with `error` for the reader and stops the transfer (a timeout).
    func fail(_ error: any Error) {
        guard !isEnded else { return }
        end(error)
        onCancel()
    }

    /// Ends the stream (first end wins) and wakes a waiting reader.
    func end(_ error: (any Error)?) {
        let (waiter, hooks, producer) = state.withLock {
            state -> (CheckedContinuation<Data?, any Error>?, [@Sendable () -> Void], CheckedContinuation<Void, Never>?)
            in
            guard state.end == nil else { return (nil, [], nil) }
            state.end = .some(error)
            let producer = Self.takeSpaceWaiter(&state)
            let hooks = state.onEnd
            state.onEnd = []
            guard let waiter = state.waiter else { return (nil, hooks, producer) }
            state.waiter = nil
            state.endDelivered = true
            return (waiter, hooks, producer)
        }
        producer?.resume()
        if let waiter {
            if let error { waiter.resume(throwing: error) } else { waiter.resume(returning: nil) }
        }
        for hook in hooks { hook() }
    }

    /// Stops the stream for the reader: the transfer is cancelled, a waiting reader gets `CancellationError`.
    func cancel() {
        let first = state.withLock { state -> Bool in
            if state.cancelled { return false }
            state.cancelled = true
            return state.end == nil
        }
        guard first else { return }
        end(CancellationError())
        onCancel()
    }

    func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                var producer: CheckedContinuation<Void, Never>?
                let outcome = state.withLock { state -> Result<Data?, any Error>? in
                    if state.head < state.chunks.count {
                        producer = Self.takeSpaceWaiter(&state)
                        let chunk = state.chunks[state.head]
                        state.chunks[state.head] = Data()
                        state.head += 1
                        state.buffered -= chunk.count
                        if state.head == state.chunks.count {
                            state.chunks.removeAll(keepingCapacity: true)
                            state.head = 0
                        }
                        return .success(chunk)
                    }
                    if let end = state.end {
                        if state.endDelivered { return .success(nil) }
                        state.endDelivered = true
                        if let error = end { return .failure(error) }
                        return .success(nil)
                    }
                    state.waiter = continuation
                    // A reader waiting means the buffer is empty: a producer held for room may go on.
                    producer = Self.takeSpaceWaiter(&state)
                    return nil
                }
                producer?.resume()
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            cancel()
        }
    }
}
