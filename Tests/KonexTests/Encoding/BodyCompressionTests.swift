import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// Compressed request bodies: the bytes the server gets inflate to the original, `Content-Encoding` says how, a retry
/// and a 307 resend the same bytes, and a body already encoded is left alone.
@Suite struct BodyCompressionTests {
    struct Entry: Codable, Sendable, Equatable {
        let id: Int
        let level: String
        let message: String
        let tags: [String]
    }

    struct UploadLog: KonexRequest {
        let entries: [Entry]
        let path = "/logs"
        let method: HTTPMethod = .post
        var body: RequestBody? { .json(entries) }
    }

    /// Under the thread sanitizer (a run that checks races, ten times slower) a tenth: this suite's megabytes would
    /// otherwise take the cores from the wall-clock tests that run beside it.
    static let scale = ProcessInfo.processInfo.environment["KONEX_SANITIZER"] == nil ? 1 : 10

    /// About 10 MB of JSON log entries, repetitive as logs are (1 MB under the sanitizer).
    static let entries = (0..<85_000 / scale).map {
        Entry(
            id: $0, level: ["info", "debug", "warning"][$0 % 3],
            message: "request \($0 % 977) finished in \($0 % 113) ms for user \($0 % 4_096)",
            tags: ["api", "v2", $0 % 2 == 0 ? "even" : "odd"])
    }

    @Test func aTenMegabyteJSONBodySendsAtMostFifteenPercentOfItsBytes() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.post("/v1/logs"), .status(201))
        let client = KonexClient.mocked(mock, baseURL: api)
        _ = try await client.request(UploadLog(entries: Self.entries)).compressingBody(.gzip).validate().response()
        let original = try JSONEncoder().encode(Self.entries)
        let sent = try #require(mock.requests.first)
        #expect(original.count > 9_000_000 / Self.scale)
        #expect(sent.header("Content-Encoding") == "gzip")
        #expect(sent.body.count <= original.count * 15 / 100, "\(sent.body.count) of \(original.count) bytes")
        #expect(Array(sent.body.prefix(2)) == [0x1F, 0x8B])  // a gzip member
        let inflated = try Inflate.all(sent.body)
        // Compared outside #expect: a failed comparison of megabytes would be rendered in full.
        let decoded = try JSONDecoder().decode([Entry].self, from: inflated)
        #expect(decoded.count == Self.entries.count)
        let same = decoded == Self.entries
        #expect(same, "the inflated body is not the JSON that was encoded")
    }

    @Test func deflateIsTheZlibFormatAndSmallBodiesStayAsTheyAre() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.post("/v1/logs"), .status(201))
        let client = KonexClient.mocked(mock, baseURL: api)
        let some = Array(Self.entries.prefix(100))
        _ = try await client.request(UploadLog(entries: some)).compressingBody(.deflate).response()
        _ = try await client.request(UploadLog(entries: [some[0]])).compressingBody(.deflate).response()
        let (large, small) = (mock.requests[0], mock.requests[1])
        #expect(large.header("Content-Encoding") == "deflate")
        #expect(large.body.first == 0x78)  // a zlib header
        #expect(try JSONDecoder().decode([Entry].self, from: try Inflate.all(large.body)) == some)
        #expect(small.header("Content-Encoding") == nil)  // under 1 KiB: not worth it
        #expect(try JSONDecoder().decode([Entry].self, from: small.body) == [some[0]])
    }

    @Test func aRetryAndA307ResendTheSameBytes() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.post("/v1/logs"), .status(503), times: .once)
        mock.stub(.post("/v1/logs"), .status(307, headers: ["Location": "/v1/logs2"]))
        mock.stub(.post("/v1/logs2"), .status(201))
        let client = KonexClient.mocked(mock, baseURL: api)
        let response = try await client.request(UploadLog(entries: Self.entries)).compressingBody()
            .validate().retry(RetryPolicy(retryingNonIdempotent: true)).response()
        #expect(response.response.statusCode == 201)
        #expect(mock.requests.count == 3)
        let bodies = mock.requests.map(\.body)
        #expect(bodies[0].count > 100_000 / Self.scale)
        let (retried, redirected) = (bodies[1] == bodies[0], bodies[2] == bodies[0])
        #expect(retried, "the retry sent other bytes")
        #expect(redirected, "the 307 sent other bytes")
        #expect(mock.requests.allSatisfy { $0.header("Content-Encoding") == "gzip" })
    }

    @Test func aBodyAlreadyEncodedIsLeftAlone() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.post("/v1/raw"), .status(201))
        let client = KonexClient.mocked(mock, baseURL: api)
        let payload = Data(repeating: 9, count: 50_000)
        var request = TransportRequest(
            head: RequestHead(method: .post, url: URL(string: "https://api.test/v1/raw")!))
        request.body = .data(payload)
        request.setValue("br", forHTTPHeaderField: "Content-Encoding")
        _ = try await client.request(request).compressingBody().response()
        #expect(mock.requests[0].header("Content-Encoding") == "br")
        let untouched = mock.requests[0].body == payload
        #expect(untouched)
    }

    /// An adapter that signs the payload, as a signed-upload or request-signing scheme does: it reads the body it
    /// will send (a compressed body past 1 MiB is in a file, so `httpBody` is nil) and notes where the file is.
    struct Signer: RequestAdapter {
        let seen: Lock<(bytes: Data?, file: URL?, mode: Int?)>
        func adapt(_ request: TransportRequest) async throws -> TransportRequest {
            var file: URL?
            if case .file(let url)? = request.body?.storage { file = url }
            let mode = file.flatMap {
                (try? FileManager.default.attributesOfItem(atPath: $0.path))?[.posixPermissions] as? Int
            }
            let bytes = try request.body?.collect(upTo: .max)
            seen.withLock { $0 = (bytes, file, mode) }
            var signed = request
            signed.setValue(String(bytes?.count ?? -1), forHTTPHeaderField: "X-Signed-Length")
            return signed
        }
    }

    @Test func aLargeCompressedBodyGoesWithItsLengthOwnerOnlyAndGoneWhenTheCallEnds() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.post("/v1/logs"), .status(201))
        let client = KonexClient.mocked(mock, baseURL: api)
        let seen = Lock<(bytes: Data?, file: URL?, mode: Int?)>((nil, nil, nil))
        // Past the 1 MiB a body is compressed in memory whatever the sanitizer's scale: about 1.5 MB of JSON.
        let entries = Array(Self.entries.prefix(1_000)) + Array(repeating: Self.entries[0], count: 13_000)
        #expect(try JSONEncoder().encode(entries).count > BodyCompressing.inMemoryLimit)
        let response = try await client.request(UploadLog(entries: entries)).compressingBody(.gzip)
            .withAdapter(Signer(seen: seen)).validate().response()
        let sent = try #require(mock.requests.first)
        // A length, so servers that need one (411) and signed upload URLs accept it.
        #expect(sent.header("Content-Length") == String(sent.body.count))
        // The adapter read the bytes that were sent, from the file they were in.
        let file = try #require(seen.value.file, "a body this large is compressed into a file")
        #expect(seen.value.bytes?.count == sent.body.count)
        #expect(sent.header("X-Signed-Length") == String(sent.body.count))
        #expect(seen.value.mode == 0o600)
        // The call ended: the file is gone, though the response still holds the request that names it.
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(response.statusCode == 201)
    }

    /// A body stream that cancels the task reading it once it has given `cancelAfter` chunks.
    final class CancellingStream: InputStream {  // read by one task, synchronously
        var reads = 0
        let total: Int
        init(chunks total: Int) {
            self.total = total
            super.init(data: Data())
        }
        override func open() {}
        override func close() {}
        override var hasBytesAvailable: Bool { reads < total }
        override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int) -> Int {
            guard reads < total else { return 0 }
            reads += 1
            if reads == 2 { withUnsafeCurrentTask { $0?.cancel() } }
            buffer.initialize(repeating: UInt8(ascii: "a"), count: len)
            return len
        }
    }

    @Test func aCancelledCallStopsCompressing() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.put("/v1/backup"), .status(201))
        let client = KonexClient.mocked(mock, baseURL: api)
        let stream = CancellingStream(chunks: 1_000)  // 64 MB, were it all read
        var request = TransportRequest(head: RequestHead(method: .put, url: URL(string: "https://api.test/v1/backup")!))
        request.body = TransportRequest.Body(storage: .stream(InputStreamBox(stream)))
        let error = try await requireThrows(KonexError.self) {
            _ = try await client.request(request).compressingBody().response()
        }
        #expect(error.stage == .cancelled, "\(error)")
        #expect(stream.reads < 10, "\(stream.reads) chunks read after the cancellation")
        #expect(mock.requests.isEmpty)
    }

    @Test func aFileBodyIsCompressedInChunksAndItsTemporaryFileGoesWithTheRequest() async throws {
        let source = FileManager.default.temporaryDirectory.appendingPathComponent("konex-gz-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: source) }
        let original = try JSONEncoder().encode(Array(Self.entries.prefix(30_000 / Self.scale)))
        try original.write(to: source)
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.put("/v1/backup"), .status(201))
        let client = KonexClient.mocked(mock, baseURL: api)
        var request = TransportRequest(head: RequestHead(method: .put, url: URL(string: "https://api.test/v1/backup")!))
        request.body = .file(source)
        let temporary = FileManager.default.temporaryDirectory
        let before = Set(try FileManager.default.contentsOfDirectory(atPath: temporary.path))
        _ = try await client.request(request).compressingBody().response()
        let inflated = try Inflate.all(mock.requests[0].body) == original
        #expect(inflated)
        #expect(mock.requests[0].body.count < original.count / 5)
        // Only this request's file counts, known by its bytes (what the mock received): tests running beside this one
        // make temporary files of their own there and keep some for a while, which a loaded fresh-clone run saw.
        let sent = mock.requests[0].body
        try await WaitTimeout.wait(for: "the compressed body's temporary file to go", timeout: .seconds(120)) {
            let added = Set((try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [])
                .subtracting(before)
            return !added.contains { name in
                let path = temporary.appendingPathComponent(name).path
                let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
                return size == sent.count && FileManager.default.contents(atPath: path) == sent
            }
        }
    }
}

/// zlib's inflate, loaded as Konex loads deflate: the test's own check that what was sent decompresses.
enum Inflate {
    typealias Init = @convention(c) (UnsafeMutableRawPointer, Int32, UnsafePointer<CChar>, Int32) -> Int32
    typealias Step = @convention(c) (UnsafeMutableRawPointer, Int32) -> Int32
    typealias End = @convention(c) (UnsafeMutableRawPointer) -> Int32
    typealias Version = @convention(c) () -> UnsafePointer<CChar>

    struct Failed: Error { let status: Int32 }

    static func all(_ compressed: Data) throws -> Data {
        #if canImport(Darwin)
            let handle = dlopen("/usr/lib/libz.1.dylib", RTLD_NOW)
        #else
            let handle = dlopen("libz.so.1", RTLD_NOW)
        #endif
        let initialise = unsafeBitCast(dlsym(handle, "inflateInit2_"), to: Init.self)
        let step = unsafeBitCast(dlsym(handle, "inflate"), to: Step.self)
        let end = unsafeBitCast(dlsym(handle, "inflateEnd"), to: End.self)
        let version = unsafeBitCast(dlsym(handle, "zlibVersion"), to: Version.self)
        let word = MemoryLayout<Int>.size
        let stream = UnsafeMutableRawPointer.allocate(byteCount: 14 * word, alignment: word)
        stream.initializeMemory(as: UInt8.self, repeating: 0, count: 14 * word)
        defer { stream.deallocate() }
        guard case let status = initialise(stream, 15 + 32, version(), Int32(14 * word)), status == 0 else {
            throw Failed(status: -1)
        }
        defer { _ = end(stream) }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        try compressed.withUnsafeBytes { input in
            stream.storeBytes(of: input.baseAddress, toByteOffset: 0, as: UnsafeRawPointer?.self)
            stream.storeBytes(of: UInt32(input.count), toByteOffset: word, as: UInt32.self)
            while true {
                let status = try buffer.withUnsafeMutableBytes { out -> Int32 in
                    stream.storeBytes(of: out.baseAddress, toByteOffset: 3 * word, as: UnsafeMutableRawPointer?.self)
                    stream.storeBytes(of: UInt32(out.count), toByteOffset: 4 * word, as: UInt32.self)
                    let status = step(stream, 0)
                    guard status == 0 || status == 1 else { throw Failed(status: status) }
                    let left = Int(stream.load(fromByteOffset: 4 * word, as: UInt32.self))
                    output.append(contentsOf: out[..<(out.count - left)])
                    return status
                }
                if status == 1 { return }
            }
        }
        return output
    }
}
