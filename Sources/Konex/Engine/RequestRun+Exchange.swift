import Foundation

// Exchange: one attempt's request sent and answered, read top to bottom:
//
//   exchange          times the attempt, reports progress, turns a late answer to a cancelled call into a failure
//   answer            within the total timeout when there is one; through the interceptors when there are any;
//                     a WebSocket's handshake; else straight to the transport
//   sendFollowingRedirects, followRedirects
//                     every redirect hop is a request of its own, with the cookie jar's cookies for its own URL
//   sendOnce          one hop over the transport, told how the body will be taken
//   takeBody          the one place a body is taken the way the caller wants it: whole into memory within
//                     `maximumResponseSize`, into a file, or as it arrives (with the start of an error body kept)
extension RequestRun {
    /// Sends one attempt's `request` and takes its answer: never throws, so the verdict sees every failure.
    @_transparent func exchange(_ request: TransportRequest, attempt: Int) async -> Result<ReceivedResponse, KonexError>
    {
        let sendStarted = Moment.now
        let watch = TransferWatch(progress: call.progress, request: request)
        do {
            let reply: TransportReply
            if let totalTimeout {
                reply = try await answer(request, within: totalTimeout, watch: watch)
            } else {
                reply = try await answer(request, watch: watch)
            }
            let now = Moment.now
            if let report = watch.report, !report.hasFinished { report.answered(by: reply) }
            // A transport that ignores cancellation must not turn a cancelled request into a late success.
            if Task.isCancelled {
                // A streamed transfer nobody will read stops here, not at its server's end.
                reply.discard()
                return .failure(call.cancellationError(request))
            }
            let timing = RequestTiming(
                startDate: startDate, total: now - started, transport: now - sendStarted, attempt: attempt,
                phases: watch.phases?.value, queue: reply.queueTime)
            if reply.response.isResent { transportResent(request) }
            return .success(ReceivedResponse(reply, timing: timing, for: request))
        } catch {
            var failure = KonexError.transport(error, request: request)
            failure.attempt = attempt
            return .failure(failure)
        }
    }

    /// The transport sent the attempt twice on its own: the client's retry budget counts the retry (it already
    /// happened, so it is never refused); instruments hear of it from the timing (`Recorders.attemptDidEnd`).
    // Out of line: its locals would take room in every request's async frame.
    @inline(never) private func transportResent(_ request: TransportRequest) {
        client.retryBudget.recordRetry(to: client.origin(of: request))
    }

    /// ``answer(_:watch:)`` within the total timeout (``firstOf(_:orDeadline:on:discarding:)``): past it the caller
    /// gets a timeout at once and the exchange is cancelled, without waiting for it to stop (a transport slow to
    /// honour cancellation would stretch the limit to the body's end); what it answers late is cleaned up.
    /// - Throws: ``TransportFailure`` of kind ``TransportFailure/Kind/timedOut`` past the limit; `CancellationError`
    ///   when the caller is cancelled; the exchange's errors.
    @inline(never) private func answer(_ request: TransportRequest, within limit: Duration, watch: TransferWatch)
        async throws
        -> TransportReply
    {
        let outcome = await firstOf(
            { [self] () async -> Result<TransportReply, any Error> in
                do { return .success(try await answer(request, watch: watch)) } catch { return .failure(error) }
            },
            orDeadline: limit, on: client.activeClock,
            discarding: { late in
                // Too late: nobody reads it.
                guard case .success(let reply) = late else { return }
                reply.discard()
            })
        guard let outcome else {
            if Task.isCancelled { throw CancellationError() }
            throw TransportFailure(.timedOut, url: request.url, underlying: TotalTimeoutExceeded(limit: limit))
        }
        return try outcome.get()
    }

    /// The reply to `request`: through the interceptors when there are any, a WebSocket's handshake, or the
    /// transport's, every hop of a redirect chain followed and the body taken as ``target`` wants it.
    @_transparent private func answer(_ request: TransportRequest, watch: TransferWatch) async throws -> TransportReply
    {
        if let interceptors { return try await intercepted(request, through: interceptors, watch: watch) }
        if case .webSocket(let options) = target { return try await handshake(request, options: options) }
        if !tls.isDefault { try tls.check(appliedBy: transport, for: request.url) }
        return try await sendFollowingRedirects(request) { hop in
            try await Self.takeBody(
                sendOnce(hop, watch: watch), for: hop, as: target, report: watch.report, limit: maximumResponseSize)
        }
    }

    /// The reply through the interceptors: each hop of a redirect chain passes them as a request of its own.
    @inline(never) private func intercepted(
        _ request: TransportRequest, through chain: InterceptorChain, watch: TransferWatch
    )
        async throws -> TransportReply
    {
        if !tls.isDefault { try tls.check(appliedBy: transport, for: request.url) }
        // A whole body's innermost call may answer several callers (coalescing) or none (a cache hit), so it is read
        // into memory there, within the limit, and its progress is reported at the ends only; a stream or a download
        // has one caller and passes the interceptors as the transport handed it over, to be taken after them.
        let delivery: BodyDelivery =
            switch target {
            case .memory, .webSocket: .whole
            case .file: .file
            case .stream: .incremental
            }
        // The innermost call is the chain's own closure: it takes what it needs, not the whole run.
        let transport = self.transport
        let context = transportContext(report: delivery == .whole ? nil : watch.report, observer: watch.observer)
        let limit = maximumResponseSize
        return try await sendFollowingRedirects(request) { hop in
            let reply = try await chain.reply(to: hop, delivery: delivery, clientIdentity: ObjectIdentifier(client)) {
                request in
                let (response, body) = try await transport.send(request, context: context)
                let reply = TransportReply(response: response, body: body)
                guard delivery == .whole, body.data == nil else { return reply }
                return try await Self.takeBody(reply, for: request, as: .memory, report: nil, limit: limit)
            }
            // A body read into memory above passes `takeBody` again on its fast path (one comparison): a cache's or a
            // canned reply may be over the limit, or wanted in a file or as a stream.
            return try await Self.takeBody(reply, for: hop, as: target, report: watch.report, limit: limit)
        }
    }

    /// A WebSocket's handshake: the open connection, once its answer checks out.
    @inline(never) private func handshake(_ request: TransportRequest, options: WebSocketOptions) async throws
        -> TransportReply
    {
        let transport = try client.activeWebSocketTransport()
        var options = options
        if !tls.isDefault {
            try tls.check(appliedBy: transport, for: request.url)
            options.tls = tls
        }
        // A handshake is a request like another: it carries the jar's cookies, and its answer may set some.
        let jar = client.cookieJar
        let sent = jar?.attaching(to: request) ?? request
        let channel = try await transport.connect(sent.head, options: options)
        do {
            try WebSocketHandshakeCheck.check(sent, answeredBy: channel.response)
        } catch {
            channel.abort()
            throw error
        }
        jar?.receive(channel.response, source: .network, answering: sent)
        return TransportReply(response: channel.response, body: .webSocket(channel))
    }
}

// Redirects: a transport never follows one; each hop the rules (RedirectRules) and the policy allow is sent as a
// request of its own, so interceptors, a cache among them, see every hop.
extension RequestRun {
    /// Sends `request` with `send`, then each redirect hop; a hop's body is discarded.
    /// - Throws: A ``KonexError`` of stage ``KonexError/Stage/redirect`` for a redirect the rules refuse.
    @inline(__always) private func sendFollowingRedirects(
        _ request: TransportRequest, send: (TransportRequest) async throws -> TransportReply
    ) async throws -> TransportReply {
        if let jar = redirects.cookies {
            // Each hop carries the jar's cookies for its own URL, and its `Set-Cookie` lines go into the jar before the
            // next hop is sent. The rules and the policy read the hop without them, so they never pass from one origin
            // to another.
            func sendWithCookies(_ hop: TransportRequest) async throws -> TransportReply {
                let reply = try await send(jar.attaching(to: hop))
                jar.receive(reply.response, source: reply.source, answering: hop)
                return reply
            }
            let reply = try await sendWithCookies(request)
            guard RedirectRules.redirects(reply.response.statusCode) else { return reply }
            return try await followRedirects(after: reply, to: request, send: sendWithCookies)
        }
        let reply = try await send(request)
        // Most answers are not redirects: one comparison, and nothing allocated.
        guard RedirectRules.redirects(reply.response.statusCode) else { return reply }
        return try await followRedirects(after: reply, to: request, send: send)
    }

    /// The redirect loop, from the first 3xx `reply` to `request`.
    @inline(never) private func followRedirects(
        after reply: TransportReply, to request: TransportRequest,
        send: (TransportRequest) async throws -> TransportReply
    ) async throws -> TransportReply {
        var reply = reply
        var current = request
        var visited = [RedirectRules.visitKey(request)]
        var hops: [Redirect] = []
        while true {
            let response = reply.response
            switch RedirectRules.next(
                after: response, to: current, visited: visited, policy: redirects.policy,
                redaction: redirects.redaction)
            {
            case .stop:
                reply.redirects = hops
                return reply
            case .follow(let next, let hop):
                reply.discard()
                hops.append(hop)
                visited.append(RedirectRules.visitKey(next))
                current = next
                reply = try await send(current)
            case .refuse(let reason):
                reply.discard()
                throw KonexError(
                    stage: .redirect, message: reason, method: current.method,
                    url: current.url, request: current, response: response)
            }
        }
    }
}

// One hop over the transport.
extension RequestRun {
    /// Sends `request` once (no redirect followed), telling the transport how the body will be taken.
    @inline(__always) private func sendOnce(_ request: TransportRequest, watch: TransferWatch) async throws
        -> TransportReply
    {
        let context = transportContext(report: watch.report, observer: watch.observer)
        let (response, body) = try await transport.send(request, context: context)
        return TransportReply(response: response, body: body)
    }

    /// The transport's hint: a body read into memory is asked for whole, unless it is counted or limited as it
    /// comes; then, like a stream, as it arrives.
    private func transportContext(report: ProgressReport?, observer: TransferObserver?) -> TransportContext {
        let delivery: BodyDelivery
        var bufferLimit = ByteStream.defaultBufferLimit
        switch target {
        case .memory, .webSocket:
            if let limit = maximumResponseSize {
                delivery = .incremental
                bufferLimit = Swift.max(bufferLimit, Swift.min(limit, Int.max / 2) + 1)
            } else {
                delivery = report == nil ? .whole : .incremental
                // Counted as it comes, the body still ends whole in memory: a buffer limit would only fail a transfer
                // whose reader (this gather loop) a loaded machine delayed. A transport that cannot pause (libcurl)
                // failed a 10 MB echo with "fell more than 8388608 bytes behind" on CI.
                if report != nil { bufferLimit = Int.max / 2 }
            }
        case .file:
            delivery = .file
        case .stream(let options):
            delivery = .incremental
            bufferLimit = options.bufferLimit
        }
        return TransportContext(delivery: delivery, bufferLimit: bufferLimit, observer: observer, tls: tls)
    }
}

// Taking the body: the one home of `maximumResponseSize`, of download progress, of a download's file and of a
// streamed body's idle and total timeouts. Whatever the body's form (whole, still arriving, in a file; from a
// transport, a cache or a canned reply), each target gets it the same way.
extension RequestRun {
    /// `reply` with its body taken the way `target` wants it.
    /// - Throws: A ``KonexError`` naming ``KonexClient/maximumResponseSize`` for a body over it (the body is
    ///   stopped); the body's own errors.
    // The usual reply, a whole body for memory within the limit, returns as it came; the rest is taken in a frame of
    // its own.
    @inline(__always) private static func takeBody(
        _ reply: TransportReply, for request: TransportRequest, as target: BodyTarget, report: ProgressReport?,
        limit: Int?
    ) async throws -> TransportReply {
        if case .memory = target, let data = reply.body.data, data.count <= limit ?? .max { return reply }
        return try await reshapeBody(reply, for: request, as: target, report: report, limit: limit)
    }

    /// ``takeBody(_:for:as:report:limit:)`` for every body but a whole one within the limit for memory.
    @inline(never) private static func reshapeBody(
        _ reply: TransportReply, for request: TransportRequest, as target: BodyTarget, report: ProgressReport?,
        limit: Int?
    ) async throws -> TransportReply {
        let (response, body) = (reply.response, reply.body)
        func replying(_ body: ResponseBody, errorHead: Data = Data()) -> TransportReply {
            var taken = reply
            taken.body = body
            taken.errorHead = errorHead
            return taken
        }
        switch target {
        case .memory, .webSocket:
            if let data = body.data {
                if let limit, data.count > limit {
                    throw tooLarge(request, response, limit: limit, size: .whole(data.count))
                }
                return replying(body)
            }
            if let limit, response.expectedContentLength > Int64(limit) {
                body.cancel()
                throw tooLarge(request, response, limit: limit, size: .announced)
            }
            // A transport's file (it wrote the body itself) is the reader's: read into memory, it is removed.
            defer { if case .file(let file) = body.storage { BodyFile.remove(file) } }
            report?.headArrived(response)
            let data = try await gather(body, of: response, to: request, report: report, limit: limit)
            report?.finished(Int64(data.count), of: response, counted: true)
            return replying(ResponseBody(data))
        case .file:
            switch body.storage {
            case .file(let file):
                return replying(body, errorHead: Self.errorHead(of: response, in: file))
            case .whole(let data):
                let file = BodyFile.temporary()
                try BodyFile.createOwnerOnly(file, contents: data)
                // The start of an error body is at hand: not read back from the file just written.
                let head = (200..<300).contains(response.statusCode) ? Data() : data.prefix(BodyFile.errorBodyLimit)
                return replying(.file(file), errorHead: head)
            case .stream:
                report?.headArrived(response)
                let file = try await Self.written(body, of: response, report: report)
                return replying(.file(file), errorHead: Self.errorHead(of: response, in: file))
            case .webSocket:
                return replying(body)
            }
        case .stream(let options):
            var stream = try body.stream
            // The body's timeouts run from the head, over the start of an error body too.
            stream.watch(idle: options.idleTimeout, total: options.totalTimeout, on: options.clock)
            guard !(200..<300).contains(response.statusCode) else { return replying(ResponseBody(stream)) }
            let head = try await stream.take(upTo: BodyFile.errorBodyLimit)
            if let limit, head.count > limit {
                // Nobody will read the rest of an error body already past the limit: the transfer stops now.
                stream.cancel()
                throw tooLarge(request, response, limit: limit, size: .stoppedAt(head.count))
            }
            return replying(ResponseBody(stream), errorHead: head)
        }
    }

    /// Reads `body` into memory, ending it at the limit and reporting each chunk to `report`.
    /// - Throws: A ``KonexError`` naming the limit once the bytes read pass it; the body's own errors.
    private static func gather(
        _ body: ResponseBody, of response: ResponseHead, to request: TransportRequest, report: ProgressReport?,
        limit: Int?
    ) async throws -> Data {
        var data = Data(reservingFor: response.expectedContentLength)
        for try await chunk in body {
            if let limit, chunk.count > limit - data.count {
                body.cancel()
                throw tooLarge(request, response, limit: limit, size: .stoppedAt(data.count + chunk.count))
            }
            data.append(chunk)
            report?.received(Int64(data.count), of: response)
        }
        return data
    }

    /// Writes `body` to a new temporary file as it arrives (a buffer of memory, whatever its size), reporting each
    /// chunk to `report`.
    private static func written(_ body: ResponseBody, of response: ResponseHead, report: ProgressReport?)
        async throws -> URL
    {
        var received: Int64 = 0
        let file = BodyFile.temporary()
        do {
            try BodyFile.createOwnerOnly(file)
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            for try await chunk in body {
                try handle.write(contentsOf: chunk)
                received += Int64(chunk.count)
                report?.received(received, of: response)
            }
        } catch {
            body.cancel()
            BodyFile.remove(file)
            throw error
        }
        report?.finished(received, of: response, counted: true)
        return file
    }

    /// The start of an error body kept in a file, for validators and error models; nothing for a success.
    private static func errorHead(of response: ResponseHead, in file: URL) -> Data {
        (200..<300).contains(response.statusCode) ? Data() : BodyFile.prefix(of: file, limit: BodyFile.errorBodyLimit)
    }

    /// How much of a body over the limit is known: its `Content-Length`, the bytes when reading stopped, or all of it.
    private enum OversizedBody {
        case announced
        case stoppedAt(Int)
        case whole(Int)
    }

    /// The error for a body over ``KonexClient/maximumResponseSize``, the one message every way of finding it out
    /// uses.
    private static func tooLarge(_ request: TransportRequest, _ response: ResponseHead, limit: Int, size: OversizedBody)
        -> KonexError
    {
        let what =
            switch size {
            case .announced: "of \(response.expectedContentLength) bytes (Content-Length)"
            case .stoppedAt(let read): "of more than \(limit) bytes (reading stopped at \(read))"
            case .whole(let count): "of \(count) bytes"
            }
        return KonexError(
            stage: .transport, message: "the response body \(what) exceeds maximumResponseSize (\(limit) bytes)",
            method: request.method, url: request.url, request: request, response: response)
    }
}

/// Who watches one attempt's transfer: the caller's progress, and the transport's phase timings.
struct TransferWatch: Sendable {
    /// The attempt's progress events, when the caller observes progress.
    let report: ProgressReport?
    /// Where the transport reports upload progress and phase timings; `nil` when nobody listens.
    let observer: TransferObserver?
    /// The phase timings the transport reported.
    let phases: Lock<TransferPhases?>?

    /// The watch of an attempt that sends `request`, reporting to `progress` when it is set.
    init(progress: (@Sendable (TransferProgress) -> Void)?, request: TransportRequest) {
        let report = progress.map { ProgressReport($0, request: request) }
        report?.started()
        // Phase timings come from the system's task metrics, which only Apple platforms deliver: elsewhere the
        // record (a lock and a closure: ~1,400 instructions a mock request) is made only when progress is observed.
        #if canImport(Darwin)
            let listens = true
        #else
            let listens = report != nil
        #endif
        let phases = listens ? Lock<TransferPhases?>(nil) : nil
        self.report = report
        self.phases = phases
        observer = phases.map { phases in
            TransferObserver(
                progress: report.map { report in { @Sendable (progress: TransferProgress) in report.upload(progress) }
                },
                phases: { phases.value = $0 })
        }
    }

    /// A watch with only `observer`: what the innermost call of an interceptor chain reports to.
    init(report: ProgressReport?, observer: TransferObserver?) {
        self.report = report
        self.observer = observer
        phases = nil
    }
}

/// Where the exchange puts the response body.
enum BodyTarget: Sendable {
    /// In memory, whole (every terminal but downloads).
    case memory
    /// In a temporary file the caller then owns: `download(to:)`.
    case file
    /// As it arrives, after the head: `stream()`. Validators see the head (and the start of an error body).
    case stream(StreamOptions)
    /// No body: the handshake's 101 opens a WebSocket connection (`webSocket()`). Validators do not run on it.
    // Boxed: the options are large, and the target is kept in every call's frame (65 bytes inline, 9 boxed).
    indirect case webSocket(WebSocketOptions)
}

/// How `stream()` takes its body: the buffer between the network and the reader, and the timeouts that end the body,
/// watched from the head on `clock` (the exchange's `takeBody` starts the watch).
// A class: the target is handed down every frame of the request, and a reference keeps it one word.
final class StreamOptions: Sendable {
    let bufferLimit: Int
    let idleTimeout: Duration?
    let totalTimeout: Duration?
    let clock: any Clock<Duration>

    init(bufferLimit: Int, idleTimeout: Duration?, totalTimeout: Duration?, clock: any Clock<Duration>) {
        self.bufferLimit = bufferLimit
        self.idleTimeout = idleTimeout
        self.totalTimeout = totalTimeout
        self.clock = clock
    }
}

/// Why an attempt timed out when its total timeout passed: the underlying error of its ``TransportFailure``.
public struct TotalTimeoutExceeded: Error, Sendable, CustomStringConvertible {
    /// The limit that passed.
    public let limit: Duration

    public var description: String { "the exchange ran longer than its total timeout of \(limit)" }
}
