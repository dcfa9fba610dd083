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

/// A transport that observes its transfers (as URLSessionTransport does on Apple platforms): the pipeline forwards
/// incremental upload progress and folds the phase timings into `response.timing`.
@Suite struct ObservedTransferTests {
    struct Observing: ObservingTransport {
        var reportsIncrementalProgress: Bool { true }
        func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            Issue.record("an observing transport is sent through send(_:observer:)")
            return try await send(request, observer: TransferObserver(progress: nil, phases: { _ in }))
        }
        func send(_ request: URLRequest, observer: TransferObserver) async throws -> (Data, HTTPURLResponse) {
            for sent in [1_000, 2_000, 3_000] as [Int64] {
                observer.progress?(TransferProgress(direction: .upload, completedBytes: sent, totalBytes: 3_000))
            }
            observer.phases(
                TransferPhases(domainLookup: .milliseconds(2), connect: .milliseconds(5), firstByte: .milliseconds(40)))
            return (
                Data("ok".utf8),
                HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil, headerFields: [:])!
            )
        }
    }

    struct Upload: KonexRequest {
        let path = "/upload"
        let method: HTTPMethod = .post
        var body: RequestBody? { .data(Data(count: 3_000), contentType: "application/octet-stream") }
    }

    @Test func uploadProgressAndPhaseTimingsReachTheCaller() async throws {
        let client = KonexClient(baseURL: api, transport: Observing())
        let events = Lock<[Int64]>([])
        let response = try await client.request(Upload())
            .onProgress { progress in
                if progress.direction == .upload { events.withLock { $0.append(progress.completedBytes) } }
            }
            .response()
        #expect(events.value == [0, 1_000, 2_000, 3_000, 3_000])
        #expect(
            response.timing.phases
                == TransferPhases(
                    domainLookup: .milliseconds(2), connect: .milliseconds(5), firstByte: .milliseconds(40)))
    }

    @Test func foundationNetworkingReportsNoPhasesAndOnlyTheEnds() {
        #if canImport(FoundationNetworking)
            #expect(URLSessionTransport().reportsIncrementalProgress == false)
        #else
            #expect(URLSessionTransport().reportsIncrementalProgress == true)
        #endif
    }
}
