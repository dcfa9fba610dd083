import Foundation

// The transport step, in the order a request meets it:
//   DataRequest.send                 the attempt timed, cancellation, progress; within the total timeout when set
//   DataRequest.reply                through the interceptors (`intercepted`), a WebSocket's handshake, or the
//                                    transport
//   Exchange.sendFollowingRedirects  every redirect hop a request of its own (with the cookie jar: `sendWithCookies`;
//                                    the loop itself: `followRedirects`)
//   Exchange.sendOnce                one hop over the transport, told how the body will be taken
//                                    (`Receiving.transportContext`)
//   Exchange.takeBody                the one place a body is taken the way the caller wants it, within
//                                    `maximumResponseSize`: whole, into a file, or as it arrives
// What an attempt receives, and how (the body's target, its progress report, the transport's observer, the limit and
// TLS), is one `Receiving` value, made in `send` and handed down whole.
extension DataRequest {
    /// The transport step: the call, timed, with cancellation and the size limit applied.
    // Inlined into `run`: one async frame fewer on every request. Transparent, not `@inline(__always)`: the optimizer
    // ignores the latter for a callee of more than 64 blocks called from a caller of more than 64 (a guard against
    // recursion), which `run` and this step both are. Measured 2026-12-01 with this step's six inlining attributes
    // (`send`, `reply`, `sendAndFollow`, `sendFollowingRedirects`, `sendOnce`, `takeBody`) all removed: pipeline_mock
    // 29,489 -> 30,571 instructions, cache_hit 36,963 -> 37,936, and 6,261 -> 8,541 bytes held by a parked request,
    // for 73 KB less machine code (this file and DataRequest+Execution: 187 KB of text -> 114 KB). They stay.
    @_transparent func send(
        _ request: TransportRequest, in run: RequestRun, attempt: Int
    ) async -> Result<ReceivedResponse, KonexError> {
        let (target, chain, startDate, started) = (run.target, run.chain, run.startDate, run.started)
        let sendStarted = Moment.now
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
        let observer = phases.map { phases in
            TransferObserver(
                progress: report.map { report in { @Sendable (progress: TransferProgress) in report.upload(progress) }
                },
                phases: { phases.value = $0 })
        }
        let receiving = Receiving(
            target: target, report: report, observer: observer, limit: client.maximumResponseSize, tls: client.tls)
        do {
            let reply: TransportReply
            if let limit = totalTimeout ?? client.totalTimeout {
                reply = try await replyWithinTotalTimeout(limit, to: request, through: chain, receiving: receiving)
            } else {
                reply = try await self.reply(to: request, through: chain, receiving: receiving)
            }
            let now = Moment.now
            if let report, !report.hasFinished { report.answered(by: reply) }
            // A transport that ignores cancellation must not turn a cancelled request into a late success.
            if Task.isCancelled {
                // A streamed transfer nobody will read stops here, not at its server's end.
                reply.discard()
                return .failure(cancellationError(request))
            }
            let timing = RequestTiming(
                startDate: startDate, total: now - started, transport: now - sendStarted, attempt: attempt,
                phases: phases?.value, queue: reply.queueTime)
            if reply.response.isResent { transportResent(request) }
            return .success(ReceivedResponse(reply, timing: timing, for: request))
        } catch {
            var failure = KonexError.transport(error, request: request)
            failure.attempt = attempt
            return .failure(failure)
        }
    }

    /// ``reply(to:through:receiving:)`` within a total timeout (``Exchange/withinTotalTimeout(_:on:url:_:)``), in a
    /// frame of its own: only a call with a total timeout pays for the race's room.
    @inline(never) private func replyWithinTotalTimeout(
        _ limit: Duration, to request: TransportRequest, through chain: InterceptorChain?, receiving: Receiving
    ) async throws -> TransportReply {
        try await Exchange.withinTotalTimeout(limit, on: client.activeClock, url: request.url) { [self] in
            try await reply(to: request, through: chain, receiving: receiving)
        }
    }

    /// The transport step's reply itself: the transport's (every hop of a redirect chain), through the interceptors
    /// when there are any, or a WebSocket's handshake; the body taken as `target` wants it.
    // Transparent for the reason `send` is: inlined into it, whatever the two grow to.
    @_transparent func reply(
        to request: TransportRequest, through chain: InterceptorChain?, receiving: Receiving
    ) async throws -> TransportReply {
        // The interceptors' and the handshake's ways run in frames of their own: their locals and closures would
        // otherwise take room in every request's async frame.
        if let chain { return try await intercepted(request, through: chain, receiving: receiving) }
        if case .webSocket(let options) = receiving.target { return try await handshake(request, options: options) }
        let (transport, redirects) = client.activeRoute
        if !receiving.tls.isDefault { try receiving.tls.check(appliedBy: transport, for: request.url) }
        return try await Exchange.sendAndFollow(request, over: transport, redirects: redirects, receiving: receiving)
    }

    /// The reply through the interceptors: each hop of a redirect chain passes them as a request of its own.
    @inline(never) private func intercepted(
        _ request: TransportRequest, through chain: InterceptorChain, receiving: Receiving
    ) async throws -> TransportReply {
        let (transport, redirects) = client.activeRoute
        if !receiving.tls.isDefault { try receiving.tls.check(appliedBy: transport, for: request.url) }
        // A whole body's innermost call may answer several callers (coalescing) or none (a cache hit), so it is read
        // into memory there, within the limit, and its progress is reported at the ends only; a stream or a download
        // has one caller and passes the interceptors as the transport handed it over, to be taken after them.
        let delivery: BodyDelivery =
            switch receiving.target {
            case .memory, .webSocket: .whole
            case .file: .file
            case .stream: .incremental
            }
        return try await Exchange.sendFollowingRedirects(request, redirects: redirects) { hop in
            let reply = try await chain.reply(to: hop, delivery: delivery, clientIdentity: ObjectIdentifier(client)) {
                request in
                let innermost = delivery == .whole ? receiving.wholeAndUncounted : receiving
                let (response, body) = try await transport.send(request, context: innermost.transportContext)
                let reply = TransportReply(response: response, body: body)
                guard delivery == .whole, body.data == nil else { return reply }
                return try await Exchange.takeBody(reply, for: request, receiving: innermost)
            }
            // A body read into memory above passes `takeBody` again on its fast path (one comparison): a cache's or a
            // canned reply may be over the limit, or wanted in a file or as a stream.
            return try await Exchange.takeBody(reply, for: hop, receiving: receiving)
        }
    }

    /// A WebSocket's handshake: the open connection, once its answer checks out.
    @inline(never) private func handshake(_ request: TransportRequest, options: WebSocketOptions) async throws
        -> TransportReply
    {
        let transport = try client.activeWebSocketTransport()
        var options = options
        if !client.tls.isDefault {
            try client.tls.check(appliedBy: transport, for: request.url)
            options.tls = client.tls
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

/// How one attempt receives its answer: where the body goes, who counts it as it comes, where the transport reports
/// upload progress and phase timings, the size limit and the TLS the connection must use. Made once an attempt by
/// `send`, and handed down the transport step whole.
struct Receiving: Sendable {
    let target: BodyTarget
    /// The attempt's progress events, when the caller observes progress.
    let report: ProgressReport?
    /// Where the transport reports; `nil` when nobody listens.
    let observer: TransferObserver?
    /// ``KonexClient/maximumResponseSize``.
    let limit: Int?
    let tls: TLSSettings

    /// What the innermost call of an interceptor chain receives for a whole body (`intercepted` says why): the body
    /// into memory, its progress not counted there.
    var wholeAndUncounted: Receiving {
        Receiving(target: .memory, report: nil, observer: observer, limit: limit, tls: tls)
    }

    /// The transport's hint: a body read into memory is asked for whole, unless it is counted or limited as it comes;
    /// then, like a stream, as it arrives.
    var transportContext: TransportContext {
        let delivery: BodyDelivery
        var bufferLimit = ByteStream.defaultBufferLimit
        switch target {
        case .memory, .webSocket:
            if let limit {
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

/// Where the transport step puts the response body.
enum BodyTarget: Sendable {
    /// In memory, whole (every terminal but downloads).
    case memory
    /// In a temporary file the caller then owns: `download(to:)`.
    case file
    /// As it arrives, after the head: `stream()`. Validators see the head (and the start of an error body).
    case stream(StreamOptions)
    /// No body: the handshake's 101 opens a WebSocket connection (`webSocket()`). Validators do not run on it.
    // Boxed: the options are large, and the target is kept in the async frames of every call (65 bytes inline).
    indirect case webSocket(WebSocketOptions)
}

/// How `stream()` takes its body: the buffer between the network and the reader, and the timeouts that end the body,
/// watched from the head on `clock` (``Exchange/takeBody(_:for:as:report:limit:)`` starts the watch).
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

/// The transport step's answer taken the way the caller wants its body (whole into memory, into a file, or as it
/// arrives), following redirects; the one home of ``KonexClient/maximumResponseSize``, of download progress and of a
/// streamed body's idle and total timeouts.
enum Exchange {
    /// Sends `request` over `transport` and receives its answer as `receiving` says, following redirects by
    /// ``RedirectRules`` and `redirects`.
    /// - Throws: A ``KonexError`` of stage ``KonexError/Stage/redirect`` for a redirect the rules refuse.
    @inline(__always) static func sendAndFollow(
        _ request: TransportRequest, over transport: any Transport, redirects: RedirectSettings, receiving: Receiving
    ) async throws -> TransportReply {
        try await sendFollowingRedirects(request, redirects: redirects) { hop in
            try await sendOnce(hop, over: transport, receiving: receiving)
        }
    }

    /// Sends `request` with `send`, then each redirect the rules and the policy allow as a request of its own (so
    /// interceptors, a cache among them, see every hop); a hop's body is discarded.
    /// - Throws: A ``KonexError`` of stage ``KonexError/Stage/redirect`` for a redirect the rules refuse.
    @inline(__always) static func sendFollowingRedirects(
        _ request: TransportRequest, redirects: RedirectSettings,
        send: (TransportRequest) async throws -> TransportReply
    ) async throws -> TransportReply {
        if let jar = redirects.cookies {
            return try await sendWithCookies(request, redirects: redirects, jar: jar, send: send)
        }
        let reply = try await send(request)
        // Most answers are not redirects: one comparison, and nothing allocated.
        guard RedirectRules.redirects(reply.response.statusCode) else { return reply }
        return try await followRedirects(after: reply, to: request, redirects: redirects, send: send)
    }

    /// ``sendFollowingRedirects(_:redirects:send:)`` with a cookie jar: each hop carries the jar's cookies for its own
    /// URL, and its `Set-Cookie` lines go into the jar before the next hop is sent. The rules and the policy read the
    /// hop without the jar's cookies, so those never pass from one origin to another.
    // Not inlined: a client without a jar pays one comparison for it.
    @inline(never) private static func sendWithCookies(
        _ request: TransportRequest, redirects: RedirectSettings, jar: CookieJar,
        send: (TransportRequest) async throws -> TransportReply
    ) async throws -> TransportReply {
        func sendHop(_ hop: TransportRequest) async throws -> TransportReply {
            let reply = try await send(jar.attaching(to: hop))
            jar.receive(reply.response, source: reply.source, answering: hop)
            return reply
        }
        let reply = try await sendHop(request)
        guard RedirectRules.redirects(reply.response.statusCode) else { return reply }
        return try await followRedirects(after: reply, to: request, redirects: redirects, send: sendHop)
    }

    /// The redirect loop of ``sendFollowingRedirects(_:redirects:send:)``, from the first 3xx `reply` for `request`.
    // Not inlined: its requests, hops and decisions would take room in every request's async frame, redirected or not.
    @inline(never) private static func followRedirects(
        after reply: TransportReply, to request: TransportRequest, redirects: RedirectSettings,
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

    /// Sends `request` once (no redirect followed) and takes its body as `receiving` says.
    // Inlined, like the other steps between a terminal and the transport: every async frame is entered and resumed
    // once a request, with cold caches after the transport's own work, so each frame saved shows.
    @inline(__always) static func sendOnce(
        _ request: TransportRequest, over transport: any Transport, receiving: Receiving
    ) async throws -> TransportReply {
        let (response, body) = try await transport.send(request, context: receiving.transportContext)
        return try await takeBody(TransportReply(response: response, body: body), for: request, receiving: receiving)
    }

    /// `reply` with its body taken the way `target` wants it (``takeBodyAsTargetWants(_:for:as:report:limit:)``): the
    /// one way from a transport's or an interceptor's reply to the one the rest of the pipeline reads.
    // The usual reply, a whole body for memory within the limit, returns here as it came; the rest is taken in a frame
    // of its own (its locals would otherwise take room in every request's frame).
    @inline(__always) static func takeBody(
        _ reply: TransportReply, for request: TransportRequest, receiving: Receiving
    ) async throws -> TransportReply {
        if case .memory = receiving.target, let data = reply.body.data, data.count <= receiving.limit ?? .max {
            return reply
        }
        // A redirect's own body is not the answer's: counted, progress went back to 0 at the next hop and said
        // "finished" once a hop. A redirect that ends the call (not followed) has its ends said by `send`.
        let report = RedirectRules.redirects(reply.response.statusCode) ? nil : receiving.report
        return try await takeBodyAsTargetWants(
            reply, for: request, as: receiving.target, report: report, limit: receiving.limit)
    }

    /// Takes the reply's body the way `target` wants it: the one place a body is read into memory (within `limit`,
    /// counting progress), written to a file, or handed on as a stream with the start of an error body read for
    /// validators and error models. Whatever its form (whole, still arriving, in a file; from a transport, a cache or a
    /// canned reply), each target gets it the same way.
    /// - Throws: A ``KonexError`` naming `limit` for a body over it (the body is stopped); the body's own errors.
    @inline(never) private static func takeBodyAsTargetWants(
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
            let data = try await gather(body, of: response, to: request, limit: limit, report: report)
            report?.finished(Int64(data.count), of: response, counted: true)
            return replying(ResponseBody(data))
        case .file:
            switch body.storage {
            case .file(let file):
                return replying(body, errorHead: errorHead(of: response, in: file))
            case .whole(let data):
                let file = BodyFile.temporary()
                try BodyFile.createOwnerOnly(file, contents: data)
                // The start of an error body is at hand: not read back from the file just written.
                let head = (200..<300).contains(response.statusCode) ? Data() : data.prefix(BodyFile.errorBodyLimit)
                return replying(.file(file), errorHead: head)
            case .stream:
                report?.headArrived(response)
                let file = try await written(body, of: response, report: report)
                return replying(.file(file), errorHead: errorHead(of: response, in: file))
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

    /// Reads `body` into memory, ending it at `limit` and reporting each chunk to `report`.
    /// - Throws: A ``KonexError`` naming the limit once the bytes read pass it; the body's own errors.
    private static func gather(
        _ body: ResponseBody, of response: ResponseHead, to request: TransportRequest, limit: Int?,
        report: ProgressReport?
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

    /// How much of a body over the limit is known: its `Content-Length`, the bytes when reading stopped, or all of it.
    enum OversizedBody {
        case announced
        case stoppedAt(Int)
        case whole(Int)
    }

    /// The error for a body over ``KonexClient/maximumResponseSize``, the one message every way of finding it out
    /// uses.
    static func tooLarge(_ request: TransportRequest, _ response: ResponseHead, limit: Int, size: OversizedBody)
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
}

extension Exchange {
    /// Runs one attempt's exchange within `limit` on `clock` (``firstOf(_:orDeadline:on:discarding:)``): past it the
    /// caller gets a timeout at once and the exchange is cancelled, without waiting for it to stop (a transport slow
    /// to honour cancellation would stretch the limit to the body's end); what it answers late is cleaned up. Only a
    /// call with a total timeout pays for this.
    /// - Throws: ``TransportFailure`` of kind ``TransportFailure/Kind/timedOut`` past the limit; `CancellationError`
    ///   when the caller is cancelled; the exchange's errors.
    static func withinTotalTimeout(
        _ limit: Duration, on clock: any Clock<Duration>, url: URL,
        _ reply: @escaping @Sendable () async throws -> TransportReply
    ) async throws -> TransportReply {
        let outcome = await firstOf(
            { () async -> Result<TransportReply, any Error> in
                do { return .success(try await reply()) } catch { return .failure(error) }
            },
            orDeadline: limit, on: clock,
            discarding: { late in
                // Too late: nobody reads it.
                guard case .success(let reply) = late else { return }
                reply.discard()
            })
        guard let outcome else {
            if Task.isCancelled { throw CancellationError() }
            throw TransportFailure(.timedOut, url: url, underlying: TotalTimeoutExceeded(limit: limit))
        }
        return try outcome.get()
    }
}

/// Why an attempt timed out when its total timeout passed: the underlying error of its ``TransportFailure``.
public struct TotalTimeoutExceeded: Error, Sendable, CustomStringConvertible {
    /// The limit that passed.
    public let limit: Duration

    public var description: String { "the exchange ran longer than its total timeout of \(limit)" }
}
