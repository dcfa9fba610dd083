import Foundation

/// A request being built: an endpoint plus call-site components, ready to be sent by a `response…` method.
///
/// Each chain call returns a modified copy, so a partly built request can be kept and branched; nothing is
/// sent until a terminal operation runs, and each terminal call sends the request anew.
/// ```swift
/// let posts = try await client.request(GetAllPostsRequest())
///     .withPlugin(timing)                  // call-site components run after client and request ones
///     .validate()                          // 200..<300
///     .process(.keyPath("data"))           // processors, in order
///     .responseArray(of: Post.self)        // async throws -> [Post]
/// ```
/// The order in which components run is documented once, in `Engine/Pipeline.swift`.
public struct DataRequest: Sendable {
    enum Source: Sendable {
        case endpoint(any KonexRequest)
        case url(URL)
        // Boxed: a ready request is large, and every chain call copies the source.
        indirect case ready(TransportRequest)
    }

    let client: KonexClient
    let source: Source
    var plugins: [any KonexPlugin] = []
    var adapters: [any RequestAdapter] = []
    var validators: [any KonexResponseValidator] = []
    var processors: [any KonexResponseProcessor] = []
    var retriers: [any RequestRetrier] = []
    var interceptors: [any TransportInterceptor] = []
    var timeout: Duration?
    /// The options most requests never set, behind one reference: every frame of a request in flight holds a copy of
    /// the request, and seven optionals inline made each copy 312 bytes instead of 136.
    private var rare: RareOptions?

    /// The options behind `rare`, set through the properties below, each set on a new copy (chain calls are few,
    /// reads are many). A class of fields, not a boxed struct: reading one field then copies nothing, where a struct
    /// read in an async function left a copy of all seven in the request's frame.
    final class RareOptions: @unchecked Sendable {  // changed only while a new copy is made, before it is shared
        var totalTimeout: Duration?
        var operationID: String?
        var errorDecoder: ErrorBodyDecoder?
        var progress: (@Sendable (TransferProgress) -> Void)?
        var progressSink: ProgressUpdates.Sink?
        var reconnection: ReconnectionPolicy?
        var bodyCompression: BodyCompression.Setting?
        var body: RequestBody?

        func copy() -> RareOptions {
            let copy = RareOptions()
            copy.totalTimeout = totalTimeout
            copy.operationID = operationID
            copy.errorDecoder = errorDecoder
            copy.progress = progress
            copy.progressSink = progressSink
            copy.reconnection = reconnection
            copy.bodyCompression = bodyCompression
            copy.body = body
            return copy
        }
    }

    private mutating func change(_ body: (RareOptions) -> Void) {
        let options = rare?.copy() ?? RareOptions()
        body(options)
        rare = options
    }

    /// The body given at the call site (``body(_:)``, ``body(json:encoder:)``), in place of the endpoint's.
    var callSiteBody: RequestBody? {
        get { rare?.body }
        set { change { $0.body = newValue } }
    }
    /// The longest the exchange may take, head and body (``totalTimeout(_:)``).
    var totalTimeout: Duration? {
        get { rare?.totalTimeout }
        set { change { $0.totalTimeout = newValue } }
    }
    /// The operation the call performs (``operation(_:)``), bound to ``KonexOperation/current`` while it runs.
    var operationID: String? {
        get { rare?.operationID }
        set { change { $0.operationID = newValue } }
    }
    var errorDecoder: ErrorBodyDecoder? {
        get { rare?.errorDecoder }
        set { change { $0.errorDecoder = newValue } }
    }
    var progress: (@Sendable (TransferProgress) -> Void)? {
        get { rare?.progress }
        set { change { $0.progress = newValue } }
    }
    /// The sequence ``trackingProgress()`` returned, finished when the request ends.
    var progressSink: ProgressUpdates.Sink? {
        get { rare?.progressSink }
        set { change { $0.progressSink = newValue } }
    }
    var reconnection: ReconnectionPolicy? {
        get { rare?.reconnection }
        set { change { $0.reconnection = newValue } }
    }
    /// How ``compressingBody(_:minimumBytes:)`` compresses the body.
    var bodyCompression: BodyCompression.Setting? {
        get { rare?.bodyCompression }
        set { change { $0.bodyCompression = newValue } }
    }

    init(client: KonexClient, source: Source) {
        self.client = client
        self.source = source
    }

    /// The endpoint this request was made from, if it was made from a ``KonexRequest``.
    public var endpoint: (any KonexRequest)? {
        if case .endpoint(let endpoint) = source { return endpoint }
        return nil
    }

    private consuming func with(_ change: (inout DataRequest) -> Void) -> DataRequest {
        var copy = self
        change(&copy)
        return copy
    }

    /// Adds a plugin, after the client's and the request's.
    /// - Parameter plugin: The plugin.
    public consuming func withPlugin(_ plugin: some KonexPlugin) -> DataRequest { with { $0.plugins.append(plugin) } }

    /// Adds plugins, after the client's and the request's, in order.
    public consuming func withPlugins(_ plugins: [any KonexPlugin]) -> DataRequest { with { $0.plugins += plugins } }

    /// Adds an interceptor around the transport call, inside the client's and the request's.
    /// - Parameter interceptor: The interceptor, e.g. an ``HTTPCache`` or a ``ConcurrencyLimit``.
    public consuming func withInterceptor(_ interceptor: some TransportInterceptor) -> DataRequest {
        with { $0.interceptors.append(interceptor) }
    }

    /// Adds an adapter that rewrites the outgoing request, after the client's and the request's.
    /// - Parameter adapter: The adapter, e.g. `.bearer(token)`.
    public consuming func withAdapter(_ adapter: some RequestAdapter) -> DataRequest {
        with { $0.adapters.append(adapter) }
    }

    /// Adds an adapter made from a closure.
    public consuming func withAdapter(_ adapt: @escaping @Sendable (TransportRequest) async throws -> TransportRequest)
        -> DataRequest
    {
        withAdapter(ClosureAdapter(adapt))
    }

    /// Accepts only status codes in `200..<300`.
    public consuming func validate() -> DataRequest { validate(StatusCodeValidator(200..<300)) }

    /// Accepts only status codes in `range`.
    public consuming func validate(statusCode range: Range<Int>) -> DataRequest { validate(StatusCodeValidator(range)) }

    /// Accepts only the listed status codes.
    public consuming func validate(statusCode codes: Set<Int>) -> DataRequest { validate(StatusCodeValidator(codes)) }

    /// Accepts only the listed media types (`*/*` and `type/*` allowed); an empty body passes.
    public consuming func validate(contentType acceptable: [String]) -> DataRequest {
        validate(ContentTypeValidator(acceptable))
    }

    /// Adds a validator, after the client's and the request's.
    /// - Parameter validator: The validator, e.g. `.statusCode(200..<300)`.
    public consuming func validate(_ validator: some KonexResponseValidator) -> DataRequest {
        with { $0.validators.append(validator) }
    }

    /// Adds a validator made from a closure that throws to reject the response.
    public consuming func validate(_ check: @escaping @Sendable (ResponseHead, Data) throws -> Void) -> DataRequest {
        validate(ClosureValidator(check))
    }

    /// Adds a response processor, after the client's and the request's.
    /// - Parameter processor: The processor, e.g. `.keyPath("data")`.
    public consuming func process(_ processor: some KonexResponseProcessor) -> DataRequest {
        with { $0.processors.append(processor) }
    }

    /// Adds a response processor made from a closure.
    public consuming func process(_ transform: @escaping @Sendable (Data, ResponseHead) throws -> Data) -> DataRequest {
        process(ClosureProcessor(transform))
    }

    /// Adds a retrier, asked after the client's and the request's.
    /// - Parameter retrier: The retrier, e.g. `RetryPolicy()`.
    public consuming func retry(_ retrier: some RequestRetrier) -> DataRequest { with { $0.retriers.append(retrier) } }

    /// Sets this call's timeout, overriding the request's and the client's.
    public consuming func timeout(_ timeout: Duration) -> DataRequest { with { $0.timeout = timeout } }

    /// Bounds the whole exchange of each attempt, over every transport: waiting for a ``ConcurrencyLimit`` slot, each
    /// redirect hop, the head and the body read into memory or a file, measured on the client's clock.
    ///
    /// ``timeout(_:)`` bounds the silence between bytes, which a server that drips one byte a second never breaks;
    /// this bounds the whole. Past it the attempt fails with stage ``KonexError/Stage/transport`` and
    /// ``TransportFailure/Kind/timedOut`` (so ``KonexError/isTimeout`` and a ``RetryPolicy`` treat it as a timeout);
    /// for `stream()` it bounds the wait for the head, and `stream(totalTimeout:)` the body.
    /// ```swift
    /// let report = try await client.request(GetReport()).totalTimeout(.seconds(10)).responseData()
    /// ```
    /// - Parameter limit: The longest an attempt may take; overrides the client's ``KonexClient/totalTimeout``.
    public consuming func totalTimeout(_ limit: Duration) -> DataRequest { with { $0.totalTimeout = limit } }

    /// Sends `body` in place of the endpoint's own.
    /// - Parameter body: The body; its `Content-Type` is set unless the endpoint sets one.
    public consuming func body(_ body: RequestBody) -> DataRequest { with { $0.callSiteBody = body } }

    /// Sends `value` as JSON in place of the endpoint's body, encoded now, where the call is made.
    ///
    /// For a model whose `Encodable` conformance belongs to the caller's actor (a main-actor app's own
    /// `struct NewPost: Codable`): an endpoint's `body` is read off that actor, where such a model cannot be encoded.
    /// ```swift
    /// let created = try await client.request(CreatePost()).body(json: NewPost(title: "Hello"))
    ///     .validate().responseObject(of: Post.self)
    /// ```
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - encoder: An encoder for this body only; the client's `encoder` by default.
    public consuming func body<T: Encodable>(json value: T, encoder: JSONEncoder? = nil) -> DataRequest {
        let body: RequestBody
        do {
            body = RequestBody(
                kind: .data(try (encoder ?? client.encoder).encode(value), contentType: "application/json"))
        } catch {
            // Thrown as the pipeline's first step does for an endpoint's body, with the same words.
            body = RequestBody(kind: .unencodable(RequestBody.reason(error)))
        }
        return with { $0.callSiteBody = body }
    }

    /// Decodes the body of a response that fails validation as `type`; the thrown ``KonexError`` carries it.
    /// - Parameter type: The server's error model.
    public consuming func decodingErrors<E: Decodable & Sendable>(as type: E.Type) -> DataRequest {
        with { $0.errorDecoder = ErrorBodyDecoder(type) }
    }

    consuming func decodingErrors(as type: (any (Decodable & Sendable).Type)?) -> DataRequest {
        guard let type else { return self }
        return decodingErrors(as: type)
    }
}
