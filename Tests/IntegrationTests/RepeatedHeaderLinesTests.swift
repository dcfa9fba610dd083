import Foundation
import Konex
import KonexTesting
import TestSupport
import Testing

/// A server that sends a field on several lines, over a real socket and the transport under test (URLSession, or
/// AsyncHTTPClient with `KONEX_TRANSPORT=ahc`): every policy reads the field as RFC 9110 §5.3 combines it, the lines
/// joined with ", " in order. (libcurl joins the lines itself; AsyncHTTPClient hands them over one by one.)
@Suite struct RepeatedHeaderLinesTests {
    static func server(_ lines: [String]) throws -> MisbehavingServer {
        var head = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\nContent-Type: application/json\r\n"
        for line in lines { head += line + "\r\n" }
        return try MisbehavingServer(reply: Data((head + "\r\n{}").utf8))
    }

    static func client(_ server: MisbehavingServer, shared: Bool = false) -> KonexClient {
        KonexClient(
            baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, transport: Live.transport(),
            timeout: .seconds(20), interceptors: [HTTPCache(storage: MemoryCacheStorage(), isShared: shared)])
    }

    @Test(arguments: [
        (["Cache-Control: no-store", "Cache-Control: max-age=3600"], false),
        (["Cache-Control: max-age=3600", "Cache-Control: no-store"], false),
        (["Cache-Control: max-age=3600", "Cache-Control: no-cache"], false),
        (["Cache-Control: max-age=3600", "Cache-Control: private"], true),
        (["Cache-Control: max-age=3600", "Age: 7200", "Age: 0"], false),
    ])
    func aDirectiveOnASecondLineIsHonoured(lines: [String], shared: Bool) async throws {
        let server = try Self.server(lines)
        let client = Self.client(server, shared: shared)
        let first = try await client.request("/doc").response()
        let second = try await client.request("/doc").response()
        #expect(first.source == .network)
        #expect(second.source == .network, "\(lines): served from the cache")
        #expect(server.requestLines.count == 2, "\(lines)")
    }

    @Test func theNamesOfVaryOnTwoLinesAreBothHeard() async throws {
        let server = try Self.server(["Cache-Control: max-age=3600", "Vary: Foo", "Vary: Bar"])
        let client = Self.client(server)
        _ = try await client.request("/doc").withAdapter(.header("Foo", "1")).response()
        let other = try await client.request("/doc").withAdapter(.header("Foo", "2")).response()
        #expect(other.source == .network, "the copy stored for Foo: 1 was served for Foo: 2")
        let same = try await client.request("/doc").withAdapter(.header("Foo", "1")).response()
        #expect(same.source == .cache)
        #expect(server.requestLines.count == 2)
    }

    @Test func aFieldOnOneLineIsStillCachedAsBefore() async throws {
        let server = try Self.server(["Cache-Control: max-age=3600"])
        let client = Self.client(server)
        _ = try await client.request("/doc").response()
        #expect(try await client.request("/doc").response().source == .cache)
        #expect(server.requestLines.count == 1)
    }
}
