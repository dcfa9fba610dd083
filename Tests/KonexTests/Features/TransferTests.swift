import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

@Suite struct TransferTests {
    func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("konex-dl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func leftovers(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".konex-part") }
    }

    @Test func downloadMovesTheFileIntoPlaceAtomically() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("report.bin")
        try Data("old".utf8).write(to: destination)
        let (client, _) = makeClient { $0.stub(.get("/v1/report"), .data(Data(repeating: 7, count: 10_000))) }
        let response = try await client.request("report").validate().download(to: destination)
        #expect(response.value == destination)
        #expect(try Data(contentsOf: destination) == Data(repeating: 7, count: 10_000))
        #expect(try leftovers(in: directory).isEmpty)
    }

    @Test func failedDownloadLeavesTheOldFileAndNoPartialFile() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("report.bin")
        try Data("old".utf8).write(to: destination)
        let (client, _) = makeClient { $0.stub(.get("/v1/report"), .string("nope", status: 500)) }
        await #expect(throws: KonexError.self) {
            try await client.request("report").validate().download(to: destination)
        }
        #expect(try Data(contentsOf: destination) == Data("old".utf8))
        #expect(try leftovers(in: directory).isEmpty)
    }

    @Test func cancelledDownloadLeavesNothingBehind() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("big.bin")
        let (client, mock) = makeClient { $0.stub(.get("/v1/big"), .fault(.hang)) }
        let task = Task { try await client.request("big").download(to: destination) }
        try await mock.waitForRequests(1)
        task.cancel()
        let error = try await requireThrows(KonexError.self) { try await task.value }
        #expect(error.stage == .cancelled)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(try leftovers(in: directory).isEmpty)
    }

    @Test func unwritableDestinationIsAFileSystemError() async throws {
        let (client, _) = makeClient { $0.stub(.get("/v1/report"), .string("data")) }
        let error = try await requireThrows(KonexError.self) {
            try await client.request("report").download(to: URL(fileURLWithPath: "/nonexistent-konex-dir/report.bin"))
        }
        #expect(error.stage == .fileSystem)
        #expect(error.message.hasPrefix("cannot write the download to /nonexistent-konex-dir/report.bin"))
    }

    @Test func uploadFromAFileAndItsProgress() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("upload.bin")
        try Data(repeating: 1, count: 4_096).write(to: file)
        struct Upload: KonexRequest {
            let file: URL
            var path: String { "/upload" }
            var method: HTTPMethod { .put }
            var body: RequestBody? { .file(file, contentType: "application/x-test") }
        }
        let (client, mock) = makeClient { $0.stub(.put("/v1/upload"), .data(Data(repeating: 2, count: 100))) }
        let events = Lock<[TransferProgress]>([])
        _ = try await client.request(Upload(file: file)).onProgress { progress in
            events.withLock { $0.append(progress) }
        }.response()
        #expect(mock.requests[0].body.count == 4_096)
        #expect(mock.requests[0].header("Content-Type") == "application/x-test")
        #expect(
            events.value == [
                TransferProgress(direction: .upload, completedBytes: 0, totalBytes: 4_096),
                TransferProgress(direction: .upload, completedBytes: 4_096, totalBytes: 4_096),
                TransferProgress(direction: .download, completedBytes: 0, totalBytes: nil),
                TransferProgress(direction: .download, completedBytes: 100, totalBytes: 100),
            ])
        #expect(events.value.last?.fractionCompleted == 1)
        #expect(client.transport.reportsIncrementalProgress == false)
    }

    @Test func missingUploadFileIsAFileSystemError() async throws {
        struct Upload: KonexRequest {
            var path: String { "/upload" }
            var method: HTTPMethod { .post }
            var body: RequestBody? { .file(URL(fileURLWithPath: "/nonexistent/file.bin")) }
        }
        let (client, mock) = makeClient()
        let error = try await requireThrows(KonexError.self) { try await client.request(Upload()).response() }
        #expect(error.stage == .fileSystem)
        #expect(mock.requestCount == 0)
    }
}
