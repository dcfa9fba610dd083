import Foundation
import Konex

/// The client's end of a mock connection, fed by a ``WebSocketStep`` script running on the mock's clock.
final class MockWebSocketChannel: WebSocketChannel {
    private struct State {
        /// Client messages the script has not read yet, and the script waiting for one.
        var unread: [WebSocketMessage] = []
        var expecting: CheckedContinuation<WebSocketMessage?, Never>?
        var answeringPings = true
        var answeringClose = true
        var script: Task<Void, Never>?
        var clock: (any Clock<Duration>)?
    }

    private let state = Lock(State())
    private let inbox: WebSocketInbox
    let response: ResponseHead
    let session: MockWebSocketSession
    private let options: WebSocketOptions

    init(response: ResponseHead, session: MockWebSocketSession, options: WebSocketOptions) {
        self.response = response
        self.session = session
        self.options = options
        inbox = WebSocketInbox(limit: options.receiveBufferLimit, byteLimit: options.receiveBufferBytes)
    }

    /// Runs `steps` on `clock`, from now.
    func run(_ steps: [WebSocketStep], on clock: any Clock<Duration>) {
        // Settings that open the script hold from the handshake on, not from whenever its task first runs: a test
        // that closes at once must meet a server that already stopped answering closes.
        var steps = steps[...]
        while let first = steps.first, first == .stopAnsweringPings || first == .stopAnsweringClose {
            state.withLock { state in
                if first == .stopAnsweringPings { state.answeringPings = false } else { state.answeringClose = false }
            }
            steps.removeFirst()
        }
        let task = Task { [weak self, steps] in
            for step in steps {
                guard let self, !self.isEnded else { return }
                do { try await self.perform(step, on: clock) } catch { return }
            }
        }
        state.withLock {
            $0.script = task
            $0.clock = clock
        }
    }

    private var isEnded: Bool { inbox.end != nil }

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
                finish(.closed(.policyViolation, reason: "unexpected message"))
            }
        case .expectAnyMessage:
            _ = await nextClientMessage()
        case .wait(let delay):
            try await pause(delay)
        case .close(let code, let reason, let delay):
            try await pause(delay)
            finish(.closed(code, reason: reason))
        case .abort(let delay):
            try await pause(delay)
            finish(
                .failed(
                    WebSocketFailure(
                        .connectionLost, "the server dropped the connection without a close frame",
                        closeCode: .abnormalClosure)))
        case .stopAnsweringPings:
            state.withLock { $0.answeringPings = false }
        case .stopAnsweringClose:
            state.withLock { $0.answeringClose = false }
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
        while inbox.deliver(message) == .full { await inbox.waitForRoom(for: message) }
    }

    /// The client's next message for an `expect` step; `nil` once the connection ended.
    private func nextClientMessage() async -> WebSocketMessage? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> WebSocketMessage?? in
                if !state.unread.isEmpty { return .some(state.unread.removeFirst()) }
                if self.inbox.end != nil { return .some(nil) }
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

    /// Ends the connection once: the reader, pings and the script's waits all wake.
    private func finish(_ end: WebSocketInbox.End) {
        guard inbox.finish(end) else { return }
        let expecting = state.withLock { state in
            defer { state.expecting = nil }
            return state.expecting
        }
        session.state.withLock { $0.closed = true }
        expecting?.resume(returning: nil)
    }

    // MARK: WebSocketChannel

    func send(_ message: WebSocketMessage) async throws {
        let expecting = try state.withLock { state -> CheckedContinuation<WebSocketMessage?, Never>? in
            if self.inbox.end != nil { throw WebSocketFailure(.connectionLost, "the connection is closed") }
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

    func receive() async throws -> WebSocketMessage? { try await inbox.receive() }

    func ping() async throws {
        session.state.withLock { $0.pings += 1 }
        if inbox.end != nil { throw WebSocketFailure(.connectionLost, "the connection closed") }
        if state.withLock({ $0.answeringPings }) { return }
        // Never answered, and deaf to cancellation, as URLSession's `sendPing` is: it ends with the connection only.
        try await inbox.awaitPongIgnoringCancellation(sending: {})
    }

    func close(code: WebSocketCloseCode, reason: String) async {
        session.state.withLock {
            $0.clientCloseCode = $0.clientCloseCode ?? code
            $0.clientCloseReason = $0.clientCloseReason ?? reason
        }
        let (script, answers, clock) = state.withLock { ($0.script, $0.answeringClose, $0.clock) }
        if !answers, let clock {
            // As a real transport does with a peer that never answers: wait, then drop the connection.
            try? await clock.sleep(for: options.closeTimeout)
            finish(.unansweredClose(after: options.closeTimeout))
        } else {
            finish(.closed(code, reason: reason))  // the mock server answers a close with the same code
        }
        script?.cancel()
    }

    func abort() {
        let script = state.withLock { $0.script }
        finish(
            .failed(
                WebSocketFailure(.connectionLost, "the connection was dropped", closeCode: .abnormalClosure)))
        script?.cancel()
    }

    var closeCode: WebSocketCloseCode? { inbox.closeCode }
    var closeReason: String? { inbox.closeReason }
}
