import Foundation
import Konex

/// The client's end of a mock connection, fed by a ``WebSocketStep`` script running on the mock's clock.
final class MockWebSocketChannel: WebSocketChannel {
    private enum End {
        case closed(WebSocketCloseCode, String)
        case failed(WebSocketFailure)
    }

    private struct State {
        var inbox: [WebSocketMessage] = []
        var reader: CheckedContinuation<WebSocketMessage?, any Error>?
        /// Client messages the script has not read yet, and the script waiting for one.
        var unread: [WebSocketMessage] = []
        var expecting: CheckedContinuation<WebSocketMessage?, Never>?
        /// The script waiting for room in a full inbox: back pressure from a slow reader.
        var roomWaiter: CheckedContinuation<Void, Never>?
        var pingWaiters: [CheckedContinuation<Void, any Error>] = []
        var answeringPings = true
        var end: End?
        var script: Task<Void, Never>?
    }

    private let state = Lock(State())
    let response: HTTPURLResponse
    let session: MockWebSocketSession
    private let options: WebSocketOptions

    init(response: HTTPURLResponse, session: MockWebSocketSession, options: WebSocketOptions) {
        self.response = response
        self.session = session
        self.options = options
    }

    /// Runs `steps` on `clock`, from now.
    func run(_ steps: [WebSocketStep], on clock: any Clock<Duration>) {
        let task = Task { [weak self] in
            for step in steps {
                guard let self, !self.isEnded else { return }
                do { try await self.perform(step, on: clock) } catch { return }
            }
        }
        state.withLock { $0.script = task }
    }

    private var isEnded: Bool { state.withLock { $0.end != nil } }

    private func perform(_ step: WebSocketStep, on clock: any Clock<Duration>) async throws {
        func pause(_ delay: Duration) async throws { if delay > .zero { try await clock.sleep(for: delay) } }
        switch step {
        case .send(let message, let delay):
            try await pause(delay)
            await deliver(message)
        case .expect(let wanted):
            guard let got = await nextClientMessage() else { return }
            if got != wanted {
                session.state.withLock { $0.mismatches.append("expected \(wanted), got \(got)") }
                finish(.closed(.policyViolation, "unexpected message"))
            }
        case .expectAnyMessage:
            _ = await nextClientMessage()
        case .wait(let delay):
            try await pause(delay)
        case .close(let code, let reason, let delay):
            try await pause(delay)
            finish(.closed(code, reason))
        case .abort(let delay):
            try await pause(delay)
            finish(
                .failed(
                    WebSocketFailure(
                        .connectionLost, "the server dropped the connection without a close frame",
                        closeCode: .abnormalClosure)))
        case .stopAnsweringPings:
            state.withLock { $0.answeringPings = false }
        case .sendInvalidUTF8:
            // What a real client does with text that is not UTF-8: it fails the connection with 1007 (RFC 6455 §8.1).
            clientCloses(
                WebSocketFailure(
                    .protocolViolation, "a text message was not valid UTF-8", closeCode: .invalidFramePayloadData))
        }
    }

    /// The server sends `message`: over the client's limit it fails the connection with 1009, as a real client does;
    /// into a full inbox it waits for the reader.
    private func deliver(_ message: WebSocketMessage) async {
        if message.data.count > options.maximumMessageSize {
            return clientCloses(
                WebSocketFailure(
                    .messageTooBig,
                    "a message of \(message.data.count) bytes is over maximumMessageSize (\(options.maximumMessageSize))",
                    closeCode: .messageTooBig))
        }
        while true {
            let full = state.withLock { $0.end == nil && $0.inbox.count >= options.receiveBufferLimit }
            guard full else { break }
            await withCheckedContinuation { continuation in
                let waitNow = state.withLock { state -> Bool in
                    guard state.end == nil, state.inbox.count >= options.receiveBufferLimit else { return false }
                    state.roomWaiter = continuation
                    return true
                }
                if !waitNow { continuation.resume() }
            }
        }
        let reader = state.withLock { state -> CheckedContinuation<WebSocketMessage?, any Error>? in
            guard state.end == nil else { return nil }
            if let reader = state.reader {
                state.reader = nil
                return reader
            }
            state.inbox.append(message)
            return nil
        }
        reader?.resume(returning: message)
    }

    /// The client's next message for an `expect` step; `nil` once the connection ended.
    private func nextClientMessage() async -> WebSocketMessage? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> WebSocketMessage?? in
                if !state.unread.isEmpty { return .some(state.unread.removeFirst()) }
                if state.end != nil { return .some(nil) }
                state.expecting = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The client fails the connection for `failure`, sending its close code.
    private func clientCloses(_ failure: WebSocketFailure) {
        session.state.withLock { $0.clientCloseCode = failure.closeCode }
        finish(.failed(failure))
    }

    /// Ends the connection once: everyone waiting wakes.
    private func finish(_ end: End) {
        let woken = state.withLock { state in
            guard state.end == nil else {
                return (
                    CheckedContinuation<WebSocketMessage?, any Error>?.none,
                    CheckedContinuation<WebSocketMessage?, Never>?.none, CheckedContinuation<Void, Never>?.none,
                    [CheckedContinuation<Void, any Error>](), Task<Void, Never>?.none
                )
            }
            state.end = end
            defer {
                state.reader = nil
                state.expecting = nil
                state.roomWaiter = nil
                state.pingWaiters = []
            }
            // A reader with messages still queued gets them first; one waiting on an empty inbox hears the end now.
            return (state.reader, state.expecting, state.roomWaiter, state.pingWaiters, state.script)
        }
        session.state.withLock { $0.closed = true }
        let (reader, expecting, roomWaiter, pingWaiters, _) = woken
        switch end {
        case .closed: reader?.resume(returning: nil)
        case .failed(let failure): reader?.resume(throwing: failure)
        }
        expecting?.resume(returning: nil)
        roomWaiter?.resume()
        for waiter in pingWaiters {
            waiter.resume(throwing: WebSocketFailure(.connectionLost, "the connection closed"))
        }
    }

    // MARK: WebSocketChannel

    func send(_ message: WebSocketMessage) async throws {
        let expecting = try state.withLock { state -> CheckedContinuation<WebSocketMessage?, Never>? in
            if state.end != nil { throw WebSocketFailure(.connectionLost, "the connection is closed") }
            if let expecting = state.expecting {
                state.expecting = nil
                return expecting
            }
            state.unread.append(message)
            return nil
        }
        session.state.withLock { $0.clientMessages.append(message) }
        expecting?.resume(returning: message)
    }

    func receive() async throws -> WebSocketMessage? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<WebSocketMessage?, any Error>? in
                    if !state.inbox.isEmpty {
                        let message = state.inbox.removeFirst()
                        if let room = state.roomWaiter {
                            state.roomWaiter = nil
                            Task { room.resume() }
                        }
                        return .success(message)
                    }
                    switch state.end {
                    case .closed: return .success(nil)
                    case .failed(let failure): return .failure(failure)
                    case nil:
                        state.reader = continuation
                        return nil
                    }
                }
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

    func ping() async throws {
        session.state.withLock { $0.pings += 1 }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let answer = state.withLock { state -> Result<Void, any Error>? in
                    if state.end != nil { return .failure(WebSocketFailure(.connectionLost, "the connection closed")) }
                    if state.answeringPings { return .success(()) }
                    state.pingWaiters.append(continuation)
                    return nil
                }
                if let answer { continuation.resume(with: answer) }
            }
        } onCancel: {
            let waiters = state.withLock { state in
                defer { state.pingWaiters = [] }
                return state.pingWaiters
            }
            for waiter in waiters { waiter.resume(throwing: CancellationError()) }
        }
    }

    func close(code: WebSocketCloseCode, reason: String) async {
        session.state.withLock {
            $0.clientCloseCode = $0.clientCloseCode ?? code
            $0.clientCloseReason = $0.clientCloseReason ?? reason
        }
        let script = state.withLock { $0.script }
        finish(.closed(code, reason))  // the mock server answers a close with the same code
        script?.cancel()
    }

    func abort() {
        let script = state.withLock { $0.script }
        finish(
            .failed(
                WebSocketFailure(.connectionLost, "the connection was dropped", closeCode: .abnormalClosure)))
        script?.cancel()
    }

    var closeCode: WebSocketCloseCode? {
        switch state.value.end {
        case .closed(let code, _): code
        case .failed(let failure): failure.closeCode ?? .abnormalClosure
        case nil: nil
        }
    }

    var closeReason: String? {
        if case .closed(_, let reason) = state.value.end { return reason }
        return nil
    }
}
