import Foundation
import Konex

// Interceptors written the way an app's engineer would: `import Konex`, no `@testable`. If either needs something
// Konex keeps internal, this target stops compiling.

/// At most `maximum` requests in flight, first come first served; a body still arriving keeps its slot until it
/// ends, as ``ConcurrencyLimit`` does.
final class Gate: TransportInterceptor {
    let maximum: Int
    private struct State {
        var inFlight = 0
        var mostInFlight = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    init(maximum: Int) { self.maximum = maximum }

    var inFlight: Int { state.withLock { $0.inFlight } }
    var mostInFlight: Int { state.withLock { $0.mostInFlight } }
    var waiting: Int { state.withLock { $0.waiting.count } }

    func intercept(_ request: TransportRequest, next: TransportNext) async throws -> TransportReply {
        await enter()
        let reply: TransportReply
        do {
            reply = try await next(request)
        } catch {
            leave()
            throw error
        }
        reply.body.whenEnded { self.leave() }
        return reply
    }

    private func enter() async {
        await withCheckedContinuation { continuation in
            let admitted = state.withLock { state -> Bool in
                guard state.inFlight < maximum else {
                    state.waiting.append(continuation)
                    return false
                }
                state.inFlight += 1
                state.mostInFlight = max(state.mostInFlight, state.inFlight)
                return true
            }
            if admitted { continuation.resume() }
        }
    }

    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.inFlight -= 1
                return nil
            }
            return state.waiting.removeFirst()  // the slot passes straight to the next in line
        }
        next?.resume()
    }
}

/// Keeps a GET's 200 answer whole by URL and serves it again without the network; streams and downloads pass by.
final class TinyCache: TransportInterceptor {
    private let stored = Mutex([URL: (ResponseHead, Data)]())

    var count: Int { stored.withLock { $0.count } }

    func intercept(_ request: TransportRequest, next: TransportNext) async throws -> TransportReply {
        guard next.delivery == .whole, request.method == .get else { return try await next(request) }
        if let (head, data) = stored.withLock({ $0[request.url] }) {
            return TransportReply(response: head, body: ResponseBody(data), source: .cache)
        }
        var reply = try await next(request)
        guard reply.response.statusCode == 200 else { return reply }
        // Whole for this delivery from Konex's transport; an interceptor nearer it could still stream, so collect.
        let data = try await reply.body.collect(upTo: 1 << 20)
        reply.body = ResponseBody(data)
        stored.withLock { $0[request.url] = (reply.response, data) }
        return reply
    }
}

/// A lock around a value (the `Synchronization` module's `Mutex` is newer than Konex's platform floor).
final class Mutex<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
