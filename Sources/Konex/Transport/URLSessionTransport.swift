import Foundation

// The only file that names FoundationNetworking. Re-exporting it means `import Konex` alone gives Linux users
// URLRequest and HTTPURLResponse, as Foundation does on Apple platforms.
#if canImport(FoundationNetworking)
    @_exported import FoundationNetworking
#endif

/// The default transport: `URLSession`'s `data(for:)` for bodies taken whole, `download(for:)` for downloads (the
/// system writes the file), and a data task whose session delegate hands over each chunk for bodies taken as they
/// arrive; with a delegate that declines redirects (Konex follows them by its own rules, see ``RedirectPolicy``) and answers
/// authentication challenges (FoundationNetworking can wait forever on a 401 challenge nobody answers).
///
/// ```swift
/// let transport = URLSessionTransport(configuration: .ephemeral, redirectPolicy: .limit(3))
/// let client = KonexClient(baseURL: url, transport: transport)
/// ```
public final class URLSessionTransport: Transport {
    /// The session requests go through.
    public let session: URLSession
    private let ownsSession: Bool
    /// The redirects a client over this transport follows (Konex follows them; the session never does).
    public let redirectPolicy: RedirectPolicy
    /// A second session, made on the first stream, whose delegate receives the chunks: `data(for:)` and
    /// `download(for:)` never share a delegate with streamed tasks.
    private let streaming = Lock<URLSession?>(nil)
    /// The TLS settings this transport's sessions answer challenges with; ``TLSSettings/default`` but for the
    /// transports ``applying(_:)`` makes.
    let appliedTLS: TLSSettings
    /// One transport per other TLS settings a request came with, made from this one's configuration: a session
    /// reuses its connections without a new challenge, so a connection trusted under one settings never carries a
    /// request under another.
    private let underOtherTLS = Lock<[TLSSettings: URLSessionTransport]>([:])
    /// Whether the session adds cookies from its storage and keeps the ones answers set: read once, since
    /// `session.configuration` is a copy each time.
    let sessionHandlesCookies: Bool
    /// The transport made from this one's configuration with no cookie storage, for requests whose cookies are a
    /// ``CookieJar``'s (see ``withoutCookieStorage()``).
    let cookieless = Lock<URLSessionTransport?>(nil)

    /// Creates a transport over a session you own; redirects are still Konex's (``RedirectPolicy``).
    ///
    /// A session whose delegate is not Konex's (`URLSession.shared`, a session with a delegate of yours) would follow
    /// redirects itself, outside Konex's rules, and on Linux no task delegate can stop it. So requests go through a
    /// session of Konex's made from yours: your session's configuration (cookies, cache, credential storage, proxies,
    /// headers, timeouts) and delegate queue, and your delegate for what it decides there (connection challenges such
    /// as server trust for certificate pinning, or a client certificate; task metrics), never for redirects.
    /// ``session`` is that session. A session made by Konex is used as it is.
    /// - Parameters:
    ///   - session: The session whose configuration, delegate queue and delegate are used.
    ///   - redirectPolicy: Which redirects a client over this transport follows (``KonexClient/redirectPolicy``
    ///     overrides it); `.follow` by default.
    public init(session: URLSession, redirectPolicy: RedirectPolicy = .follow) {
        self.redirectPolicy = redirectPolicy
        appliedTLS = .default
        sessionHandlesCookies = Self.handlesCookies(session.configuration)
        if session.delegate is SessionDelegate {
            self.session = session
            ownsSession = false
        } else {
            self.session = URLSession(
                configuration: session.configuration, delegate: SessionDelegate(forwardingTo: session.delegate),
                delegateQueue: session.delegateQueue)
            ownsSession = true
        }
    }

    /// Creates a transport with its own session.
    /// - Parameters:
    ///   - configuration: The session configuration; `.default` by default.
    ///   - redirectPolicy: Which redirects a client over this transport follows (``KonexClient/redirectPolicy``
    ///     overrides it); `.follow` by default.
    public convenience init(configuration: URLSessionConfiguration = .default, redirectPolicy: RedirectPolicy = .follow)
    {
        self.init(configuration: configuration, delegate: SessionDelegate(), redirectPolicy: redirectPolicy)
    }

    private init(configuration: URLSessionConfiguration, delegate: SessionDelegate, redirectPolicy: RedirectPolicy) {
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        ownsSession = true
        self.redirectPolicy = redirectPolicy
        appliedTLS = delegate.tls
        sessionHandlesCookies = Self.handlesCookies(configuration)
    }

    /// A transport over a new session made from `configuration`, answering challenges under `tls` and forwarding to
    /// this one's delegate: the transport for other TLS settings (``applying(_:)``), or for a cookie jar's requests
    /// (``withoutCookieStorage()``).
    func derived(configuration: URLSessionConfiguration, tls: TLSSettings) -> URLSessionTransport {
        let forwardee = (session.delegate as? SessionDelegate)?.forwardee
        return URLSessionTransport(
            configuration: configuration, delegate: SessionDelegate(forwardingTo: forwardee, tls: tls),
            redirectPolicy: redirectPolicy)
    }

    /// Applies custom roots, pins and a PKCS#12 client identity on Apple platforms, where URLSession asks its
    /// delegate about server trust and client certificates. Refuses a PEM identity there (URLSession takes a
    /// `SecIdentity`, which a PEM key becomes only through the keychain), and every setting on Linux:
    /// FoundationNetworking's libcurl verifies certificates itself and raises neither challenge.
    public func checkCanApply(_ tls: TLSSettings) throws {
        guard !tls.isDefault else { return }
        #if canImport(Security)
            if case .pem = tls.clientIdentity?.form {
                throw TLSFailure.unsupported(
                    by: "URLSessionTransport",
                    "takes a PKCS#12 client identity (ClientIdentity.pkcs12) on Apple platforms, not PEM", in: tls)
            }
        #else
            throw TLSFailure.unsupported(
                by: "URLSessionTransport",
                "cannot apply \(tls) on Linux: FoundationNetworking's libcurl verifies certificates itself and raises no "
                    + "server-trust or client-certificate challenge; use AsyncHTTPClientTransport (trait AsyncHTTPClient)",
                in: tls)
        #endif
    }

    /// The transport that sends under `tls`: this one for its own settings, else one made for them.
    func applying(_ tls: TLSSettings) throws -> URLSessionTransport {
        if tls == appliedTLS { return self }
        try checkCanApply(tls)
        return underOtherTLS.withLock { made in
            if let existing = made[tls] { return existing }
            let transport = derived(configuration: session.configuration, tls: tls)
            made[tls] = transport
            return transport
        }
    }

    deinit {
        // A session retains its delegate until invalidated; ours are private, so let them go with us.
        if ownsSession { session.finishTasksAndInvalidate() }
        streaming.value?.finishTasksAndInvalidate()
        cookieless.value?.session.finishTasksAndInvalidate()
    }

    /// The session streamed tasks go through, with its delegate.
    func streamingSession() -> (URLSession, SessionDelegate) {
        let session = streaming.withLock { streaming in
            if let existing = streaming { return existing }
            let own = self.session.delegate as? SessionDelegate
            let made = URLSession(
                configuration: self.session.configuration,
                delegate: SessionDelegate(forwardingTo: own?.forwardee, tls: appliedTLS), delegateQueue: nil)
            streaming = made
            return made
        }
        return (session, session.delegate as! SessionDelegate)
    }

    public func send(_ request: TransportRequest, context: TransportContext) async throws -> (
        ResponseHead, ResponseBody
    ) {
        if context.tls != appliedTLS { return try await applying(context.tls).send(request, context: context) }
        if sessionHandlesCookies && !request.httpShouldHandleCookies {
            return try await withoutCookieStorage().send(request, context: context)
        }
        if request.body?.chunks != nil {
            // A URLRequest carries a streamed body only as an InputStream, which FoundationNetworking cannot make
            // from async code (no bound stream pair): refused by name rather than sent without its body.
            throw KonexError.invalidRequest(
                "URLSessionTransport cannot send a body of chunks (RequestBody.chunks): use AsyncHTTPClientTransport "
                    + "(trait AsyncHTTPClient), or bytes or a file", method: request.method, url: request.url)
        }
        var prepared = Self.prepared(request.urlRequest)
        #if canImport(FoundationNetworking)
            // libcurl sends a body stream chunked, and with a Content-Length beside it (a compressed body says its
            // length) servers refuse the request (gunicorn: 400). A file's bytes go mapped, not copied: libcurl then
            // sends them with their length.
            if case .file(let file)? = request.body?.storage {
                prepared.httpBodyStream = nil
                prepared.httpBody = try Data(contentsOf: file, options: .alwaysMapped)
            }
        #endif
        // A task of its own delegate costs a little: only for someone who listens, and for phases only where the
        // system measures them (FoundationNetworking never delivers task metrics).
        #if canImport(Darwin)
            let observer = context.observesPhases || context.observesProgress ? context.observer : nil
        #else
            let observer = context.observesProgress ? context.observer : nil
        #endif
        do {
            return try await exchange(prepared, context: context, observer: observer)
        } catch let error as URLError where error.code == .unknown {
            throw Self.named(error, url: request.url)
        }
    }

    /// What libcurl says of a failed TLS handshake, named: FoundationNetworking reports every one (an untrusted
    /// certificate, a name that does not match, a protocol mismatch) as `URLError` -1, "unknown", with libcurl's
    /// message ("SSL certificate problem: unable to get local issuer certificate"); Konex promises
    /// ``TransportFailure/Kind/secureConnectionFailed`` on every transport, which retries leave alone and metrics
    /// label as such. Any other unknown error passes as it came.
    @inline(never) static func named(_ error: URLError, url: URL) -> any Error {
        let message = error.localizedDescription
        let tls =
            ["SSL", "OpenSSL", "TLS", "schannel"].contains { message.hasPrefix($0) } || message.contains("certificate")
        return tls ? TransportFailure(.secureConnectionFailed, url: url, underlying: error) : error
    }

    /// ``send(_:context:)`` past its checks: the exchange the context asks for.
    // Inlined: one async frame fewer between Konex and URLSession on every request.
    @inline(__always) private func exchange(
        _ prepared: URLRequest, context: TransportContext, observer: TransferObserver?
    )
        async throws -> (ResponseHead, ResponseBody)
    {
        switch context.delivery {
        case .file where !context.observesProgress:
            // The system writes the file; Konex counts chunks itself only for a progress handler.
            let (file, response) = try await download(prepared, observer: observer)
            try Self.checkFraming(response)
            return (ResponseHead(response), .file(file))
        case .incremental, .file:
            let (response, stream) = try await stream(prepared, bufferLimit: context.bufferLimit, observer: observer)
            try Self.checkFraming(response)
            return (ResponseHead(response), ResponseBody(stream))
        default:
            let forwardee = (session.delegate as? SessionDelegate)?.forwardee
            let (data, response) = try await exchange(
                prepared, delegate: observer.map { TaskObserver(observer: $0, forwardingTo: forwardee) })
            try Self.checkFraming(response)
            return (ResponseHead(response), ResponseBody(data))
        }
    }

    /// Refuses an answer whose `Content-Length` is not one length (``ContentLength``): a list of different lengths
    /// (`10, 4`), which RFC 9112 §6.3 makes unrecoverable, or a value that is not a length (`30,`, `30s`, `0x20`).
    /// libcurl believes the first number it can read and frames the body by it, so such an answer's body may be cut
    /// short (or empty) and look whole: it is refused, as AsyncHTTPClient's parser refuses it.
    @inline(never) static func checkFraming(_ response: HTTPURLResponse) throws {
        guard let field = response.value(forHTTPHeaderField: "Content-Length") else { return }
        switch ContentLength(field) {
        case .length: return
        case .conflicting:
            throw TransportFailure(
                .badServerResponse, url: response.url, underlying: ConflictingContentLength(field: field))
        case .invalid:
            throw TransportFailure(
                .badServerResponse, url: response.url, underlying: InvalidContentLength(field: field))
        }
    }

    /// `data(for:)` (cheaper per request than a data task with a completion handler), with a task delegate or none.
    // Inlined: one async frame fewer between Konex and `data(for:)` on every request.
    @inline(__always) func exchange(_ request: URLRequest, delegate: (any URLSessionTaskDelegate)?) async throws
        -> (Data, HTTPURLResponse)
    {
        do {
            let (data, response) =
                if let delegate {
                    try await session.data(for: request, delegate: delegate)
                } else {
                    try await session.data(for: request)
                }
            guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
            return (data, http)
        } catch let error as URLError where error.code == .cancelled && !Task.isCancelled {
            guard let challenged = challengedResponse(for: request) else { throw explained(error, for: request) }
            return (Data(), challenged)
        }
    }

    /// `download(for:)`: the system writes the body to a file.
    private func download(_ request: URLRequest, observer: TransferObserver?) async throws -> (URL, HTTPURLResponse) {
        do {
            let (file, response) =
                if let observer {
                    try await session.download(
                        for: request,
                        delegate: TaskObserver(
                            observer: observer, forwardingTo: (session.delegate as? SessionDelegate)?.forwardee))
                } else {
                    try await session.download(for: request)
                }
            guard let http = response as? HTTPURLResponse else {
                try? FileManager.default.removeItem(at: file)
                throw URLError(.badServerResponse)
            }
            return (file, http)
        } catch let error as URLError where error.code == .cancelled && !Task.isCancelled {
            guard let challenged = challengedResponse(for: request) else { throw explained(error, for: request) }
            let empty = BodyFile.temporary()
            try BodyFile.createOwnerOnly(empty)
            return (empty, challenged)
        }
    }

    static func prepared(_ request: URLRequest) -> URLRequest {
        var request = request
        #if canImport(FoundationNetworking)
            // FoundationNetworking truncates timeoutInterval to whole seconds, so 0.5 s would time out at once.
            let whole = request.timeoutInterval.rounded(.up)
            if whole != request.timeoutInterval { request.timeoutInterval = whole }  // writing copies the request
        #endif
        return request
    }

    /// A challenge we declined ends as "cancelled"; it was really the server's 401.
    private func challengedResponse(for request: URLRequest) -> HTTPURLResponse? {
        (session.delegate as? SessionDelegate)?.takeChallengedResponse(for: request)
    }

    /// A "cancelled" that was really a connection refused under ``appliedTLS`` says so.
    func explained(_ error: URLError, for request: URLRequest) -> any Error {
        (session.delegate as? SessionDelegate)?.explained(error, for: request.url) ?? error
    }
}

/// An answer's `Content-Length` was not a length.
struct InvalidContentLength: Error, CustomStringConvertible {
    let field: String
    var description: String {
        "Content-Length is not a length (\(field.prefix(80))): its body's end is unknown, and reading it by its leading "
            + "digits would cut it short"
    }
}

/// An answer's `Content-Length` named different lengths.
struct ConflictingContentLength: Error, CustomStringConvertible {
    let field: String
    var description: String { "Content-Length lists different lengths (\(field.prefix(80))): the body has no end" }
}
