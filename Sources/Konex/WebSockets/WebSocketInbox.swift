import Foundation

/// The receiving half every ``WebSocketChannel`` needs: messages queued for a reader (bounded by count and by bytes), a
/// reader waiting for one, pings waiting for their pong, and an end that wakes them all once. Transports and
/// KonexTesting's mock share it.
package final class WebSocketInbox: Sendable {
    /// How a connection ended.
    package enum End: Sendable {
        case closed(WebSocketCloseCode, reason: String?)
        case failed(WebSocketFailure)

        /// This side closed and the peer never answered within `timeout`: dropped, 1006 (RFC 6455 §7.1.5).
        package static func unansweredClose(after timeout: Duration) -> End {
            .closed(.abnormalClosure, reason: "the server did not answer the close within \(timeout)")
        }
    }

    /// What ``deliver(_:)`` did with a message.
    package enum Delivery: Sendable {
        case delivered
        /// The inbox holds `limit` messages, or `byteLimit` bytes with this one: nothing was queued.
        case full
        /// The connection is over: nothing was queued.
        case ended
    }

    private struct State {
        var messages: [WebSocketMessage] = []
        /// The bytes of `messages`.
        var bytes = 0
        var reader: CheckedContinuation<WebSocketMessage?, any Error>?
        var roomWaiter: CheckedContinuation<Void, Never>?
        /// Pings waiting for a pong, by a number of their own, so a cancelled ping removes itself and no other.
        var pongWaiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        var pings: UInt64 = 0
        var end: End?
        /// A delivery found the inbox full: the next message read makes room, and ``roomHandler`` hears of it.
        var producerWaits = false
        var roomHandler: (@Sendable () -> Void)?
    }

    private let state = Lock(State())
    /// The most messages held for a reader.
    package let limit: Int
    /// The most bytes held for a reader; one message larger than this is still held when the inbox is empty.
    package let byteLimit: Int

    package init(limit: Int, byteLimit: Int = Int.max) {
        self.limit = max(1, limit)
        self.byteLimit = max(1, byteLimit)
    }

    /// Whether one more message of `size` bytes would overflow what `state` holds.
    private func isFull(_ state: State, adding size: Int) -> Bool {
        !state.messages.isEmpty && (state.messages.count >= limit || size > byteLimit - state.bytes)
    }

    /// Calls `handler` (on the reader's task) each time a reader takes a message from an inbox a delivery found
    /// full: a transport that paused its socket reads again. Set it once, before the first delivery.
    package func whenRoom(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.roomHandler = handler }
    }

    /// How the connection ended; `nil` while it is open.
    package var end: End? { state.withLock { $0.end } }  // not `state.value`: that copies the whole state, per frame

    /// The close code: the peer's, or the failure's (1006 when it had none); `nil` while open.
    package var closeCode: WebSocketCloseCode? {
        switch end {
        case .closed(let code, _): code
        case .failed(let failure): failure.closeCode ?? .abnormalClosure
        case nil: nil
        }
    }

    /// The reason that came with the close code.
    package var closeReason: String? {
        if case .closed(_, let reason) = end { return reason }
        return nil
    }

    /// Hands `message` to a waiting reader, or queues it.
    package func deliver(_ message: WebSocketMessage) -> Delivery {
        var pongWaiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        let (outcome, reader) = state.withLock {
            state -> (Delivery, CheckedContinuation<WebSocketMessage?, any Error>?) in
            guard state.end == nil else { return (.ended, nil) }
            if let reader = state.reader {
                state.reader = nil
                return (.delivered, reader)
            }
            let size = message.byteCount
            guard !isFull(state, adding: size) else {
                state.producerWaits = true
                // The transport stops reading now, so a pong may wait in the socket behind data no one reads:
                // the peer that sent more than the reader takes is alive, which is all a ping asks.
                pongWaiters = state.pongWaiters
                state.pongWaiters = [:]
                return (.full, nil)
            }
            state.messages.append(message)
            state.bytes += size
            return (.delivered, nil)
        }
        reader?.resume(returning: message)
        for waiter in pongWaiters.values { waiter.resume() }
        return outcome
    }

    /// Returns once the inbox has room for `message` (or the connection is over): a producer that can wait gives
    /// back pressure. (Room for any one byte would not do: a message that still does not fit would spin.)
    package func waitForRoom(for message: WebSocketMessage) async {
        await withCheckedContinuation { continuation in
            let waits = state.withLock { state -> Bool in
                guard state.end == nil, isFull(state, adding: message.byteCount) else { return false }
                state.roomWaiter = continuation
                return true
            }
            if !waits { continuation.resume() }
        }
    }

    /// The next message; `nil` after a clean close; the failure after a broken one. Queued messages come first.
    package func receive() async throws -> WebSocketMessage? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let (ready, room, handler) = state.withLock {
                    state -> (
                        Result<WebSocketMessage?, any Error>?, CheckedContinuation<Void, Never>?,
                        (@Sendable () -> Void)?
                    ) in
                    if !state.messages.isEmpty {
                        defer {
                            state.roomWaiter = nil
                            state.producerWaits = false
                        }
                        let message = state.messages.removeFirst()
                        state.bytes -= message.byteCount
                        return (.success(message), state.roomWaiter, state.producerWaits ? state.roomHandler : nil)
                    }
                    switch state.end {
                    case .closed: return (.success(nil), nil, nil)
                    case .failed(let failure): return (.failure(failure), nil, nil)
                    case nil:
                        // Cancelled before waiting: the handler already ran and found no reader to wake.
                        if Task.isCancelled { return (.failure(CancellationError()), nil, nil) }
                        state.reader = continuation
                        return (nil, nil, nil)
                    }
                }
                room?.resume()
                handler?()
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let reader = state.withLock { state in
                defer { state.reader = nil }
                return state.reader
            }
            reader?.resume(throwing: CancellationError())
        }
    }

    /// Waits for the next pong after running `send` (which sends the ping); throws if the connection ends first.
    /// Returns at once, sending nothing, while the reader is behind (see ``deliver(_:)``): the peer is sending.
    /// Cancelling it ends this ping alone, also when the cancellation came before the ping was registered.
    package func awaitPong(sending send: @Sendable () -> Void) async throws {
        let ping = nextPing()
        try await withTaskCancellationHandler {
            try await awaitPong(ping, sending: send, honouringCancellation: true)
        } onCancel: {
            let waiter = state.withLock { $0.pongWaiters.removeValue(forKey: ping) }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// ``awaitPong(sending:)`` deaf to cancellation, as URLSession's `sendPing` is (for a mock that behaves so).
    package func awaitPongIgnoringCancellation(sending send: @Sendable () -> Void) async throws {
        let ping = nextPing()
        try await awaitPong(ping, sending: send, honouringCancellation: false)
    }

    /// A number of its own for a ping, by which a cancelled ping removes itself and no other.
    private func nextPing() -> UInt64 {
        state.withLock { state in
            state.pings &+= 1
            return state.pings
        }
    }

    private func awaitPong(_ ping: UInt64, sending send: @Sendable () -> Void, honouringCancellation: Bool)
        async throws
    {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let status = state.withLock { state -> PingStatus in
                guard state.end == nil else { return .closed }
                // The cancellation handler ran before this registration and found nothing to remove: seen here,
                // under the same lock it would take.
                if honouringCancellation, Task.isCancelled { return .cancelled }
                // Behind a reader that is behind, a pong could not be read: the unread data answers for it.
                if state.producerWaits { return .alive }
                state.pongWaiters[ping] = continuation
                return .waiting
            }
            switch status {
            case .closed:
                continuation.resume(throwing: WebSocketFailure(.connectionLost, "the connection closed"))
            case .cancelled: continuation.resume(throwing: CancellationError())
            case .alive: continuation.resume()
            case .waiting: send()
            }
        }
    }

    private enum PingStatus { case closed, cancelled, alive, waiting }

    /// A pong arrived: every ping waiting is answered.
    package func pongArrived() {
        for waiter in takePongWaiters() { waiter.resume() }
    }

    private func takePongWaiters() -> Dictionary<UInt64, CheckedContinuation<Void, any Error>>.Values {
        state.withLock { state in
            defer { state.pongWaiters = [:] }
            return state.pongWaiters.values
        }
    }

    /// Ends the connection once: a waiting reader hears the end (queued messages stay readable first), pings fail,
    /// a producer waiting for room goes on. Returns whether this call ended it.
    @discardableResult
    package func finish(_ end: End) -> Bool {
        let woken = state.withLock {
            state -> (CheckedContinuation<WebSocketMessage?, any Error>?, CheckedContinuation<Void, Never>?)? in
            guard state.end == nil else { return nil }
            state.end = end
            defer {
                state.reader = nil
                state.roomWaiter = nil
            }
            return (state.reader, state.roomWaiter)
        }
        guard let (reader, room) = woken else { return false }
        switch end {
        case .closed: reader?.resume(returning: nil)
        case .failed(let failure): reader?.resume(throwing: failure)
        }
        room?.resume()
        for waiter in takePongWaiters() {
            waiter.resume(throwing: WebSocketFailure(.connectionLost, "the connection closed"))
        }
        return true
    }
}
