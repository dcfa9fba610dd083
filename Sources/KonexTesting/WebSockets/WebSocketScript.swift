import Foundation
import Konex

/// What a mock WebSocket server does after the handshake, step by step, on the mock's clock.
///
/// ```swift
/// let mock = MockTransport(clock: clock)
/// mock.stubWebSocket(.get("/v1/chat"), script: [
///     .send(.text("welcome")),
///     .send(.text("tick"), after: .milliseconds(20)),
///     .expect(.text("ping me")),             // the client must send this next
///     .send(.text("pong you")),
///     .close(.internalServerError, reason: "restarting"),
/// ])
/// ```
/// A message the client sends that differs from an `expect` step closes the connection with 1008 and is written down
/// in the session's ``MockWebSocketSession/mismatches``, so the test can say what was wrong.
public enum WebSocketStep: Sendable, Hashable {
    /// Sends a message after a delay.
    case send(WebSocketMessage, after: Duration = .zero)
    /// Waits for the client's next message and checks it.
    case expect(WebSocketMessage)
    /// Waits for the client's next message, whatever it is.
    case expectAnyMessage
    /// Waits.
    case wait(Duration)
    /// Closes the connection with a close frame after a delay.
    case close(WebSocketCloseCode, reason: String = "", after: Duration = .zero)
    /// Drops the connection without a close frame after a delay (the client sees the connection lost, code 1006).
    case abort(after: Duration = .zero)
    /// From now on, pings go unanswered.
    case stopAnsweringPings
    /// From now on, a close from the client goes unanswered: the client drops the connection after
    /// `WebSocketOptions.closeTimeout` on the mock's clock, and its close code is 1006.
    case stopAnsweringClose
    /// Sends invalid UTF-8 as a text message: the client must close with 1007.
    case sendInvalidUTF8
}

extension WebSocketStep {
    /// Sends text after a delay.
    public static func send(_ text: String, after delay: Duration = .zero) -> WebSocketStep {
        .send(.text(text), after: delay)
    }

    /// Sends each message, `interval` apart, the first after `interval` too.
    public static func stream(_ messages: [WebSocketMessage], every interval: Duration) -> [WebSocketStep] {
        messages.map { .send($0, after: interval) }
    }
}

/// What a mock endpoint answers a handshake with.
public enum WebSocketHandshake: Sendable, Hashable {
    /// 101: the connection opens and the script runs.
    case accept(headers: [String: String] = [:])
    /// Another status: the handshake is refused (a 401, say), with an optional body.
    case refuse(status: Int, body: String = "")
}
