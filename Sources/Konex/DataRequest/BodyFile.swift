import Foundation

/// Response bodies received into temporary files (`download(to:)`).
package enum BodyFile {
    /// How much of an error body is read back from the file, for validators and error models.
    static let errorBodyLimit = 65_536

    /// A new, unused path in the temporary directory for a body.
    package static func temporary() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("konex-\(UUID().uuidString).body")
    }

    static func prefix(of file: URL, limit: Int) -> Data {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return Data() }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: limit)) ?? Data()
    }

    static func size(of file: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Renames `file` over `destination` (atomic); across volumes, copies beside `destination` first, then renames.
    static func move(_ file: URL, to destination: URL) throws {
        if rename(file.path, destination.path) == 0 { return }
        guard errno == EXDEV else { throw posixError() }
        let beside = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UUID().uuidString).konex-part")
        do {
            try FileManager.default.copyItem(at: file, to: beside)
            guard rename(beside.path, destination.path) == 0 else { throw posixError() }
            remove(file)
        } catch {
            remove(beside)
            throw error
        }
    }

    private static func posixError() -> CocoaError {
        CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: String(cString: strerror(errno))])
    }

    static func remove(_ file: URL?) {
        if let file { try? FileManager.default.removeItem(at: file) }
    }
}
