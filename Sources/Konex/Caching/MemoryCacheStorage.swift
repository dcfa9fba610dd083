import Foundation

/// Cached responses in memory, bounded by size, least recently used evicted first.
///
/// ```swift
/// let cache = HTTPCache(storage: .memory(capacity: 20 << 20))
/// ```
public final class MemoryCacheStorage: HTTPCacheStorage {
    private let index: Lock<LRUIndex<CachedResponse>>

    /// Creates an empty storage.
    /// - Parameter capacity: The most bytes of bodies and headers kept.
    public init(capacity: Int = 10 << 20) { index = Lock(LRUIndex(capacity: capacity)) }

    /// The bytes kept now.
    public var size: Int { index.value.totalCost }

    /// How many responses are kept now.
    public var count: Int { index.value.slots.count }

    public func response(forKey key: String) -> CachedResponse? { index.withLock { $0.use(key) } }

    public func store(_ response: CachedResponse, forKey key: String) {
        index.withLock { _ = $0.insert(response, cost: response.cost, forKey: key) }
    }

    public func removeResponse(forKey key: String) { index.withLock { _ = $0.remove(key) } }

    public func removeAll() { index.withLock { _ = $0.removeAll() } }

    public let keySecret = ProcessSecret.random(count: 32)
}
