import Foundation

/// Dispatches ``KonexRequest`` values: holds the base URL, default headers, coders, transport and the
/// client-level components every request goes through.
///
/// ```swift
/// let client = KonexClient(baseURL: URL(string: "https://api.example.com")!,
///                          headers: ["Accept": "application/json"])
/// client.plugins.append(LoggingPlugin())
/// let posts = try await client.request(GetPosts()).validate().responseArray(of: Post.self)
/// ```
///
/// Configuration is fixed at creation; the component lists (``plugins``, ``responseProcessors``,
/// ``responseValidators``, ``adapters``, ``retriers``) may be changed at any time and apply to requests that
/// start afterwards. A client is `Sendable`: share one per API.
public final class KonexClient: Sendable {
    /// A ready-made client with default settings, for scripts and small apps.
    public static let shared = KonexClient()

    /// Joined to every relative ``KonexRequest/path``; `nil` means every path must be an absolute URL.
    public let baseURL: URL?
    /// Headers sent with every request; a request's own headers override them.
    public let headers: [String: String]
    /// Decodes responses unless a call passes its own.
    public let decoder: JSONDecoder
    /// Encodes JSON bodies and JSON `parameters` unless a body passes its own.
    public let encoder: JSONEncoder
    /// How parameters become query strings and form bodies.
    public let urlEncoding: URLEncoding
    /// Sends requests.
    public let transport: any Transport
    /// Opens WebSocket connections; `nil` uses ``transport`` when it can (``URLSessionTransport`` does).
    public let webSocketTransport: (any WebSocketTransport)?
    /// The longest silence while waiting for data, for requests that set no timeout of their own; `nil` waits 60
    /// seconds, as a `URLRequest` does, over every transport.
    public let timeout: Duration?
    /// The longest an attempt's whole exchange may take, head and body, for calls that set no
    /// ``DataRequest/totalTimeout(_:)``; `nil` for no bound.
    public let totalTimeout: Duration?
    /// Bodies read into memory larger than this fail with a transport-stage error; `nil` for no limit. Over a
    /// transport that streams, reading stops at the limit, and a larger `Content-Length` is refused on the head.
    public let maximumResponseSize: Int?
    /// Which redirects are followed; `nil` uses the transport's ``Transport/redirectPolicy`` (``RedirectPolicy/follow``
    /// unless the transport was made with another). The rules ``RedirectPolicy`` lists apply either way.
    public let redirectPolicy: RedirectPolicy?
    /// What is secret in this client's requests and responses: the headers listed here are also dropped when a
    /// redirect changes origin. ``Redaction/default`` by default.
    public let redaction: Redaction
    /// Which servers this client trusts and the certificate it presents, applied by its transport to every request
    /// and WebSocket; a transport that cannot apply them refuses to send (see ``TLSCapable/checkCanApply(_:)``).
    /// ``TLSSettings/default`` (the system's trust, no client certificate) by default.
    public let tls: TLSSettings
    /// Keeps the cookies servers set and sends them back (see ``CookieJar``); `nil` leaves cookies to the transport.
    public let cookieJar: CookieJar?
    /// ``redaction`` when it is not the default: what the pipeline binds to ``Redaction/current`` for each request
    /// and gives the errors it throws (`nil` keeps requests of default clients free of the binding).
    let ownRedaction: Redaction.Shared?
    /// What retries wait on; inject a test clock to make backoff instant in tests.
    public let clock: any Clock<Duration>
    /// Where callback forms (`onSuccess`/`onError`, `completion`) run when they are called from code on no actor (a
    /// Konex 0.5 call site, Swift 5 mode code, a completion-handler wrapper), and when a call passes `queue: nil`; a
    /// caller on an actor (a main-actor view model) gets its callbacks on that actor, and a call that names a queue on
    /// that queue. `nil` runs them on the task that ran the request. ``defaultCallbackQueue`` by default: the main
    /// queue on Apple platforms.
    public let callbackQueue: DispatchQueue?

    /// The retry budget of every ``RetryPolicy`` left with its default budget (``RetryBudget/perClient``), its
    /// window measured on ``clock`` as the policies' waits are: on a test clock, a test's budget does not depend on
    /// how long a loaded machine takes to run it.
    let retryBudget: RetryBudget
    /// ``baseURL``'s scheme, host and port as written, and its origin folded once: most requests go there, and
    /// folding every request's origin cost two `lowercased()` a request with a retrier.
    let baseOrigin: (scheme: String?, host: String?, port: Int?, folded: String)?
    private let components: Lock<Components>
    /// `baseURL` as text, without trailing slashes, checked once: relative paths are joined to it on every request.
    let basePrefix: CheckedBase?
    /// How requests over ``transport`` follow redirects, settled once.
    let redirects: RedirectSettings

    /// Creates a client.
    /// - Parameters:
    ///   - baseURL: Joined to relative request paths.
    ///   - headers: Sent with every request.
    ///   - decoder: Decodes responses.
    ///   - encoder: Encodes JSON bodies.
    ///   - urlEncoding: How parameters are written into queries and forms.
    ///   - transport: Sends requests; ``URLSessionTransport`` by default.
    ///   - timeout: The default per-request timeout: the longest silence while waiting for data.
    ///   - totalTimeout: The default bound on an attempt's whole exchange (see ``DataRequest/totalTimeout(_:)``).
    ///   - maximumResponseSize: The largest body accepted, in bytes.
    ///   - clock: What retry delays wait on; the continuous clock by default.
    ///   - callbackQueue: Where callbacks run; the main queue on Apple platforms (see ``defaultCallbackQueue``).
    ///   - plugins: Client-level plugins, run before request and call-site ones.
    ///   - responseValidators: Client-level validators.
    ///   - responseProcessors: Client-level processors.
    ///   - adapters: Client-level adapters.
    ///   - retriers: Client-level retriers.
    ///   - interceptors: Client-level interceptors around the transport call (cache, coalescing, limits).
    ///   - instruments: What watches every request from start to end (tracing, metrics); none by default.
    ///   - webSocketTransport: Opens WebSocket connections; `nil` uses `transport` when it can.
    ///   - redirectPolicy: Which redirects are followed; `nil` (the default) uses the transport's.
    ///   - redaction: What is secret: hidden in logs, dropped from a redirect to another origin.
    ///   - tls: Which servers are trusted (roots, pinned keys) and the client certificate; the system's trust by
    ///     default.
    ///   - cookieJar: Keeps the cookies servers set and sends them back, the same over every transport; `nil` (the
    ///     default) leaves cookies to the transport (a URLSession's cookie storage).
    public init(
        baseURL: URL? = nil,
        headers: [String: String] = [:],
        decoder: JSONDecoder = JSONDecoder(),
        encoder: JSONEncoder = JSONEncoder(),
        urlEncoding: URLEncoding = .default,
        transport: any Transport = URLSessionTransport(),
        timeout: Duration? = nil,
        totalTimeout: Duration? = nil,
        maximumResponseSize: Int? = nil,
        clock: any Clock<Duration> = ContinuousClock(),
        callbackQueue: DispatchQueue? = KonexClient.defaultCallbackQueue,
        plugins: [any KonexPlugin] = [],
        responseValidators: [any KonexResponseValidator] = [],
        responseProcessors: [any KonexResponseProcessor] = [],
        adapters: [any RequestAdapter] = [],
        retriers: [any RequestRetrier] = [],
        interceptors: [any TransportInterceptor] = [],
        instruments: [any RequestInstrument] = [],
        webSocketTransport: (any WebSocketTransport)? = nil,
        redirectPolicy: RedirectPolicy? = nil,
        redaction: Redaction = .default,
        tls: TLSSettings = .default,
        cookieJar: CookieJar? = nil
    ) {
        self.baseURL = baseURL
        self.headers = headers
        self.decoder = decoder
        self.encoder = encoder
        self.urlEncoding = urlEncoding
        self.transport = transport
        self.webSocketTransport = webSocketTransport
        self.timeout = timeout
        self.totalTimeout = totalTimeout
        self.maximumResponseSize = maximumResponseSize
        self.clock = clock
        retryBudget = RetryBudget(clock: clock)
        self.callbackQueue = callbackQueue
        basePrefix = baseURL.map(CheckedBase.init)
        baseOrigin = baseURL.map { url in
            (url.scheme, url.host, url.port, TransportRequest(URLRequest(url: url)).origin)
        }
        self.redirectPolicy = redirectPolicy
        self.redaction = redaction
        self.tls = tls
        ownRedaction = redaction == .default ? nil : Redaction.Shared(redaction)
        self.cookieJar = cookieJar
        redirects = RedirectSettings(
            policy: redirectPolicy ?? transport.redirectPolicy, redaction: redaction, cookies: cookieJar)
        components = Lock(
            Components(
                plugins: plugins, validators: responseValidators, processors: responseProcessors, adapters: adapters,
                retriers: retriers, interceptors: interceptors, instruments: instruments))
    }

    /// Creates a client over an existing `URLSession`: its configuration, delegate queue and cookies are yours, and
    /// redirects Konex's (see ``URLSessionTransport/init(session:redirectPolicy:)``).
    /// - Parameter urlSession: The session whose configuration, delegate queue and delegate are used.
    public convenience init(urlSession: URLSession) {
        self.init(transport: URLSessionTransport(session: urlSession))
    }

    /// Client-level plugins, run first.
    public var plugins: [any KonexPlugin] {
        get { components.value.plugins }
        set { components.withLock { $0 = Components($0, plugins: newValue) } }
    }

    /// Client-level response validators, run first.
    public var responseValidators: [any KonexResponseValidator] {
        get { components.value.validators }
        set { components.withLock { $0 = Components($0, validators: newValue) } }
    }

    /// Client-level response processors, run first.
    public var responseProcessors: [any KonexResponseProcessor] {
        get { components.value.processors }
        set { components.withLock { $0 = Components($0, processors: newValue) } }
    }

    /// Client-level request adapters, run first.
    public var adapters: [any RequestAdapter] {
        get { components.value.adapters }
        set { components.withLock { $0 = Components($0, adapters: newValue) } }
    }

    /// Client-level retriers, asked first.
    public var retriers: [any RequestRetrier] {
        get { components.value.retriers }
        set { components.withLock { $0 = Components($0, retriers: newValue) } }
    }

    /// Client-level interceptors, outermost first.
    public var interceptors: [any TransportInterceptor] {
        get { components.value.interceptors }
        set { components.withLock { $0 = Components($0, interceptors: newValue) } }
    }

    /// What watches every request from start to end (tracing, metrics), in order.
    public var instruments: [any RequestInstrument] {
        get { components.value.instruments }
        set { components.withLock { $0 = Components($0, instruments: newValue) } }
    }

    /// A snapshot of every client-level component, read under one lock.
    var componentSnapshot: Components { components.value }

    /// Starts building a request for an endpoint.
    /// - Parameter request: The endpoint.
    /// - Returns: A ``DataRequest`` to chain on; nothing is sent until a `response…` method is called.
    public func request(_ request: some KonexRequest) -> DataRequest {
        DataRequest(client: self, source: .endpoint(request))
    }

    /// Starts building a GET request for a URL.
    public func request(_ url: URL) -> DataRequest {
        DataRequest(client: self, source: .url(url))
    }

    /// Starts building a GET request for a URL string (absolute, or relative to ``baseURL``).
    public func request(_ urlString: String) -> DataRequest {
        DataRequest(client: self, source: .endpoint(PathRequest(path: urlString)))
    }

    /// Starts building a request from a ready `URLRequest`; the client's default headers fill in what it lacks.
    public func request(_ urlRequest: URLRequest) -> DataRequest {
        DataRequest(client: self, source: .ready(TransportRequest(urlRequest)))
    }

    /// Starts building a request from a ready ``TransportRequest`` (an adapter layer of your own, a generated client);
    /// the client's default headers fill in what it lacks.
    /// ```swift
    /// var request = TransportRequest(head: RequestHead(method: .put, url: url), body: .data(payload))
    /// request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    /// let saved = try await client.request(request).validate().responseData()
    /// ```
    public func request(_ request: TransportRequest) -> DataRequest {
        DataRequest(client: self, source: .ready(request))
    }
}

/// The client-level component lists.
/// The client-level components, one immutable snapshot: a request takes them all with one retain (a struct of seven
/// lists cost seven, and a copy through its value witnesses), and a setter swaps in a new snapshot.
final class Components: Sendable {
    let plugins: [any KonexPlugin]
    let validators: [any KonexResponseValidator]
    let processors: [any KonexResponseProcessor]
    let adapters: [any RequestAdapter]
    let retriers: [any RequestRetrier]
    let interceptors: [any TransportInterceptor]
    let instruments: [any RequestInstrument]

    init(
        plugins: [any KonexPlugin], validators: [any KonexResponseValidator], processors: [any KonexResponseProcessor],
        adapters: [any RequestAdapter], retriers: [any RequestRetrier], interceptors: [any TransportInterceptor],
        instruments: [any RequestInstrument]
    ) {
        self.plugins = plugins
        self.validators = validators
        self.processors = processors
        self.adapters = adapters
        self.retriers = retriers
        self.interceptors = interceptors
        self.instruments = instruments
    }

    /// `base` with the lists given here in place of its own.
    convenience init(
        _ base: Components, plugins: [any KonexPlugin]? = nil, validators: [any KonexResponseValidator]? = nil,
        processors: [any KonexResponseProcessor]? = nil, adapters: [any RequestAdapter]? = nil,
        retriers: [any RequestRetrier]? = nil, interceptors: [any TransportInterceptor]? = nil,
        instruments: [any RequestInstrument]? = nil
    ) {
        self.init(
            plugins: plugins ?? base.plugins, validators: validators ?? base.validators,
            processors: processors ?? base.processors, adapters: adapters ?? base.adapters,
            retriers: retriers ?? base.retriers, interceptors: interceptors ?? base.interceptors,
            instruments: instruments ?? base.instruments)
    }
}

/// A bare path or URL string, for `client.request("…")`.
struct PathRequest: KonexRequest {
    let path: String
}
