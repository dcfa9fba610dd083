import Foundation

/// Cached responses in files, one per URL, bounded by size, least recently used evicted first.
///
/// Each file is written whole to a temporary name and renamed into place, so a crash leaves the old entry or the new
/// one. A file that does not read back whole (wrong magic, a length that does not add up, undecodable metadata, a
/// different key) is deleted and counts as a miss; it is never served. The index of sizes and last use is built from
/// the directory on first use, outside the lock.
///
/// Nothing secret is written as it is: the key (a URL with credential digests) is stored as a keyed SHA-256 digest,
/// the URL and the URLs in `Location`-like headers with token-like query items redacted (``Redaction/default``), and credentials and `Vary` values only as digests keyed by a random
/// secret kept in the folder (`.konexcache-secret`, readable by the owner only), so a copied cache folder cannot be
/// checked against guessed passwords. ``HTTPCache`` calls a disk storage off Swift's cooperative threads.
/// ```swift
/// let folder = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0].appendingPathComponent("api")
/// let cache = HTTPCache(storage: .disk(directory: folder, capacity: 100 << 20))
/// ```
public final class DiskCacheStorage: HTTPCacheStorage {
    /// The folder the files are in (created on first store).
    public let directory: URL
    private let index: Lock<LRUIndex<URL>?>
    private let capacity: Int
    private let secret = Lock<[UInt8]?>(nil)

    private static let magic = Data("KXC1".utf8)
    private static let suffix = ".konexcache"

    /// Creates a storage over `directory`.
    /// - Parameters:
    ///   - directory: Where the files go; created when missing.
    ///   - capacity: The most bytes kept on disk.
    public init(directory: URL, capacity: Int = 50 << 20) {
        self.directory = directory
        self.capacity = capacity
        index = Lock(nil)
    }

    /// The bytes on disk now.
    public var size: Int { withIndex { $0.totalCost } }

    public func response(forKey key: String) -> CachedResponse? {
        guard let file = withIndex({ $0.use(StableHash.fnv1a(key)) }) else { return nil }
        guard let data = try? Data(contentsOf: file), let response = Self.decode(data, key: digest(key)) else {
            // Unreadable or not what it claims to be: never serve it, and free its space.
            removeResponse(forKey: key)
            try? FileManager.default.removeItem(at: file)
            return nil
        }
        return response
    }

    public func store(_ response: CachedResponse, forKey key: String) {
        var response = response
        // The URL as the logs show it: a token in its query never reaches the disk (it is served under the
        // request's own URL anyway).
        response.url = URL(string: Redaction.default.url(response.url.absoluteString)) ?? response.url
        // So are URLs in headers (`Location`, `Content-Location`): a redirect kept on disk points at the URL with
        // its token redacted, a price paid so that no token is ever written.
        for (name, value) in response.headers {
            let redacted = Redaction.default.value(ofHeader: name, value)
            if redacted != value { response.headers[name] = redacted }
        }
        guard let data = Self.encode(response, key: digest(key)) else { return }
        let file = directory.appendingPathComponent(Self.fileName(for: key))
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try data.write(to: file, options: .atomic)
        } catch {
            return
        }
        let (kept, evicted) = withIndex { $0.insert(file, cost: data.count, forKey: StableHash.fnv1a(key)) }
        for old in evicted { try? FileManager.default.removeItem(at: old) }
        if !kept { try? FileManager.default.removeItem(at: file) }  // larger than the whole capacity
    }

    public func removeResponse(forKey key: String) {
        if let file = withIndex({ $0.remove(StableHash.fnv1a(key)) }) { try? FileManager.default.removeItem(at: file) }
    }

    public func removeAll() {
        for file in withIndex({ $0.removeAll() }) { try? FileManager.default.removeItem(at: file) }
    }

    public var performsBlockingIO: Bool { true }

    /// 32 random bytes kept in the folder, made on first use (owner-only permissions).
    public var keySecret: [UInt8] {
        secret.withLock { secret in
            if let secret { return secret }
            let file = directory.appendingPathComponent(".konexcache-secret")
            if let data = try? Data(contentsOf: file), data.count == 32 {
                secret = [UInt8](data)
                return secret!
            }
            let made = ProcessSecret.random(count: 32)
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            if FileManager.default.createFile(
                atPath: file.path, contents: Data(made), attributes: [.posixPermissions: 0o600])
            {
                secret = made
                return made
            }
            return made  // not kept: entries written now are misses in the next process, never wrong
        }
    }

    // MARK: Index

    private func withIndex<T>(_ body: (inout LRUIndex<URL>) -> T) -> T {
        // The folder is listed outside the lock: a large one would otherwise stall every other caller.
        if index.withLock({ $0 == nil }) {
            let loaded = loadIndex()
            index.withLock { if $0 == nil { $0 = loaded } }
        }
        return index.withLock { body(&$0!) }
    }

    /// Every entry file in the directory, the oldest modification counted as the least recently used. The index is
    /// keyed by the key's hash (the file name), so entries found on disk and entries stored now agree.
    private func loadIndex() -> LRUIndex<URL> {
        var index = LRUIndex<URL>(capacity: capacity)
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        let files =
            (try? FileManager.default.contentsOfDirectory(
                at: directory, includingPropertiesForKeys: keys)) ?? []
        let entries = files.filter { $0.lastPathComponent.hasSuffix(Self.suffix) }.compactMap {
            file -> (URL, Int, Date)? in
            guard let values = try? file.resourceValues(forKeys: Set(keys)) else { return nil }
            return (file, values.fileSize ?? 0, values.contentModificationDate ?? .distantPast)
        }
        for (position, (file, size, _)) in entries.sorted(by: { $0.2 < $1.2 }).enumerated() {
            let name = String(file.lastPathComponent.dropLast(Self.suffix.count))
            for evicted in index.insert(file, cost: size, forKey: name, lastUse: UInt64(position)).evicted {
                try? FileManager.default.removeItem(at: evicted)
            }
        }
        return index
    }

    // MARK: File format: "KXC1", metadata length (UInt32, big-endian), metadata JSON, body.

    private struct Metadata: Codable {
        var key: String
        var bodyLength: Int
        var response: CachedResponse
    }

    static func fileName(for key: String) -> String { StableHash.fnv1a(key) + suffix }

    /// What the file says its key is: a digest keyed by this folder's secret, never the key's text.
    func digest(_ key: String) -> String { SHA256.hex(SHA256.hmac(key: keySecret, Array(key.utf8))) }

    static func encode(_ response: CachedResponse, key: String) -> Data? {
        var withoutBody = response
        withoutBody.body = Data()
        guard
            let metadata = try? JSONEncoder().encode(
                Metadata(key: key, bodyLength: response.body.count, response: withoutBody))
        else { return nil }
        var data = magic
        var length = UInt32(metadata.count).bigEndian
        withUnsafeBytes(of: &length) { data.append(contentsOf: $0) }
        data.append(metadata)
        data.append(response.body)
        return data
    }

    static func decode(_ data: Data, key: String) -> CachedResponse? {
        guard data.count >= 8, data.prefix(4) == magic else { return nil }
        let length = data.dropFirst(4).prefix(4).reduce(0) { $0 << 8 | Int($1) }
        let metadataStart = data.startIndex + 8
        guard length > 0, data.count - 8 >= length,
            let metadata = try? JSONDecoder().decode(
                Metadata.self, from: data[metadataStart..<(metadataStart + length)]),
            metadata.key == key, data.count - 8 - length == metadata.bodyLength
        else { return nil }
        var response = metadata.response
        response.body = Data(data[(metadataStart + length)...])
        return response
    }
}
