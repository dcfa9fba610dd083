import Foundation

/// An abstract base class for requests, for teams that prefer a class hierarchy (base, authenticated, …).
///
/// It cannot be used as is: subclass it and override ``path`` at least.
/// ```swift
/// class APIRequest: KonexBasicRequest {
///     override var headers: [String: String]? { ["Accept": "application/json"] }
/// }
/// final class GetPosts: APIRequest {
///     override var path: String { "/posts" }
/// }
/// ```
///
/// It is `@unchecked Sendable` because Swift allows only final classes to be checked: it stores nothing,
/// and a subclass that adds mutable stored state must protect that state itself.
open class KonexBasicRequest: KonexRequest, @unchecked Sendable {
    open var requestPlugins: [any KonexPlugin] { [] }
    open var requestResponseProcessors: [any KonexResponseProcessor] { [] }
    open var requestResponseValidators: [any KonexResponseValidator] { [] }
    open var requestAdapters: [any RequestAdapter] { [] }
    open var requestRetriers: [any RequestRetrier] { [] }
    open var requestInterceptors: [any TransportInterceptor] { [] }
    open var urlTemplate: String? { nil }

    open var path: String { "" }
    open var method: HTTPMethod { .get }
    open var parameters: Parameters? { nil }
    open var headers: [String: String]? { nil }
    open var body: RequestBody? { nil }
    open var timeout: Duration? { nil }

    /// Creates the request; subclasses add their own initializers.
    public init() {}
}
