import Foundation
import Konex
import Testing

/// A real URLSessionTransport that counts the calls that reach it and how many were in flight at once.
final class CountingTransport: Transport {
    let inner = Live.transport()
    private let state = Lock<(calls: Int, now: Int, peak: Int)>((0, 0, 0))
    var calls: Int { state.value.calls }
    var peak: Int { state.value.peak }

    func send(_ request: TransportRequest, context: TransportContext) async throws -> (ResponseHead, ResponseBody) {
        state.withLock { state in
            state.calls += 1
            state.now += 1
            state.peak = max(state.peak, state.now)
        }
        defer { state.withLock { $0.now -= 1 } }
        return try await inner.send(request, context: context)
    }
}

@Suite(.enabled(if: Server.isAvailable, Server.skipReason))
struct ProductionTwoIntegrationTests {
    @Test func aFreshResponseIsServedWithoutAskingTheServerAgain() async throws {
        let transport = CountingTransport()
        let client = KonexClient(baseURL: Server.url!, transport: transport, interceptors: [HTTPCache()])
        let first = try await client.request("/cache/60").validate().response()
        let second = try await client.request("/cache/60").validate().response()
        #expect(first.source == .network)
        #expect(second.source == .cache)
        #expect(second.data == first.data)
        #expect(transport.calls == 1)
    }

    @Test(arguments: ["/cache", "/etag/konex-1"])
    func aStoredResponseIsRevalidatedWithA304(path: String) async throws {
        let transport = CountingTransport()
        let client = KonexClient(baseURL: Server.url!, transport: transport, interceptors: [HTTPCache()])
        let first = try await client.request(path).validate().response()
        // httpbin gives these no freshness: the second request asks with If-None-Match / If-Modified-Since.
        let second = try await client.request(path).validate().response()
        #expect(first.source == .network)
        #expect(second.source == .revalidated)
        #expect(second.statusCode == 200)
        #expect(second.data == first.data)
        #expect(transport.calls == 2)
    }

    @Test func offlineServesWhatWasStoredAndSays504ForTheRest() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("konex-it-cache-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let online = KonexClient(
            baseURL: Server.url!, transport: Live.transport(),
            interceptors: [HTTPCache(storage: .disk(directory: directory))])
        let stored = try await online.request("/cache/1").validate().responseData()
        // A new client on the same folder, as after an app restart, told not to touch the network.
        let transport = CountingTransport()
        let offline = KonexClient(
            baseURL: Server.url!, transport: transport, interceptors: [HTTPCache(storage: .disk(directory: directory))])
        let fromDisk = try await offline.request("/cache/1").cachePolicy(.returnCacheDataDontLoad).response()
        #expect(fromDisk.source == .cache)
        #expect(fromDisk.data == stored)
        let missing = try await offline.request("/cache/2").cachePolicy(.returnCacheDataDontLoad).response()
        #expect(missing.statusCode == 504)
        #expect(transport.calls == 0)
    }

    @Test func aHundredIdenticalRequestsReachTheServerOnce() async throws {
        let transport = CountingTransport()
        let client = KonexClient(baseURL: Server.url!, transport: transport, interceptors: [RequestCoalescer()])
        let bodies = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<100 { group.addTask { try await client.request("/delay/1").validate().responseData() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(bodies.count == 100)
        #expect(Set(bodies).count == 1)
        #expect(transport.calls == 1)
    }

    @Test func aPerHostLimitHoldsAgainstARealServer() async throws {
        let transport = CountingTransport()
        let limit = ConcurrencyLimit(perHost: 3)
        let client = KonexClient(baseURL: Server.url!, transport: transport, interceptors: [limit])
        let queued = try await withThrowingTaskGroup(of: Duration.self) { group in
            for index in 0..<12 {
                group.addTask { try await client.request("/delay/0.2?n=\(index)").validate().response().timing.queue }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(transport.calls == 12)
        #expect(transport.peak == 3)
        #expect(queued.filter { $0 > .milliseconds(100) }.count >= 6)  // later ones waited for earlier ones
        #expect(limit.counts == (0, 0))
    }
}
