import Foundation
import Konex

extension RecordingTransport: WebSocketTransport {
    /// Replays a recorded session, or records a live one as an entry with Chrome DevTools' `_webSocketMessages`
    /// (every message, its direction, time and opcode; text redacted like a body), written when the connection ends.
    public func connect(_ head: RequestHead, options: WebSocketOptions) async throws -> any WebSocketChannel {
        let request = head.urlRequest
        if let recorded = try await replayed(request, { try await replay.connect(head, options: options) }) {
            return recorded
        }
        guard let sockets = live as? any WebSocketTransport else {
            throw FixtureError("the live transport \(type(of: live)) cannot open WebSockets, so none can be recorded")
        }
        let redaction = self.redaction ?? .current
        let started = now()
        let begin = ContinuousClock.now
        let channel = try await sockets.connect(head, options: options)
        return RecordingWebSocketChannel(base: channel) { messages in
            try? await self.record(
                request, channel.response, body: Data(), startedAt: started,
                duration: ContinuousClock.now - begin,
                redaction: redaction, webSocketMessages: messages)
        }
    }
}

/// Passes a connection through, writing down each message; hands them over once, when the connection ends.
final class RecordingWebSocketChannel: WebSocketChannel {
    private let base: any WebSocketChannel
    private let messages = Lock<[HAR.WebSocketMessage]?>([])
    private let onEnd: @Sendable ([HAR.WebSocketMessage]) async -> Void

    init(base: any WebSocketChannel, onEnd: @escaping @Sendable ([HAR.WebSocketMessage]) async -> Void) {
        self.base = base
        self.onEnd = onEnd
    }

    private func note(_ message: WebSocketMessage, _ type: String) {
        let record: HAR.WebSocketMessage =
            switch message {
            case .text(let text):
                HAR.WebSocketMessage(type: type, time: Date().timeIntervalSince1970, opcode: 1, data: text)
            case .binary(let data):
                HAR.WebSocketMessage(
                    type: type, time: Date().timeIntervalSince1970, opcode: 2, data: data.base64EncodedString())
            }
        messages.withLock { $0?.append(record) }
    }

    /// Hands the messages over once.
    private func ended() async {
        let taken = messages.withLock { messages in
            defer { messages = nil }
            return messages
        }
        if let taken { await onEnd(taken) }
    }

    var response: ResponseHead { base.response }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    var taskExecutor: (any TaskExecutor)? { base.taskExecutor }

    func send(_ message: WebSocketMessage) async throws {
        try await base.send(message)
        note(message, "send")
    }

    func receive() async throws -> WebSocketMessage? {
        do {
            guard let message = try await base.receive() else {
                await ended()
                return nil
            }
            note(message, "receive")
            return message
        } catch {
            await ended()
            throw error
        }
    }

    func ping() async throws { try await base.ping() }

    func close(code: WebSocketCloseCode, reason: String) async {
        await base.close(code: code, reason: reason)
        await ended()
    }

    func abort() {
        base.abort()
        Task { await self.ended() }
    }

    var closeCode: WebSocketCloseCode? { base.closeCode }
    var closeReason: String? { base.closeReason }
}
