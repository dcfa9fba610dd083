import Foundation

/// Where an ``HTTPCache`` keeps responses: ``MemoryCacheStorage`` and ``DiskCacheStorage`` ship with Konex; any type
/// that can keep a ``CachedResponse`` by key can stand in (a database, a shared container).
///
/// Storage is best effort: a store that fails is a miss later, never an error for the request, and an entry that
/// cannot be read back whole must be dropped, never served.
public protocol HTTPCacheStorage: Sendable {
    /// The response stored under `key`, or `nil`.
    func response(forKey key: String) -> CachedResponse?
    /// Stores `response` under `key`, replacing what was there.
    func store(_ response: CachedResponse, forKey key: String)
    /// Removes the response stored under `key`, if any.
    func removeResponse(forKey key: String)
    /// Removes every stored response.
    func removeAll()
    /// A secret of this storage's own, at least 32 random bytes, that keys the hashes of what must not be written as
    /// it is (credentials, the request's values of `Vary` headers), so that a stolen cache file cannot be checked
    /// against guessed passwords. A storage that outlives the process keeps its secret beside its entries
    /// (``DiskCacheStorage`` does); the default is a random secret for this process.
    var keySecret: [UInt8] { get }
    /// Whether calls block on I/O (files, a database): ``HTTPCache`` then makes them on a thread of its own rather
    /// than on one of Swift's few cooperative threads. `false` by default.
    var performsBlockingIO: Bool { get }
}

extension HTTPCacheStorage {
    public var keySecret: [UInt8] { ProcessSecret.bytes }
    public var performsBlockingIO: Bool { false }
}

/// Random bytes made once per process.
enum ProcessSecret {
    static let bytes: [UInt8] = random(count: 32)

    static func random(count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()  // the system's cryptographic source on every platform
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}

extension HTTPCacheStorage where Self == MemoryCacheStorage {
    /// Responses in memory, at most `capacity` bytes, least recently used evicted first.
    public static func memory(capacity: Int = 10 << 20) -> MemoryCacheStorage { MemoryCacheStorage(capacity: capacity) }
}

extension HTTPCacheStorage where Self == DiskCacheStorage {
    /// Responses in files under `directory`, at most `capacity` bytes, least recently used evicted first.
    public static func disk(directory: URL, capacity: Int = 50 << 20) -> DiskCacheStorage {
        DiskCacheStorage(directory: directory, capacity: capacity)
    }
}

/// Entries by key with their cost and last use, bounded by a capacity: the bookkeeping both storages share.
struct LRUIndex<Value>: Sendable where Value: Sendable {
    struct Slot: Sendable {
        var value: Value
        var cost: Int
        var lastUse: UInt64
    }

    let capacity: Int
    private(set) var slots: [String: Slot] = [:]
    private(set) var totalCost = 0
    private var clock: UInt64 = 0

    init(capacity: Int) { self.capacity = capacity }

    /// The value under `key`, marked as just used.
    mutating func use(_ key: String) -> Value? {
        guard slots[key] != nil else { return nil }
        clock += 1
        slots[key]!.lastUse = clock
        return slots[key]!.value
    }

    /// Inserts or replaces, then evicts the least recently used until the total fits. Returns whether `value` was
    /// kept (one larger than the whole capacity is not) and the other values evicted to make room.
    mutating func insert(_ value: Value, cost: Int, forKey key: String, lastUse: UInt64? = nil) -> (
        kept: Bool, evicted: [Value]
    ) {
        var evicted: [Value] = []
        remove(key)
        guard cost <= capacity else { return (false, []) }
        clock = max(clock, lastUse ?? 0) + 1
        slots[key] = Slot(value: value, cost: cost, lastUse: lastUse ?? clock)
        totalCost += cost
        while totalCost > capacity, let oldest = slots.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            if let value = remove(oldest) { evicted.append(value) }
        }
        return (true, evicted)
    }

    @discardableResult
    mutating func remove(_ key: String) -> Value? {
        guard let slot = slots.removeValue(forKey: key) else { return nil }
        totalCost -= slot.cost
        return slot.value
    }

    mutating func removeAll() -> [Value] {
        defer {
            slots = [:]
            totalCost = 0
        }
        return slots.values.map(\.value)
    }
}
