import Foundation

/// One endpoint of an API, as a value: the heart of Konex.
///
/// Only ``path`` is required: an absolute URL, or a path resolved against the client's `baseURL`.
/// Everything else has a default, so a request is as small as the endpoint it describes:
/// ```swift
/// struct GetAllPostsRequest: KonexRequest {
///     let path = "https://jsonplaceholder.typicode.com/posts/"
/// }
///
/// enum UsersAPI: KonexRequest {
///     case user(id: Int), create(NewUser)
///     var path: String {
///         switch self {
///         case .user(let id): "/users/\(id)"
///         case .create: "/users"
///         }
///     }
///     var method: HTTPMethod { if case .create = self { .post } else { .get } }
///     var body: RequestBody? { if case .create(let user) = self { .json(user) } else { nil } }
/// }
/// ```
///
/// Components declared here (``requestPlugins`` and friends) run after the client's and before the call site's.
public protocol KonexRequest: Sendable {
    /// An absolute `http`/`https` URL, or a path joined to the client's `baseURL` (one `/` between them).
    var path: String { get }
    /// The HTTP method; `.get` by default.
    var method: HTTPMethod { get }
    /// A JSON object sent as the query string for GET, HEAD and DELETE, or when ``body`` is set;
    /// as a JSON body otherwise. `nil` by default.
    var parameters: Parameters? { get }
    /// Headers for this request; they override the client's default headers. `nil` by default.
    var headers: [String: String]? { get }
    /// A typed body (JSON, form, raw data, multipart). `nil` by default.
    var body: RequestBody? { get }
    /// A timeout for this request, overriding the client's. `nil` by default.
    var timeout: Duration? { get }
    /// Plugins for this request only, run after the client's. Empty by default.
    var requestPlugins: [any KonexPlugin] { get }
    /// Response processors for this request only, run after the client's. Empty by default.
    var requestResponseProcessors: [any KonexResponseProcessor] { get }
    /// Response validators for this request only, run after the client's. Empty by default.
    var requestResponseValidators: [any KonexResponseValidator] { get }
    /// Adapters for this request only, run after the client's. Empty by default.
    var requestAdapters: [any RequestAdapter] { get }
    /// Retriers for this request only, asked after the client's. Empty by default.
    var requestRetriers: [any RequestRetrier] { get }
    /// Interceptors for this request only, inside the client's. Empty by default.
    var requestInterceptors: [any TransportInterceptor] { get }
    /// The route this endpoint stands for, with placeholders for what varies (`"/users/{id}"`): instruments name
    /// spans and label metrics by it instead of by the path, which would make one label per user. `nil` by default.
    var urlTemplate: String? { get }
}

extension KonexRequest {
    public var method: HTTPMethod { .get }
    public var parameters: Parameters? { nil }
    public var headers: [String: String]? { nil }
    public var body: RequestBody? { nil }
    public var timeout: Duration? { nil }
    public var requestPlugins: [any KonexPlugin] { [] }
    public var requestResponseProcessors: [any KonexResponseProcessor] { [] }
    public var requestResponseValidators: [any KonexResponseValidator] { [] }
    public var requestAdapters: [any RequestAdapter] { [] }
    public var requestRetriers: [any RequestRetrier] { [] }
    public var requestInterceptors: [any TransportInterceptor] { [] }
    public var urlTemplate: String? { nil }
}
