import Foundation

/// The operation the current request performs, when its call named one: a generated OpenAPI client's `operationId`,
/// or any name given with ``DataRequest/operation(_:)``.
///
/// Readable from every component the request runs (plugins, adapters, interceptors, the transport), in its task:
/// ```swift
/// struct OperationLog: KonexPlugin {
///     func didSendRequest(_ request: TransportRequest) async {
///         print("→ \(KonexOperation.current ?? "unnamed") \(request.url?.path ?? "")")
///     }
/// }
/// ```
public enum KonexOperation {
    /// The current request's operation; `nil` outside a request, or when its call named none.
    public static var current: String? { bound }

    /// Bound by the pipeline around a request whose call named an operation (others bind nothing).
    @TaskLocal static var bound: String?
}

extension DataRequest {
    /// Names the operation this call performs: plugins read it from ``KonexOperation/current``, tracing names the span
    /// after it, metrics label by it, `explain()` shows it, and KonexTesting's `RequestMatcher.operation(_:)` matches
    /// on it. Generated OpenAPI clients (the `KonexOpenAPI` transport) name every call by its `operationId`.
    /// ```swift
    /// let post = try await client.request("/posts/1").operation("getPost").responseObject(of: Post.self)
    /// ```
    /// - Parameter id: A name of bounded cardinality (one per endpoint, not per request).
    /// - Returns: The request, named.
    public consuming func operation(_ id: String) -> DataRequest {
        var copy = self
        copy.operationID = id
        return copy
    }
}
