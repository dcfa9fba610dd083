import Foundation

/// Response bodies received into temporary files (`download(to:)`).
package enum BodyFile {
    /// How much of an error body is read back from the file, for validators and error models.
    static let errorBodyLimit = 65_536

    /// A new, unused path in the temporary directory for a body.
    package static func temporary() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("konex-\(UUID().uuidString).body")
    }

    /// Creates `file` readable and writable by its owner alone (0600) and writes `contents`: bodies hold what a
    /// server or a caller sent, and the temporary folder is shared on Linux. Created with that mode, never widened
    /// and narrowed after (`createFile` writes first, then sets attributes).
    /// - Throws: The `errno` of a file that cannot be created (or already exists).
    static func createOwnerOnly(_ file: URL, contents: Data = Data()) throws {
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw posixError() }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        defer { try? handle.close() }
        if !contents.isEmpty { try handle.write(contentsOf: contents) }
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
