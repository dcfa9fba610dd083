import Foundation

/// Sets the request's `cachePolicy`, which an ``HTTPCache`` reads to choose its mode.
public struct CachePolicyAdapter: RequestAdapter {
    /// The policy set.
    public let policy: URLRequest.CachePolicy

    /// Creates an adapter that sets `policy`.
    public init(_ policy: URLRequest.CachePolicy) { self.policy = policy }

    public func adapt(_ request: consuming TransportRequest) async throws -> TransportRequest {
        var request = request
        request.cachePolicy = policy
        return request
    }
}

extension RequestAdapter where Self == CachePolicyAdapter {
    /// Sets the request's cache policy (see ``HTTPCache`` for what each one does there).
    public static func cachePolicy(_ policy: URLRequest.CachePolicy) -> CachePolicyAdapter {
        CachePolicyAdapter(policy)
    }
}

extension DataRequest {
    /// Chooses how an ``HTTPCache`` treats this request: `.returnCacheDataDontLoad` for offline, say.
    /// ```swift
    /// let cached = try await client.request(GetFeed()).cachePolicy(.returnCacheDataDontLoad).responseArray(of: Post.self)
    /// ```
    /// - Parameter policy: The policy; `.useProtocolCachePolicy` is the default of every request.
    public consuming func cachePolicy(_ policy: URLRequest.CachePolicy) -> DataRequest {
        withAdapter(.cachePolicy(policy))
    }
}
