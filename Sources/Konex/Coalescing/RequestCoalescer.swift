import Foundation

/// Shares one transport call among identical in-flight GET and HEAD requests: a feed that asks for the same page
/// ten times at once sends it once.
///
/// Requests are identical when they come from the same ``KonexClient``, and method, URL and every header (names
/// compared without case, a repeated field's lines joined in order, so credentials count) match and neither has a
/// body. Two clients never share a call, even with equal headers: what a request carries below its headers (the
/// session's cookies and stored credentials) is its client's, so one coalescer shared by per-user clients never
/// hands user B user A's answer. A chain made by hand (``TransportNext/clientIdentity`` `nil`) is one identity. Each caller gets its own reply value and runs its own validators, processors and
/// decoding. A caller that is cancelled leaves at once and the others keep waiting; the transport call is cancelled
/// only when the last caller has left. Other methods always go through on their own.
/// ```swift
/// let client = KonexClient(baseURL: api, interceptors: [RequestCoalescer()])
/// async let a = client.request(GetFeed()).responseArray(of: Post.self)
/// async let b = client.request(GetFeed()).responseArray(of: Post.self)   // rides on a's transport call
/// ```
/// Place it after an ``HTTPCache`` (hits never reach it) and before a ``ConcurrencyLimit`` (a shared call takes one
/// slot). Replies say ``TransportReply/isShared`` when more than one caller received them.
public final class RequestCoalescer: TransportInterceptor {
    private let ignoredHeaders: Set<String>
    private let state = Lock(State())

    private struct State {
        var flights: [Key: Flight] = [:]
        /// Numbers flights, so a finished call never answers a later flight of the same key.
        var generations: UInt64 = 0
    }

    /// Creates a coalescer.
    /// - Parameter ignoringHeaders: Header names that do not make requests different, besides the trace context
    ///   (``traceContextHeaders``), which never does; compared without case.
    public init(ignoringHeaders: Set<String> = []) {
        ignoredHeaders = Self.traceContextHeaders.union(ignoringHeaders.map { $0.lowercased() })
    }

    /// The W3C trace context headers (`traceparent`, `tracestate`, `baggage`): different on every traced request, so
    /// they never keep requests apart. The shared call carries the first caller's trace context.
    public static let traceContextHeaders: Set<String> = ["traceparent", "tracestate", "baggage"]

    /// How many shared transport calls are in flight now.
    public var inFlightCount: Int { state.withLock { $0.flights.count } }

    /// How many callers wait on shared calls now.
    public var waiterCount: Int { state.withLock { $0.flights.values.reduce(0) { $0 + $1.waiters.count } } }

    private final class Ticket: Sendable {}

    /// What makes two requests the same.
    struct Key: Hashable {
        /// The client asking (``TransportNext/clientIdentity``): its session's identity lies below the headers.
        let client: ObjectIdentifier?
        let method: String
        let url: String
        let headers: [String]
    }

    /// One shared transport call and the callers waiting for it.
    private struct Flight {
        let generation: UInt64
        var waiters: [UInt64: CheckedContinuation<TransportReply, any Error>] = [:]
        var joined = 0
        var task: Task<Void, Never>?
    }

    func key(for request: TransportRequest, client: ObjectIdentifier?) -> Key? {
        let method = request.httpMethod
        guard method == "GET" || method == "HEAD", request.body == nil else { return nil }
        let url = request.url.absoluteString
        // Names in lower case, a repeated field's values joined in order.
        let headers = request.headerFields.joinedByName(separator: ",")
            .compactMap { name, field in ignoredHeaders.contains(name) ? nil : name + ":" + field.value }
            .sorted()
        return Key(client: client, method: method, url: url, headers: headers)
    }

    public func intercept(_ request: TransportRequest, next: TransportNext) async throws -> TransportReply {
        // A body still arriving, or written to a file, has one reader: it cannot be shared.
        guard next.delivery == .whole, let key = key(for: request, client: next.clientIdentity) else {
            return try await next(request)
        }
        // A caller's identity among the waiters: the address of an object it holds until it returns. A waiter is
        // removed before it is resumed, so no stale entry can share a reused address; and no shared counter means
        // a burst of callers takes one lock, not two.
        let ticket = Ticket()
        let id = UInt64(UInt(bitPattern: ObjectIdentifier(ticket)))
        let reply: TransportReply = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let generation: UInt64? = state.withLock { state in
                    // Cancelled before joining: the cancellation handler already ran and found nothing to remove.
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                        return nil
                    }
                    // One hash of the key for a joining caller (it holds the URL and every header), not three.
                    if let flight = state.flights.index(forKey: key) {
                        state.flights.values[flight].waiters[id] = continuation
                        state.flights.values[flight].joined += 1
                        return nil
                    }
                    state.generations += 1
                    var flight = Flight(generation: state.generations)
                    flight.waiters[id] = continuation
                    flight.joined = 1
                    state.flights[key] = flight
                    return state.generations
                }
                guard let generation else { return }
                // Not a child of the caller: the call must outlive the first caller if others still wait. It runs at
                // high priority so it is not queued behind the other callers of a burst, who only wait for it.
                let priority = max(Task.currentPriority.rawValue, TaskPriority.high.rawValue)
                let task = Task(priority: TaskPriority(rawValue: priority)) {
                    await self.fly(key, generation: generation, request: request, next: next)
                }
                let stored = state.withLock { state in
                    guard state.flights[key]?.generation == generation else { return false }
                    state.flights[key]!.task = task
                    return true
                }
                if !stored { task.cancel() }  // every caller left before the task was stored
            }
        } onCancel: {
            leave(key, id: id)
            withExtendedLifetime(ticket) {}
        }
        // The reply was made on the shared call's task and came here through a continuation: ordered by the language,
        // but an edge the thread sanitizer does not see on Linux (scripts/tsan-continuation-handoff.swift shows it
        // report a program with no race). Taking the lock the shared call released before resuming anyone makes the
        // order one it sees: one uncontended lock a coalesced call.
        state.withLock { _ in }
        return reply
    }

    /// Makes the shared call and answers everyone still waiting.
    private func fly(_ key: Key, generation: UInt64, request: TransportRequest, next: TransportNext) async {
        let result: Result<TransportReply, any Error>
        do {
            var reply = try await next(request)
            // Several callers read one body: one still arriving (from an interceptor nearer the transport) is
            // collected first, since a stream has one reader.
            if reply.body.data == nil { reply.body = ResponseBody(try await reply.body.collect(upTo: .max)) }
            result = .success(reply)
        } catch {
            result = .failure(error)
        }
        let flight = state.withLock { state -> Flight? in
            guard state.flights[key]?.generation == generation else { return nil }
            return state.flights.removeValue(forKey: key)
        }
        guard let flight else { return }
        let shared = flight.joined > 1
        for continuation in flight.waiters.values {
            continuation.resume(
                with: result.map { reply in
                    var reply = reply
                    reply.isShared = shared
                    return reply
                })
        }
    }

    /// A caller was cancelled: it leaves now; the call is cancelled when nobody is left.
    private func leave(_ key: Key, id: UInt64) {
        let (continuation, abandoned) = state.withLock {
            state -> (CheckedContinuation<TransportReply, any Error>?, Task<Void, Never>?) in
            guard var flight = state.flights[key], let continuation = flight.waiters.removeValue(forKey: id) else {
                return (nil, nil)
            }
            if flight.waiters.isEmpty {
                state.flights[key] = nil
                return (continuation, flight.task)
            }
            state.flights[key] = flight
            return (continuation, nil)
        }
        continuation?.resume(throwing: CancellationError())
        abandoned?.cancel()
    }
}
