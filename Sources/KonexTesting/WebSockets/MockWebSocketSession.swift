import Foundation
import Konex

/// One connection a ``MockTransport`` accepted: what the client sent and how it ended, for assertions.
public final class MockWebSocketSession: Sendable {
    struct State {
        var clientMessages: [WebSocketMessage] = []
        var mismatches: [String] = []
        var clientCloseCode: WebSocketCloseCode?
        var clientCloseReason: String?
        var pings = 0
        var closed = false
    }

    let state = Lock(State())
    /// The handshake request as the client sent it (adapters applied).
    public let request: TransportRequest

    init(request: TransportRequest) { self.request = request }

    /// Every message the client sent, in order.
    public var clientMessages: [WebSocketMessage] { state.value.clientMessages }
    /// Messages that did not match an `expect` step, described.
    public var mismatches: [String] { state.value.mismatches }
    /// The close code the client sent, if it closed (1009 for a message over its limit, say).
    public var clientCloseCode: WebSocketCloseCode? { state.value.clientCloseCode }
    /// The reason the client sent with its close code.
    public var clientCloseReason: String? { state.value.clientCloseReason }
    /// How many pings the client sent.
    public var pingCount: Int { state.value.pings }
    /// Whether the connection is over.
    public var isClosed: Bool { state.value.closed }
}
