import Foundation

/// Holds requests in a first-in, first-out queue while too many are in flight, in total or to one host.
///
/// Waiting requests leave in order of their task's priority, then of arrival: a `.userInitiated` request for what
/// is on screen passes `.utility` prefetches that came first. A request waits until both limits have room; a waiting request for a host at its limit does not hold up a request
/// for another host. Cancelling a waiting request removes it from the queue at once. When ``queueLimit`` requests
/// are already waiting, a new one fails at once with stage ``KonexError/Stage/queueFull`` instead of waiting
/// without bound. The wait is reported as ``RequestTiming/queue``.
/// ```swift
/// let limit = ConcurrencyLimit(maximum: 16, perHost: 4, queueLimit: 500)
/// let client = KonexClient(baseURL: api, interceptors: [limit])
/// ```
/// One instance is one set of limits: share it among clients to limit them together, or attach one to a single
/// request type (``KonexRequest/requestInterceptors``) to limit only that endpoint.
public final class ConcurrencyLimit: TransportInterceptor {
    /// The most requests in flight through this limit; `nil` for no overall limit.
    public let maximum: Int?
    /// The most requests in flight to one host (scheme, host and port); `nil` for no per-host limit.
    public let perHost: Int?
    /// The most requests waiting; `nil` for no limit.
    public let queueLimit: Int?

    private struct Waiter {
        let id: UInt64
        let host: String
        let priority: UInt8
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var inFlight = 0
        var inFlightByHost: [String: Int] = [:]
        var queue: [Waiter] = []
        var nextID: UInt64 = 0

        func hasRoom(for host: String, maximum: Int?, perHost: Int?) -> Bool {
            if let maximum, inFlight >= maximum { return false }
            if let perHost, inFlightByHost[host, default: 0] >= perHost { return false }
            return true
        }

        mutating func start(_ host: String) {
            inFlight += 1
            inFlightByHost[host, default: 0] += 1
        }
    }

    private let state = Lock(State())

    /// Creates a limit.
    /// - Parameters:
    ///   - maximum: The most requests in flight in total; `nil` for none.
    ///   - perHost: The most requests in flight to one host; `nil` for none.
    ///   - queueLimit: The most requests waiting before new ones fail with ``KonexError/Stage/queueFull``.
    public init(maximum: Int? = nil, perHost: Int? = nil, queueLimit: Int? = nil) {
        precondition(maximum.map { $0 > 0 } ?? true, "ConcurrencyLimit.maximum must be at least 1")
        precondition(perHost.map { $0 > 0 } ?? true, "ConcurrencyLimit.perHost must be at least 1")
        self.maximum = maximum
        self.perHost = perHost
        self.queueLimit = queueLimit
    }

    /// Requests in flight now, and requests waiting.
    public var counts: (inFlight: Int, waiting: Int) {
        state.withLock { ($0.inFlight, $0.queue.count) }
    }

    public func intercept(_ request: TransportRequest, next: TransportNext) async throws -> TransportReply {
        let host = request.origin
        let queued = try await acquire(host, for: request)
        var reply: TransportReply
        do {
            reply = try await next(request)
        } catch {
            release(host)
            throw error
        }
        reply.queueTime += queued
        // A stream holds its slot until its body ends, however it ends: the heaviest requests are the ones to bound.
        reply.body.whenEnded { self.release(host) }
        return reply
    }

    /// Takes a slot, waiting in line when there is none; returns how long it waited.
    ///
    /// Whether the request is admitted, queued, refused (queue full) or already cancelled is decided in one critical
    /// section, and the continuation is resumed from that decision alone: reading `Task.isCancelled` again outside
    /// the lock once let a cancel land after a slot was taken, and the slot was never released.
    private func acquire(_ host: String, for request: TransportRequest) async throws -> Duration {
        // The common case, a free slot and nobody waiting, costs one lock and no continuation.
        let admitted = state.withLock { state -> Bool in
            guard state.hasRoom(for: host, maximum: maximum, perHost: perHost) else { return false }
            state.start(host)
            return true
        }
        if admitted { return .zero }

        enum Outcome {
            case admitted
            case queued
            case cancelled
            case full(Int)
        }
        let started = ContinuousClock.now
        let priority = Task.currentPriority.rawValue
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        struct QueueFull: Error { let waiting: Int }
        do {
            try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let outcome = state.withLock { state -> Outcome in
                        // `Task.isCancelled` is set before the cancellation handler runs, and the handler takes this
                        // lock: read here, it cannot disagree with what the handler finds in the queue.
                        if Task.isCancelled { return .cancelled }
                        // A slot may have freed since the first look: take it (a release starts every waiter that has
                        // room, so nobody for this host is ahead in the queue when there is room now).
                        if state.hasRoom(for: host, maximum: maximum, perHost: perHost) {
                            state.start(host)
                            return .admitted
                        }
                        if let queueLimit, state.queue.count >= queueLimit { return .full(state.queue.count) }
                        // Behind everyone of the same or higher priority, ahead of the lower ones.
                        let waiter = Waiter(id: id, host: host, priority: priority, continuation: continuation)
                        let position = state.queue.lastIndex { $0.priority >= priority }.map { $0 + 1 } ?? 0
                        state.queue.insert(waiter, at: position)
                        return .queued
                    }
                    switch outcome {
                    case .admitted: continuation.resume()
                    case .queued: break  // resumed by release() or by the cancellation handler, whichever removes it
                    case .cancelled: continuation.resume(throwing: CancellationError())
                    case .full(let waiting): continuation.resume(throwing: QueueFull(waiting: waiting))
                    }
                }
            } onCancel: {
                let removed = state.withLock { state -> Waiter? in
                    guard let index = state.queue.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.queue.remove(at: index)
                }
                removed?.continuation.resume(throwing: CancellationError())
            }
        } catch let full as QueueFull {
            let waiting = full.waiting
            throw KonexError(
                stage: .queueFull,
                message:
                    "\(waiting) \(waiting == 1 ? "request already waits" : "requests already wait") for a "
                    + "ConcurrencyLimit slot (queueLimit \(queueLimit ?? 0))",
                method: request.method, url: request.url, request: request)
        }
        return started.duration(to: .now)
    }

    /// Frees a slot and starts every waiter that now has room, oldest first.
    private func release(_ host: String) {
        let started = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.inFlight -= 1
            state.inFlightByHost[host, default: 1] -= 1
            if state.inFlightByHost[host] == 0 { state.inFlightByHost[host] = nil }
            var started: [CheckedContinuation<Void, any Error>] = []
            var index = 0
            while index < state.queue.count {
                if let maximum, state.inFlight >= maximum { break }
                let waiter = state.queue[index]
                if state.hasRoom(for: waiter.host, maximum: maximum, perHost: perHost) {
                    state.queue.remove(at: index)
                    state.start(waiter.host)
                    started.append(waiter.continuation)
                } else {
                    index += 1
                }
            }
            return started
        }
        for continuation in started { continuation.resume() }
    }
}
