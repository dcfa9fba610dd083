import Foundation
import Konex

extension MockTransport {
    /// Serves every WebSocket session recorded in `archive` (entries with `_webSocketMessages`, as Chrome DevTools and
    /// Konex write them): a handshake to the same path opens a connection that plays the server's messages back.
    ///
    /// ```swift
    /// let (archive, _) = try HAR.read(from: fixtures.appendingPathComponent("chat-session.har"))  // saved in Chrome
    /// let mock = MockTransport(clock: clock)
    /// mock.stubWebSockets(from: archive, pacing: true)
    /// ```
    /// - Parameters:
    ///   - archive: The recording.
    ///   - pacing: Keep the recorded time between messages (on the mock's clock); `false` sends them at once.
    ///   - strictSends: Expect the client to send exactly what was recorded (a mismatch closes with 1008 and is in
    ///     the session's `mismatches`); `false` waits for any message where the recording has one.
    /// - Returns: How many sessions were stubbed.
    @discardableResult
    public func stubWebSockets(from archive: HAR, pacing: Bool = false, strictSends: Bool = false) -> Int {
        var count = 0
        for entry in archive.log.entries {
            guard let messages = entry._webSocketMessages, let url = URL(string: entry.request.url) else { continue }
            stubWebSocket(
                RequestMatcher(method: .get, path: url.path.isEmpty ? "/" : url.path),
                script: Self.script(replaying: messages, pacing: pacing, strictSends: strictSends), times: .once)
            count += 1
        }
        return count
    }

    /// The steps that play `messages` back from the server's side.
    static func script(replaying messages: [HAR.WebSocketMessage], pacing: Bool, strictSends: Bool) -> [WebSocketStep] {
        var steps: [WebSocketStep] = []
        var previous = messages.first?.time ?? 0
        for record in messages {
            guard let message = record.message else { continue }  // a ping, a pong or a close: not replayed
            // A file's times may be absurd (1e300, NaN, backwards): the gap is clamped, never a trap.
            let gap = pacing ? Duration(clampedSeconds: record.time - previous, atMost: 86_400) : .zero
            previous = record.time
            if record.type == "send" {
                if gap > .zero { steps.append(.wait(gap)) }
                steps.append(strictSends ? .expect(message) : .expectAnyMessage)
            } else {
                steps.append(.send(message, after: gap))
            }
        }
        return steps
    }
}
