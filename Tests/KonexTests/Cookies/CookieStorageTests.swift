import Foundation
import Testing

@testable import Konex

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The storages under a jar: a file that only its owner reads and that never holds a session cookie, and Foundation's
/// `HTTPCookieStorage`, shared with the rest of an app.
@Suite struct CookieStorageTests {
    static func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("konex-cookies-\(UUID().uuidString).json")
    }

    @Test func aFileKeepsPersistentCookiesForItsOwnerAloneAndForgetsSessionOnes() throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        let url = URL(string: "https://example.com/app/login")!
        let jar = CookieJar(storage: try FileCookieStorage(file: file), publicSuffixes: nil)
        jar.receive(["kept=1; Max-Age=3600; HttpOnly; Secure; SameSite=Lax", "session=2"], from: url)
        #expect(jar.all.count == 2)

        let mode = try #require(
            try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber)
        #expect(mode.intValue & 0o777 == 0o600)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("kept"))
        #expect(!text.contains("session"), "a session cookie was written")

        let reopened = CookieJar(storage: try FileCookieStorage(file: file), publicSuffixes: nil)
        let cookie = try #require(reopened.all.first)
        #expect(reopened.all.count == 1)
        #expect(
            (cookie.name, cookie.value, cookie.path, cookie.isSecure, cookie.isHTTPOnly) == (
                "kept", "1", "/app", true, true
            ))
        #expect(cookie.sameSite == .lax)
        #expect(reopened.cookieHeader(for: URL(string: "https://example.com/app/x")!) == "kept=1")

        // Removing it rewrites the file without it.
        reopened.removeAll()
        #expect(try CookieJar(storage: FileCookieStorage(file: file), publicSuffixes: nil).all.isEmpty)
    }

    @Test func aFileThatIsNotACookieFileIsAnErrorAndIsLeftAlone() throws {
        let file = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("not json".utf8).write(to: file)
        #expect(throws: DecodingError.self) { try FileCookieStorage(file: file) }
        #expect(try String(contentsOf: file, encoding: .utf8) == "not json")
    }

    @Test func foundationsStorageIsTheRecordBothWays() throws {
        let storage = HTTPCookieStorage.shared
        let host = "konex-\(UUID().uuidString.prefix(8).lowercased()).example.com"
        defer {
            for cookie in storage.cookies ?? [] where cookie.domain.hasSuffix(host) { storage.deleteCookie(cookie) }
        }
        let jar = CookieJar(storage: SystemCookieStorage(storage), publicSuffixes: CookieJarTests.suffixes)
        jar.receive(
            ["a=1; Path=/", "b=2; Domain=\(host); Secure; HttpOnly; Max-Age=600"],
            from: URL(string: "https://\(host)/")!)
        // What the jar kept, Foundation holds: a host-only cookie without a dot, a domain cookie with one.
        let held = (storage.cookies ?? []).filter { $0.domain.hasSuffix(host) }
        #expect(Set(held.map(\.name)) == ["a", "b"])
        #expect(held.first { $0.name == "a" }?.domain == host)
        #expect(held.first { $0.name == "b" }?.domain == "." + host)
        #expect(held.first { $0.name == "b" }?.isSecure == true)
        #expect(held.first { $0.name == "b" }?.isHTTPOnly == true)
        // And what another part of the app puts there, the jar sends.
        storage.setCookie(
            HTTPCookie(properties: [.name: "c", .value: "3", .domain: host, .path: "/"])!)
        #expect(jar.cookieHeader(for: URL(string: "https://sub.\(host)/")!) == "b=2")
        #expect(Set(jar.cookies(for: URL(string: "https://\(host)/")!).map(\.pair)) == ["a=1", "b=2", "c=3"])
        jar.removeAll { $0.name == "a" }
        #expect(!(storage.cookies ?? []).contains { $0.name == "a" && $0.domain == host })
    }
}
