import Foundation

/// Cookies kept in a JSON file readable by its owner alone (mode 0600), so a command-line tool or a service stays
/// logged in across runs.
///
/// Session cookies (no `Expires`, no `Max-Age`) are kept in memory only and never written, as a browser forgets them
/// when it quits. Every change rewrites the file beside itself, then renames it into place, so a crash leaves the old
/// file or the new one, never half of one.
/// ```swift
/// let store = try FileCookieStorage(file: support.appendingPathComponent("cookies.json"))
/// let client = KonexClient(baseURL: api, cookieJar: CookieJar(storage: store))
/// ```
public final class FileCookieStorage: CookieStorage {
    /// The file.
    public let file: URL
    private let kept: MemoryCookieStorage

    /// Reads the cookies kept in `file`; a file that does not exist yet is an empty storage.
    /// - Parameter file: Where the cookies are kept.
    /// - Throws: A file that exists but cannot be read, or is not a cookie file Konex wrote (it is never overwritten).
    public init(file: URL) throws {
        self.file = file
        kept = MemoryCookieStorage()
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        let data = try Data(contentsOf: file)
        for cookie in try JSONDecoder().decode(Contents.self, from: data).cookies { kept.store(cookie) }
    }

    public func cookies() -> [Cookie] { kept.cookies() }

    public func store(_ cookie: Cookie) {
        kept.store(cookie)
        if !cookie.isSession { write() }
    }

    public func remove(_ cookie: Cookie) {
        kept.remove(cookie)
        if !cookie.isSession { write() }
    }

    public func accessed(_ cookies: [Cookie], at date: Date) { kept.accessed(cookies, at: date) }

    /// What the file holds: a version, so a later Konex can read an earlier file.
    private struct Contents: Codable {
        var version = 1
        var cookies: [Cookie]
    }

    /// Writes the persistent cookies. A failure to write is not the request's failure: the cookie is still kept in
    /// memory, and the next change writes again.
    private func write() {
        let persistent = kept.cookies().filter { !$0.isSession }.sorted { $0.created < $1.created }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(Contents(cookies: persistent)) else { return }
        let beside = file.deletingLastPathComponent()
            .appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).konex-part")
        do {
            try BodyFile.createOwnerOnly(beside, contents: data)
            try BodyFile.move(beside, to: file)
        } catch {
            BodyFile.remove(beside)
        }
    }
}
