import Foundation

/// An open WebSocket connection, opened through the same pipeline head as every request: built, adapted (the
/// handshake carries your auth headers), seen by plugins and instruments, a refused handshake handed to the retriers.
///
/// Read ``messages`` once (text, binary, or decoded with ``messages(decoding:decoder:)-1y1ot``); send text, data or
/// `Encodable` values; ``close(_:reason:)`` when done. With a ping interval, an unanswered ping fails the connection
/// on the client's clock. With ``DataRequest/reconnecting(_:)``, a connection that breaks is opened again through
/// the pipeline and reading goes on. Cancelling the reading task closes the connection, once.
/// ```swift
/// let socket = try await client.request(Chat()).withAdapter(auth).webSocket(pingInterval: .seconds(20))
/// try await socket.send(json: Hello(room: "swift"))
/// for try await message in socket.messages(decoding: ChatLine.self) { print(message.text) }
/// ```
/// Every error is a ``KonexError``: stage `.handshake` (a refused handshake, with the server's response), `.protocolViolation`
/// (a bad frame, text that is not UTF-8, a message over the limit) or `.connection` (lost, a ping unanswered).
public final class WebSocket: Sendable {
    let source: DataRequest
    let options: WebSocketOptions
    let pingInterval: Duration?
    let pongTimeout: Duration
    private let state: Lock<State>

    private struct State {
        var channel: any WebSocketChannel
        var request: TransportRequest
        var response: ResponseHead
        var recorders: Recorders?
        var attempts: Int
        /// This side started closing (``close(_:reason:)`` or a cancelled reader): the end is not a failure.
        var closing = false
        /// Why the connection failed, when Konex failed it (an unanswered ping).
        var failure: KonexError?
        var pinger: Task<Void, Never>?
        var connections = 1
    }

    init(
        source: DataRequest, answer: ReceivedResponse, channel: any WebSocketChannel, pingInterval: Duration?,
        pongTimeout: Duration, options: WebSocketOptions
    ) {
        self.source = source
        self.options = options
        self.pingInterval = pingInterval
        self.pongTimeout = pongTimeout
        state = Lock(
            State(
                channel: channel, request: answer.request, response: answer.response,
                recorders: answer.reply.recorders, attempts: answer.timing.attempt))
        startPinging()
    }

    deinit {
        let (channel, pinger, open, response) = state.withLock {
            ($0.channel, $0.pinger, !$0.closing, $0.response)
        }
        pinger?.cancel()
        // Released without close(): the span and the open-connections gauge end here, once (close() took them if it
        // ran first).
        end(.success(response))
        // A socket nobody holds is read by nobody: close it rather than keep the server waiting.
        if open, channel.closeCode == nil { Task { await channel.close(code: .goingAway, reason: "") } }
    }

    /// The handshake request of the current connection, after adapters.
    public var request: TransportRequest { state.value.request }
    /// The handshake's response (101) of the current connection.
    public var response: ResponseHead { state.value.response }
    /// How many connections were opened, the first included (reconnections add one each).
    public var connectionCount: Int { state.value.connections }
    /// The executor the connection's own events run on (`NIOWebSocketTransport`'s event loop), or `nil` when the
    /// transport has none to offer.
    ///
    /// A reader that does little per message (an echo, a relay) and runs with this preference reads and answers on
    /// the connection's own thread: no thread hop per message (Autobahn's round trips: about a quarter faster). Keep
    /// heavy work off it: the event loop waits while your loop body runs. After a reconnection the new connection may
    /// run elsewhere.
    /// ```swift
    /// try await withTaskExecutorPreference(socket.taskExecutor) {
    ///     for try await message in socket.messages { try await socket.send(message) }
    /// }
    /// ```
    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    public var taskExecutor: (any TaskExecutor)? { state.value.channel.taskExecutor }

    /// The close code the peer sent, once the connection closed (1006 when it ended without one); `nil` while open.
    public var closeCode: WebSocketCloseCode? { state.value.channel.closeCode }
    /// The reason the peer gave with its close code.
    public var closeReason: String? { state.value.channel.closeReason }

    /// Sends a text message.
    /// - Throws: ``KonexError`` when the connection is closed or broken.
    public func send(_ text: String) async throws { try await send(.text(text)) }

    /// Sends a binary message.
    /// - Throws: ``KonexError`` when the connection is closed or broken.
    public func send(_ data: Data) async throws { try await send(.binary(data)) }

    /// Sends a message.
    /// - Throws: ``KonexError`` when the connection is closed or broken.
    public func send(_ message: WebSocketMessage) async throws {
        let channel = state.value.channel
        do { try await channel.send(message) } catch { throw konexError(error) }
    }

    /// The messages as they arrive, read once; ends when the connection closes cleanly.
    public var messages: WebSocketMessages { WebSocketMessages(socket: self) }

    /// Closes the connection with `code` and `reason` (once: later calls do nothing), waiting briefly for the peer's
    /// close.
    public func close(_ code: WebSocketCloseCode = .normalClosure, reason: String = "") async {
        let (first, channel, pinger) = state.withLock { state in
            defer { state.closing = true }
            return (!state.closing, state.channel, state.pinger)
        }
        guard first else { return }
        pinger?.cancel()
        await channel.close(code: code, reason: reason)
        end(.success(response))
    }

    // MARK: Reading

    /// The next message, reconnecting as the policy says; `nil` after a clean close.
    func next() async throws -> WebSocketMessage? {
        while true {
            let channel = state.value.channel
            let failure: KonexError
            do {
                let message = try await withTaskCancellationHandler {
                    try await channel.receive()
                } onCancel: {
                    Task { await self.close(.goingAway) }
                }
                if Task.isCancelled { throw CancellationError() }
                if let message { return message }
                // The peer closed. 1000 and 1001 are ends; other codes (1011, 1012 …) may reconnect.
                let code = channel.closeCode ?? .abnormalClosure
                if state.value.closing || code == .normalClosure || code == .goingAway {
                    end(.success(response))
                    return nil
                }
                failure = konexError(
                    WebSocketFailure(
                        .connectionLost,
                        "the server closed the connection with \(code)"
                            + (channel.closeReason.map { $0.isEmpty ? "" : ": \($0)" } ?? ""),
                        closeCode: code))
            } catch {
                if Task.isCancelled || error is CancellationError {
                    await close(.goingAway)
                    throw KonexError.cancelled(
                        request, method: request.method, url: request.url)
                }
                failure = state.value.failure ?? konexError(error)
                if state.value.closing { return nil }
            }
            if failure.stage == .connection, try await reconnect() { continue }
            if state.value.closing { return nil }  // closed by the app while the reconnection waited
            end(.failure(failure))
            throw failure
        }
    }

    /// Opens the connection again through the pipeline as ``DataRequest/reconnecting(_:)`` asked; `false` when there
    /// is no policy, or it gave up.
    private func reconnect() async throws -> Bool {
        guard let policy = source.reconnection, !state.value.closing else { return false }
        state.value.pinger?.cancel()
        end(.failure(konexError(WebSocketFailure(.connectionLost, "the connection broke; reconnecting"))))
        var failures = 0
        while failures < policy.maximumAttempts {
            do {
                try await source.client.activeClock.sleep(for: policy.delay(serverRetry: nil, failures: failures))
            } catch {
                throw KonexError.cancelled(request, method: request.method, url: request.url)
            }
            // `close()` during the wait ends the socket: no new connection undoes it.
            if state.value.closing { return false }
            do {
                let answer = try await source.execute(body: .webSocket(options))
                let channel = try answer.connection()
                let installed = state.withLock { state in
                    guard !state.closing else { return false }
                    state.channel = channel
                    state.request = answer.request
                    state.response = answer.response
                    state.recorders = answer.reply.recorders
                    state.failure = nil
                    state.connections += 1
                    return true
                }
                guard installed else {
                    answer.reply.recorders?.end(.success(answer.response), attempts: 1)
                    channel.abort()
                    return false
                }
                startPinging()
                return true
            } catch let error as KonexError {
                if error.stage == .cancelled { throw error }
                if let status = error.statusCode, !policy.retryableStatusCodes.contains(status) { throw error }
                failures += 1
            }
        }
        return false
    }

    /// Ends the current connection's recorders, once.
    private func end(_ result: Result<ResponseHead, KonexError>) {
        let (recorders, attempts) = state.withLock { state in
            defer { state.recorders = nil }
            return (state.recorders, state.attempts)
        }
        recorders?.end(result, attempts: attempts)
    }

    // MARK: Pings

    /// Pings every `pingInterval` on the client's clock; a pong later than `pongTimeout` fails the connection.
    private func startPinging() {
        guard let interval = pingInterval else { return }
        let clock = source.client.activeClock
        let timeout = pongTimeout
        let channel = state.value.channel
        let task = Task { [weak self] in
            while !Task.isCancelled {
                do { try await clock.sleep(for: interval) } catch { return }
                // Not a task group: it would wait for a ping that ignores cancellation (URLSession's calls back only
                // with a pong), and the timeout would never be acted on.
                let answered = await firstOf(
                    { (try? await channel.ping()) != nil }, orDeadline: timeout, on: clock)
                if Task.isCancelled { return }
                switch answered {
                case true: continue
                case nil:
                    self?.fail(
                        WebSocketFailure(
                            .pongTimeout, "no pong within \(timeout) of a ping (sent every \(interval))",
                            closeCode: .abnormalClosure))
                    return
                case false: return  // the ping failed: the connection is closing, and the reader hears why
                }
            }
        }
        state.withLock { $0.pinger = task }
    }

    /// Fails the connection for a reason Konex found (the reader sees it), and drops it.
    private func fail(_ failure: WebSocketFailure) {
        let error = konexError(failure)  // reads the state: not under its lock
        let channel = state.withLock { state in
            state.failure = error
            return state.channel
        }
        channel.abort()
    }

    /// `error` as a ``KonexError`` naming the current connection's request.
    func konexError(_ error: any Error) -> KonexError {
        var failure = KonexError.transport(error, request: request)
        failure.response = failure.response ?? response
        return failure
    }
}
