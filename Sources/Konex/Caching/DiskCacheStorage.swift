import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Cached responses in files, one per URL, bounded by size, least recently used evicted first.
///
/// Each file is written whole to a temporary name and renamed into place, so a crash leaves the old entry or the new
/// one. A file that does not read back whole (wrong magic, a length that does not add up, undecodable metadata, a
/// different key) is deleted and counts as a miss; it is never served. The index of sizes and last use is built from
/// the directory on first use, outside the lock.
///
/// Nothing secret is written as it is: the key (a URL with credential digests) is stored as a keyed SHA-256 digest,
/// the URL and a `Content-Location` with token-like query items redacted (``Redaction/default``), a redirect whose
/// `Location` carries a secret not at all (a hit must never lead somewhere the server did not send), and
/// credentials and `Vary` values only as digests keyed by a random secret kept in the folder (`.konexcache-secret`),
/// so a copied cache folder cannot be checked against guessed passwords. File names are keyed by that secret too, so
/// a directory listing does not tell which URLs were fetched. The folder Konex creates is the owner's only (0700), and
/// so is every file (0600); on iOS, tvOS, watchOS and visionOS the files are also protected until the device is first
/// unlocked. The secret stays in the folder rather than the keychain: it guards digests in that folder, and a copy of
/// the folder without it reveals nothing. Two processes that create the secret at once agree on one (it is published
/// with an atomic `link`, and the loser reads the winner's). ``HTTPCache`` calls a disk storage off Swift's
/// cooperative threads.
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
        guard let file = withIndex({ $0.use(indexKey(key)) }) else { return nil }
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
        for (name, value) in response.headers {
            let redacted = Redaction.default.value(ofHeader: name, value)
            guard redacted != value else { continue }
            // A redirect whose target carries a secret (a signed URL) is not kept on disk: kept redacted, every hit
            // would lead to `…=REDACTED`, somewhere the server never sent. An older entry for the key goes too.
            if name.lowercased() == "location" {
                removeResponse(forKey: key)
                return
            }
            // Other URLs in headers (`Content-Location`) only describe the response: kept, redacted.
            response.headers[name] = redacted
        }
        guard let data = Self.encode(response, key: digest(key)) else { return }
        let file = directory.appendingPathComponent(fileName(for: key))
        guard createDirectory(), Self.writeOwnerOnly(data, to: file) else { return }
        let (kept, evicted) = withIndex { $0.insert(file, cost: data.count, forKey: indexKey(key)) }
        for old in evicted { try? FileManager.default.removeItem(at: old) }
        if !kept { try? FileManager.default.removeItem(at: file) }  // larger than the whole capacity
    }

    public func removeResponse(forKey key: String) {
        if let file = withIndex({ $0.remove(indexKey(key)) }) { try? FileManager.default.removeItem(at: file) }
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
            guard createDirectory() else { return made }  // not kept: later entries are misses, never wrong
            // Written whole under a name of its own, then published with `link`, which fails when another process
            // published first: a reader never sees half a secret, and two creators end with one.
            let draft = directory.appendingPathComponent(".konexcache-secret-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: draft) }
            if Self.writeOwnerOnly(Data(made), to: draft, replacing: false), link(draft.path, file.path) == 0 {
                secret = made
                return made
            }
            if let data = try? Data(contentsOf: file), data.count == 32 {
                secret = [UInt8](data)
                return secret!
            }
            return made
        }
    }

    /// Creates the folder when missing, the owner's only.
    private func createDirectory() -> Bool {
        (try? FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])) != nil
    }

    /// Writes `data` to a new owner-only file beside `file`, then renames it into place (or, with `replacing`
    /// false, leaves it at `file` itself, which must not exist).
    static func writeOwnerOnly(_ data: Data, to file: URL, replacing: Bool = true) -> Bool {
        var attributes: [FileAttributeKey: Any] = [.posixPermissions: 0o600]
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
            attributes[.protectionKey] = FileProtectionType.completeUntilFirstUserAuthentication
        #endif
        guard replacing else {
            return FileManager.default.createFile(atPath: file.path, contents: data, attributes: attributes)
        }
        let temporary = file.deletingLastPathComponent().appendingPathComponent(".tmp-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: attributes) else {
            return false
        }
        guard rename(temporary.path, file.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            return false
        }
        return true
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
    /// keyed by the file name (a digest of the key), so entries found on disk and entries stored now agree.
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

    /// The entry's file name: a digest of the key keyed by this folder's secret, so a listing names no URL.
    func fileName(for key: String) -> String { indexKey(key) + Self.suffix }

    /// What the index knows an entry by: the file name without its suffix.
    private func indexKey(_ key: String) -> String { String(digest("name " + key).prefix(32)) }

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
