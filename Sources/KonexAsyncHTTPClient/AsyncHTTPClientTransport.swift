#if AsyncHTTPClient
    import AsyncHTTPClient
    import Foundation
    import Konex
    import NIOCore
    import NIOHTTP1
    import NIOSSL
    import Tracing

    /// A ``Konex/Transport`` over swift-server/async-http-client (SwiftNIO), for servers and command-line tools on
    /// Linux, where it avoids FoundationNetworking's faults: timeouts to the millisecond, a streamed body the reader
    /// pulls (a slow reader slows the socket), cancellation that closes the request at once, and no trap on a
    /// hostile `Content-Length`.
    ///
    /// Konex follows redirects itself, above the transport, as ``Konex/RedirectPolicy`` says, so the `HTTPClient` must
    /// not follow them (``makeClient(configuration:connectTimeout:)`` makes one that way); everything above the transport
    /// (adapters, plugins, validators, retries, the cache, coalescing, limits, streams, HAR recording) works unchanged.
    /// An idempotent request sent on a kept-alive connection the server closed at that moment (before any byte of an
    /// answer) goes again once on a new connection, as libcurl does; a POST never does.
    /// ```swift
    /// let client = KonexClient(baseURL: api, transport: AsyncHTTPClientTransport.shared)
    /// // or with a client of your own, which you shut down:
    /// let http = AsyncHTTPClientTransport.makeClient(connectTimeout: .milliseconds(500))
    /// let transport = AsyncHTTPClientTransport(client: http, headTimeout: .seconds(2), bodyTimeout: .seconds(30))
    /// defer { Task { try await http.shutdown() } }
    /// ```
    public final class AsyncHTTPClientTransport: Transport {
        /// The client requests go through.
        public let client: HTTPClient
        /// The redirects a client over this transport follows (Konex follows them above the transport, by the rules
        /// ``Konex/RedirectPolicy`` lists; the `HTTPClient` never does).
        public let redirectPolicy: RedirectPolicy
        /// The longest wait for the response head (connect included); `nil` for no limit.
        public let headTimeout: Duration?
        /// The longest the whole body may take to arrive after the head; `nil` for no limit.
        public let bodyTimeout: Duration?
        /// The client's own read timeout (the longest silence NIO allows on a connection), when the client came from
        /// ``makeClient(configuration:connectTimeout:)``; AsyncHTTPClient does not tell it for others.
        private let clientReadTimeout: Duration?
        /// The client's tracer, when it traces (AsyncHTTPClient fixes it when the client is made): see `execute`.
        private let clientTracer: (any Tracer)?
        /// The TLS configurations made for the settings requests came with (see ``checkCanApply(_:)``).
        let tlsConfigurations = Lock<[TLSSettings: TLSConfiguration]>([:])

        /// The read timeouts of the clients ``makeClient(configuration:connectTimeout:)`` made, while they live.
        private static let readTimeouts = Lock<[ObjectIdentifier: (client: Weak, timeout: Duration)]>([:])

        final class Weak: @unchecked Sendable {  // a weak reference is read and written under `readTimeouts`' lock
            weak var client: HTTPClient?
            init(_ client: HTTPClient) { self.client = client }
        }

        /// Creates a transport over `client`, which the caller owns (and shuts down).
        /// - Parameters:
        ///   - client: An `HTTPClient` whose `redirectConfiguration` is `.disallow` (see
        ///     ``makeClient(configuration:connectTimeout:)``): Konex follows redirects itself, by its rules and with its
        ///     cookie jar. A client that follows them anyway is refused at its first redirect: the request fails with a
        ///     ``Konex/TransportFailure`` (kind `.other`) naming the setting, and its answer never reaches the pipeline.
        ///   - redirectPolicy: Which redirects a client over this transport follows (``Konex/KonexClient/redirectPolicy``
        ///     overrides it); `.follow` by default.
        ///   - headTimeout: The longest wait for the response head; `nil` for none. A request's own timeout (its
        ///     `URLRequest.timeoutInterval`, which Konex sets from `timeout:`) applies when shorter.
        ///   - bodyTimeout: The longest the body may take after the head; `nil` for none. Independently, the body
        ///     fails with ``Konex/TransportFailure/Kind/timedOut`` when the server is silent for longer than the request's
        ///     `timeoutInterval` (URLSession's reading of it; time spent waiting for a slow stream reader does not count).
        public init(
            client: HTTPClient, redirectPolicy: RedirectPolicy = .follow, headTimeout: Duration? = nil,
            bodyTimeout: Duration? = nil
        ) {
            self.client = client
            clientReadTimeout = Self.readTimeouts.withLock { known in
                known = known.filter { $0.value.client.client != nil }
                guard let entry = known[ObjectIdentifier(client)], entry.client.client === client else { return nil }
                return entry.timeout
            }
            clientTracer = client.tracer.flatMap { $0 is NoOpTracer ? nil : $0 }
            self.redirectPolicy = redirectPolicy
            self.headTimeout = headTimeout
            self.bodyTimeout = bodyTimeout
        }

        /// A transport over a client made for the process and never shut down (as `HTTPClient.shared` is), with
        /// redirects left to Konex and a 10 s connect timeout.
        public static let shared = AsyncHTTPClientTransport(client: sharedClient)

        private static let sharedClient = makeClient()

        /// An `HTTPClient` configured for Konex: redirects left to Konex's ``Konex/RedirectPolicy``, `gzip` and
        /// `deflate` bodies decoded (as URLSession does), and a connect timeout; a proxy (HTTP `CONNECT` or SOCKS) and
        /// TLS settings (a custom CA, a client certificate) pass through from `configuration`. The caller owns it:
        /// `try await client.shutdown()` before it is released.
        /// - Parameters:
        ///   - configuration: Proxy, TLS, pool and other settings; its redirect, decompression and connect-timeout
        ///     settings are replaced, and a read timeout (the longest silence on a connection) of 60 s is set when it
        ///     has none.
        ///   - connectTimeout: The longest a connection may take to open.
        ///   - maximumDecompressionRatio: How many times its compressed size a `gzip` or `deflate` body may inflate
        ///     to, 200 by default; past it the request fails with
        ///     ``Konex/TransportFailure/Kind/decompressionLimitExceeded`` (a decompression bomb). Konex's own bound on
        ///     a body's decoded size is ``Konex/KonexClient/maximumResponseSize``.
        public static func makeClient(
            configuration: HTTPClient.Configuration = HTTPClient.Configuration(),
            connectTimeout: Duration = .seconds(10), maximumDecompressionRatio: Int = 200
        ) -> HTTPClient {
            var configuration = configuration
            configuration.redirectConfiguration = .disallow
            configuration.decompression = .enabled(limit: .ratio(max(1, maximumDecompressionRatio)))
            configuration.timeout.connect = .nanoseconds(connectTimeout.nanoseconds)
            // Silence on a connection is bounded by default, by NIO at no cost per request; a request whose
            // `timeoutInterval` is shorter gets a watchdog of its own (see `BodyLimits`).
            if configuration.timeout.read == nil { configuration.timeout.read = .seconds(60) }
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            if let read = configuration.timeout.read {
                readTimeouts.withLock { $0[ObjectIdentifier(client)] = (Weak(client), .nanoseconds(read.nanoseconds)) }
            }
            return client
        }

        /// Sends `request` once (a redirect is the answer: Konex follows it above the transport) and returns at the
        /// head: the body collected when the caller takes it whole, else pulled by the reader (a slow reader slows the
        /// socket; a download is written by Konex as it arrives).
        // One async frame from here to AsyncHTTPClient: each frame between them cost a task allocation, its entry and
        // its resumption, and a copy of what it returned (about 300 instructions a request).
        public func send(_ request: TransportRequest, context: TransportContext) async throws -> (
            ResponseHead, ResponseBody
        ) {
            let url = request.url
            let requestTimeout = request.head.timeout.map { Swift.min($0, .seconds(86_400)) }
            // The shorter of the two, without an array a request.
            let headLimit =
                requestTimeout.map { limit in headTimeout.map { Swift.min($0, limit) } ?? limit } ?? headTimeout
            let answer: HTTPClientResponse
            var resend: String?
            do {
                let deadline: NIODeadline = headLimit.map { .now() + .nanoseconds($0.nanoseconds) } ?? .distantFuture
                let upload: (@Sendable (TransferProgress) -> Void)? =
                    context.observesProgress ? { @Sendable in context.reportUpload($0) } : nil
                var converted = try Self.request(request, uploadProgress: upload)
                if !context.tls.isDefault { converted.tlsConfiguration = try tlsConfiguration(for: context.tls) }
                do {
                    answer = try await execute(converted, deadline: deadline)
                } catch
                    where Self.isStaleConnection(error) && request.method.isIdempotent && !Task.isCancelled
                    && request.body?.canBeSentAgain != false
                {
                    // The pool handed out a kept-alive connection the server had just closed (its keep-alive timer
                    // and this request crossed): no byte of an answer came, so an idempotent request goes again,
                    // once, on a new connection, as libcurl and browsers do, when its body can be sent again (a body
                    // of chunks may be half gone).
                    resend = "sent again on a new connection: the kept-alive one failed before an answer (\(error))"
                    answer = try await execute(converted, deadline: deadline)
                }
            } catch {
                throw Self.transportError(error, url: url)
            }
            // An HTTPClient that follows redirects itself hands over the last hop's answer as the first's: Konex's
            // redirect rules never ran, and a cookie jar would take another host's Set-Cookie for this one's.
            if answer.history.count > 1 { throw Self.followedByTheClient(answer, url: url) }
            // The client's read timeout already bounds silence; a watchdog (a task and a timer per request) is only
            // worth it for a shorter limit.
            let idle = requestTimeout.flatMap { limit in clientReadTimeout.map { limit < $0 } ?? true ? limit : nil }
            var announced: Int64?
            var response = Self.head(
                status: answer.status, headers: answer.headers, url: url, contentLength: &announced)
            if let resend { response.transportResend = resend }
            guard context.delivery == .whole, bodyTimeout == nil, idle == nil else {
                // Limits to watch, or a body the reader pulls: in a frame of their own, so the usual answer's frame
                // (held while the server thinks) has no room for their records, closures and tasks. (Nor for a
                // `ContinuousClock.Instant`: its size is known only at run time, so each one in an async frame is a
                // task allocation of its own.)
                return try await delivered(
                    answer.body, response: response, announced: announced, headers: answer.headers, url: url,
                    idle: idle, context: context)
            }
            do {
                // No limit of its own to watch: read in this task, with no watchdog, record or closure.
                return (
                    response,
                    ResponseBody(try await Self.collect(answer.body, announced: announced, headers: answer.headers))
                )
            } catch {
                throw Self.transportError(error, url: url)
            }
        }

        /// The rest of ``send(_:context:)``: a whole body read under the body limits, or a body the reader pulls.
        @inline(never) private func delivered(
            _ body: HTTPClientResponse.Body, response: ResponseHead, announced: Int64?, headers: NIOHTTP1.HTTPHeaders,
            url: URL, idle: Duration?, context: TransportContext
        ) async throws -> (ResponseHead, ResponseBody) {
            // The body's deadline starts now, with the head.
            let limits = BodyLimits(deadline: bodyTimeout.map { ContinuousClock.now + $0 }, idle: idle)
            guard context.delivery != .whole else {
                do {
                    let data = try await withBodyLimits(limits) { activity in
                        try await Self.collect(body, announced: announced, headers: headers) { activity.arrived() }
                    }
                    return (response, ResponseBody(data))
                } catch {
                    throw Self.transportError(error, url: url)
                }
            }
            let pump = Lock<Task<Void, Never>?>(nil)
            // Konex writes a download to its file as fast as chunks come: the reader pulls, so a megabyte of buffer is
            // plenty and bounds a download's memory whatever the disk does.
            let bufferLimit = context.delivery == .file ? Swift.min(context.bufferLimit, 1 << 20) : context.bufferLimit
            let (stream, continuation) = ByteStream.makeStream(bufferLimit: bufferLimit) {
                pump.value?.cancel()
            }
            pump.value = Task {
                do {
                    try await withBodyLimits(limits) { activity in
                        // The reader pulls: `send` waits while it is a buffer behind, and NIO stops reading the
                        // socket while this loop waits. Each buffer is copied once, into the chunk handed over.
                        for try await buffer in body {
                            activity.waitsForReader()
                            guard await continuation.send(buffer.readableData) else { return }
                            activity.arrived()
                        }
                    }
                    continuation.finish()
                } catch  where Self.endsByClose(error, headers) {
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: Self.transportError(error, url: url))
                }
            }
            return (response, ResponseBody(stream))
        }

        /// A whole body read into one `Data`, sized by `Content-Length` when the server gave one; `arrived` is told
        /// of each chunk (the body-limit watchdog's clock).
        private static func collect(
            _ body: HTTPClientResponse.Body, announced: Int64?, headers: NIOHTTP1.HTTPHeaders,
            arrived: () -> Void = {}
        ) async throws -> Data {
            var collected = Data(reservingFor: announced)
            do {
                for try await buffer in body {
                    arrived()
                    buffer.appendReadableBytes(to: &collected)
                }
            } catch  where endsByClose(error, headers) {}
            return collected
        }

        /// Sends one request through AsyncHTTPClient, with exactly one layer writing the trace context.
        ///
        /// When the client traces too and Konex's `TracingInstrument` already wrote a `traceparent`, the context moves
        /// from the headers into the task: AsyncHTTPClient's span becomes a child of Konex's, and AsyncHTTPClient
        /// writes the one `traceparent` (it adds its own, so leaving Konex's would send two).
        @inline(__always) private func execute(_ request: HTTPClientRequest, deadline: NIODeadline) async throws
            -> HTTPClientResponse
        {
            guard let tracer = clientTracer, request.headers.contains(name: "traceparent") else {
                return try await client.execute(request, deadline: deadline)
            }
            return try await execute(request, deadline: deadline, tracedBy: tracer)
        }

        /// The failure for an answer the caller's `HTTPClient` reached by following redirects itself.
        @inline(never) private static func followedByTheClient(_ answer: HTTPClientResponse, url: URL) -> any Error {
            let hops = answer.history.dropLast().map { "\($0.responseHead.status.code) \($0.request.url)" }
            return TransportFailure(
                .other, url: url,
                underlying: RedirectFollowedByTheClient(
                    description: "the HTTPClient followed \(hops.count) redirect(s) itself, unseen by Konex's redirect "
                        + "rules and cookie jar: give AsyncHTTPClientTransport a client whose redirectConfiguration is "
                        + ".disallow (AsyncHTTPClientTransport.makeClient makes one). Followed: "
                        + "\(hops.joined(separator: ", ")) -> \(answer.url?.absoluteString ?? "?")"))
        }

        /// ``execute(_:deadline:)`` when AsyncHTTPClient traces too, in a frame of its own (a context and a copy of the
        /// request the untraced call has no use for).
        @inline(never) private func execute(
            _ request: HTTPClientRequest, deadline: NIODeadline, tracedBy tracer: any Tracer
        ) async throws -> HTTPClientResponse {
            var context = ServiceContext.current ?? .topLevel
            tracer.extract(request.headers, into: &context, using: HeadersExtractor())
            var request = request
            for name in RequestCoalescer.traceContextHeaders { request.headers.remove(name: name) }
            let client = self.client
            return try await ServiceContext.$current.withValue(context) {
                try await client.execute(request, deadline: deadline)
            }
        }

        /// Reads a trace context from NIO's headers.
        private struct HeadersExtractor: Extractor {
            func extract(key: String, from headers: NIOHTTP1.HTTPHeaders) -> String? { headers.first(name: key) }
        }
    }

    /// An `HTTPClient` given to ``AsyncHTTPClientTransport`` followed redirects itself.
    struct RedirectFollowedByTheClient: Error, CustomStringConvertible {
        let description: String
    }
#endif
