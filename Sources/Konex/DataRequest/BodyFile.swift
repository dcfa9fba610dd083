import Foundation

/// Response bodies received into temporary files (`download(to:)`).
enum BodyFile {
    /// How much of an error body is read back from the file, for validators and error models.
    static let errorBodyLimit = 65_536

    /// Receives the body of `request` in memory, or into a temporary file through a ``DownloadTransport`` (or, over
    /// any other transport, by writing the body it returns). For a file, the data is the start of an error body.
    static func receive(_ request: URLRequest, over transport: any Transport, into target: BodyTarget) async throws
        -> (Data, HTTPURLResponse, URL?)
    {
        guard case .file = target else {
            let (data, response) = try await transport.send(request)
            return (data, response, nil)
        }
        let file: URL
        let response: HTTPURLResponse
        if let downloader = transport as? any DownloadTransport {
            (file, response) = try await downloader.download(request)
        } else {
            let data: Data
            (data, response) = try await transport.send(request)
            file = FileManager.default.temporaryDirectory.appendingPathComponent("konex-\(UUID().uuidString).body")
            try data.write(to: file)
        }
        let isSuccess = (200..<300).contains(response.statusCode)
        return (isSuccess ? Data() : prefix(of: file, limit: errorBodyLimit), response, file)
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
