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
    struct Observing: Transport {
        func send(_ request: TransportRequest, context: TransportContext) async throws -> (ResponseHead, ResponseBody) {
            #expect(context.observesProgress && context.observesPhases)
            for sent in [1_000, 2_000, 3_000] as [Int64] {
                context.reportUpload(TransferProgress(direction: .upload, completedBytes: sent, totalBytes: 3_000))
            }
            context.report(
                TransferPhases(domainLookup: .milliseconds(2), connect: .milliseconds(5), firstByte: .milliseconds(40)))
            return (ResponseHead(statusCode: 200, url: request.url), ResponseBody(Data("ok".utf8)))
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
        #expect(events.value == [0, 1_000, 2_000, 3_000])  // the transport's 3,000 already said the upload ended
        #expect(
            response.timing.phases
                == TransferPhases(
                    domainLookup: .milliseconds(2), connect: .milliseconds(5), firstByte: .milliseconds(40)))
    }
}

/// A streaming transport that reports incremental progress (as URLSessionTransport does): with a progress handler,
/// the pipeline streams the body into memory or a file and reports each chunk.
@Suite struct CountedProgressTests {
    struct Chunked: Transport {
        var chunks: [Data] = [Data(count: 300), Data(count: 300), Data(count: 400)]
        var contentLength: Int? = 1_000
        var status = 200
        var failsAfterChunks = false

        func send(_ request: TransportRequest, context: TransportContext) async throws -> (ResponseHead, ResponseBody) {
            #expect(context.observesProgress, "the pipeline passes its observer")
            context.reportUpload(TransferProgress(direction: .upload, completedBytes: 2, totalBytes: 4))
            context.reportUpload(TransferProgress(direction: .upload, completedBytes: 4, totalBytes: 4))
            let headers: HTTPHeaders = contentLength.map { ["Content-Length": "\($0)"] } ?? [:]
            let head = ResponseHead(statusCode: status, headerFields: headers, url: request.url)
            let (body, continuation) = ByteStream.makeStream(bufferLimit: context.bufferLimit) {}
            for chunk in chunks { continuation.yield(chunk) }
            if failsAfterChunks {
                continuation.finish(throwing: URLError(.networkConnectionLost))
            } else {
                continuation.finish()
            }
            return (head, ResponseBody(body))
        }
    }

    struct Post: KonexRequest {
        let path = "/things"
        let method: HTTPMethod = .post
        var body: RequestBody? { .data(Data(count: 4), contentType: "application/octet-stream") }
    }

    func events(_ transport: Chunked, _ run: (DataRequest) async throws -> Void) async throws -> [TransferProgress] {
        let events = Lock<[TransferProgress]>([])
        let request = KonexClient(baseURL: api, transport: transport).request(Post())
            .onProgress { progress in events.withLock { $0.append(progress) } }
        try await run(request)
        return events.value
    }

    func progress(_ direction: TransferProgress.Direction, _ done: Int64, _ total: Int64?) -> TransferProgress {
        TransferProgress(direction: direction, completedBytes: done, totalBytes: total)
    }

    @Test func eachChunkIsReportedAgainstTheContentLength() async throws {
        let data = Lock(Data())
        let seen = try await events(Chunked()) { request in data.value = try await request.responseData() }
        #expect(data.value.count == 1_000)
        #expect(
            seen == [
                progress(.upload, 0, 4), progress(.upload, 2, 4), progress(.upload, 4, 4),
                progress(.download, 0, 1_000), progress(.download, 300, 1_000), progress(.download, 600, 1_000),
                progress(.download, 1_000, 1_000),
            ])
    }

    @Test func withoutAContentLengthTheTotalIsKnownOnlyAtTheEnd() async throws {
        let seen = try await events(Chunked(contentLength: nil)) { request in _ = try await request.responseData() }
        #expect(
            Array(seen.dropFirst(3)) == [
                progress(.download, 0, nil), progress(.download, 300, nil), progress(.download, 600, nil),
                progress(.download, 1_000, nil), progress(.download, 1_000, 1_000),
            ])
    }

    @Test func aDownloadIsWrittenChunkByChunkAndReported() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("konex-cp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("body.bin")
        let chunks = [Data(repeating: 1, count: 300), Data(repeating: 2, count: 300), Data(repeating: 3, count: 400)]
        let seen = try await events(Chunked(chunks: chunks)) { request in
            _ = try await request.validate().download(to: destination)
        }
        #expect(try Data(contentsOf: destination) == chunks.reduce(Data(), +))
        #expect(seen.filter { $0.direction == .download }.map(\.completedBytes) == [0, 300, 600, 1_000])
    }

    @Test func aBodyCutShortFailsTheDownloadAndLeavesNoFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("konex-cp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("body.bin")
        let error = try await requireThrows(KonexError.self) {
            _ = try await events(Chunked(failsAfterChunks: true)) { request in
                _ = try await request.download(to: destination)
            }
        }
        #expect(error.stage == .transport)
        #expect((error.underlyingError as? URLError)?.code == .networkConnectionLost)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test func anErrorStatusStillDecodesItsBodyFromTheCountedStream() async throws {
        let body = Data(#"{"message":"nope"}"#.utf8)
        let transport = Chunked(chunks: [body.prefix(5), body.dropFirst(5)], contentLength: body.count, status: 422)
        let error = try await requireThrows(KonexError.self) {
            _ = try await events(transport) { request in _ = try await request.validate().responseData() }
        }
        #expect(error.statusCode == 422)
        #expect(error.data == body)
    }
}
