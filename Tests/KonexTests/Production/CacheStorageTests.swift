import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

@Suite struct CacheStorageTests {
    func entry(_ name: String, bytes: Int) -> CachedResponse {
        CachedResponse(
            url: URL(string: "https://api.test/\(name)")!, statusCode: 200, headers: ["ETag": "\"\(name)\""],
            body: Data(repeating: 1, count: bytes), requestDate: TestNow.start, responseDate: TestNow.start)
    }

    func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("konex-cache-\(UUID().uuidString)")
    }

    @Test func memoryEvictsTheLeastRecentlyUsedToStayWithinCapacity() {
        let storage = MemoryCacheStorage(capacity: 3_000)
        storage.store(entry("a", bytes: 700), forKey: "a")
        storage.store(entry("b", bytes: 700), forKey: "b")
        storage.store(entry("c", bytes: 700), forKey: "c")
        _ = storage.response(forKey: "a")  // a is now the most recently used
        storage.store(entry("d", bytes: 700), forKey: "d")
        #expect(storage.response(forKey: "b") == nil)
        #expect(storage.response(forKey: "a") != nil)
        #expect(storage.response(forKey: "d") != nil)
        #expect(storage.size <= 3_000)
        storage.store(entry("huge", bytes: 5_000), forKey: "huge")  // larger than the whole cache: not kept
        #expect(storage.response(forKey: "huge") == nil)
        #expect(storage.response(forKey: "a") != nil)
    }

    @Test func diskKeepsEntriesAcrossInstancesAndRoundTripsThemExactly() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var stored = entry("a", bytes: 1_000)
        stored.varying = ["accept-language": "fr"]
        DiskCacheStorage(directory: directory).store(stored, forKey: "GET https://api.test/a")
        let reopened = DiskCacheStorage(directory: directory)
        #expect(reopened.response(forKey: "GET https://api.test/a") == stored)
        #expect(reopened.response(forKey: "GET https://api.test/b") == nil)
        // Written atomically: nothing but the entry itself (and the folder's secret) is left in the folder.
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.count == 2)
        #expect(files.contains(".konexcache-secret"))
        #expect(files.contains { $0.hasSuffix(".konexcache") })
    }

    @Test(arguments: ["truncated", "garbage", "wrong magic", "longer body", "empty"])
    func aCorruptEntryIsDroppedNeverServed(_ damage: String) throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = "GET https://api.test/a"
        DiskCacheStorage(directory: directory).store(entry("a", bytes: 1_000), forKey: key)
        let file = directory.appendingPathComponent(DiskCacheStorage(directory: directory).fileName(for: key))
        var data = try Data(contentsOf: file)
        switch damage {
        case "truncated": data = data.prefix(data.count - 10)
        case "garbage": data.replaceSubrange(20..<40, with: Data(repeating: 0xFF, count: 20))
        case "wrong magic": data[0] = UInt8(ascii: "X")
        case "longer body": data.append(0)
        default: data = Data()
        }
        try data.write(to: file)
        let storage = DiskCacheStorage(directory: directory)
        #expect(storage.response(forKey: key) == nil)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(storage.size == 0)
    }

    @Test func aKeyCollisionIsAMissNotAnotherURLsResponse() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = DiskCacheStorage(directory: directory)
        storage.store(entry("a", bytes: 10), forKey: "GET https://api.test/a")
        // Pretend another key hashed to the same file: its metadata names a different key.
        let file = directory.appendingPathComponent(storage.fileName(for: "GET https://api.test/a"))
        let data = try Data(contentsOf: file)
        #expect(DiskCacheStorage.decode(data, key: storage.digest("GET https://api.test/other")) == nil)
        #expect(DiskCacheStorage.decode(data, key: storage.digest("GET https://api.test/a")) != nil)
    }

    @Test func theFolderAndEveryFileAreTheOwnersOnlyAndNamesTellNoURL() throws {
        // Before: files were 0644 under the umask, and named by an unkeyed hash of the URL.
        let directory = temporaryDirectory().appendingPathComponent("made-by-konex")
        defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
        let key = "GET https://api.test/a"
        let storage = DiskCacheStorage(directory: directory)
        storage.store(entry("a", bytes: 100), forKey: key)
        func permissions(_ path: String) throws -> Int {
            try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int ?? -1
        }
        #expect(try permissions(directory.path) == 0o700)
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            #expect(try permissions(directory.appendingPathComponent(name).path) == 0o600, "\(name)")
            #expect(!name.contains(StableHash.fnv1a(key)), "an unkeyed hash of the URL names \(name)")
        }
        // Another folder (another secret) names the same URL differently: listings cannot be matched up.
        let other = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: other) }
        #expect(DiskCacheStorage(directory: other).fileName(for: key) != storage.fileName(for: key))
        #expect(DiskCacheStorage(directory: directory).response(forKey: key) != nil)
    }

    @Test func creatorsRacingOnOneFolderAgreeOnOneSecret() async throws {
        // Before: two processes creating the secret at once could each keep their own.
        for _ in 0..<20 {
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let secrets = await withTaskGroup(of: [UInt8].self) { group in
                for _ in 0..<8 { group.addTask { DiskCacheStorage(directory: directory).keySecret } }
                return await group.reduce(into: [[UInt8]]()) { $0.append($1) }
            }
            #expect(Set(secrets).count == 1)
            #expect(try Data(contentsOf: directory.appendingPathComponent(".konexcache-secret")) == Data(secrets[0]))
            let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(left == [".konexcache-secret"], "drafts left behind: \(left)")
        }
    }

    @Test func diskEvictsTheLeastRecentlyUsedFiles() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = DiskCacheStorage(directory: directory, capacity: 4_000)
        for name in ["a", "b", "c"] { storage.store(entry(name, bytes: 1_000), forKey: name) }
        _ = storage.response(forKey: "a")
        storage.store(entry("d", bytes: 1_000), forKey: "d")
        #expect(storage.response(forKey: "b") == nil)
        #expect(storage.response(forKey: "a") != nil)
        #expect(storage.size <= 4_000)
        let entries = {
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".konexcache") }
        }
        #expect(try entries().count == 3)
        storage.removeAll()
        #expect(try entries().isEmpty)
    }

    @Test func theCacheWorksTheSameOverDisk() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bench = CacheBench(storage: DiskCacheStorage(directory: directory))
        bench.serve(["Cache-Control": "max-age=60", "ETag": #""a""#], then: [.status(304)])
        #expect(try await bench.get().source == .network)
        #expect(try await bench.get().source == .cache)
        bench.now.advance(by: 61)
        let revalidated = try await bench.get()
        #expect(revalidated.source == .revalidated)
        #expect(revalidated.value == "v1")
    }
}

/// A stored entry is read back from disk, where anything can have written it: what it holds reaches the pipeline as a
/// head, never through a Foundation initializer that could fail and trap.
@Suite struct TamperedCacheEntryTests {
    @Test func anEntryWithAnImpossibleStatusAndBrokenHeaderNamesIsServedWithoutATrap() async throws {
        let storage = MemoryCacheStorage()
        let cache = HTTPCache(storage: storage, cookieStorage: nil, now: { TestNow.start })
        let url = URL(string: "https://api.test/tampered")!
        let key = cache.key(for: TransportRequest(head: RequestHead(method: .get, url: url)))
        // An HTTPURLResponse cannot hold status 70000 (its initializer returns nil): Konex used to force-unwrap one here.
        storage.store(
            CachedResponse(
                url: url, statusCode: 70_000,
                headers: ["Cache-Control": "max-age=600", "": "empty name", "X\r\nInjected": "y", "Age": "-5"],
                body: Data("{}".utf8), requestDate: TestNow.start, responseDate: TestNow.start),
            forKey: key)
        let mock = MockTransport()
        let client = KonexClient.mocked(mock, baseURL: URL(string: "https://api.test")!)
        let response = try await client.request("/tampered").withInterceptor(cache).response()
        #expect(response.statusCode == 70_000)
        #expect(response.source == .cache)
        #expect(response.value(forHTTPHeaderField: "Age") == "0")
        #expect(mock.requests.isEmpty, "served from the store, never sent")
        // Asked for, the Foundation response clamps what it cannot hold instead of trapping.
        #expect(response.response.httpURLResponse.statusCode == 999)
    }
}
