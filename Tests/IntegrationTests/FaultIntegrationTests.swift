import Foundation
import Konex
import KonexTesting
import TestSupport
import Testing

/// Faults on real sockets. These need no httpbin, so they always run.
@Suite struct FaultIntegrationTests {
    func client(
        _ server: MisbehavingServer, timeout: Duration = .seconds(10), maximumResponseSize: Int? = nil
    ) -> KonexClient {
        KonexClient(
            baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
            transport: Live.transport(),
            timeout: timeout, maximumResponseSize: maximumResponseSize)
    }

    @Test func serverThatClosesWithoutRespondingIsATransportError() async throws {
        let server = try MisbehavingServer(reply: Data())
        let started = ContinuousClock.now
        let error = try await requireThrows(KonexError.self) {
            try await client(server).request("/x").responseData()
        }
        #expect(error.stage == .transport)
        #expect(error.transportFailure != nil, "a kind of Konex's over either transport: \(error)")
        #expect(error.response == nil)
        #expect(ContinuousClock.now - started < .seconds(45))  // a hang detector, not a speed target
    }

    @Test func cancellationWhileTheServerHoldsTheResponse() async throws {
        let server = try MisbehavingServer(
            reply: Data("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8), holdingReplies: true)
        let task = Task { try await client(server).request("/held").response() }
        // The request is on the server, which holds the reply until told: cancel now, mid-flight.
        try await WaitTimeout.wait(for: "the request to reach the server") { server.requestLines.count == 1 }
        task.cancel()
        let error = try await requireThrows(KonexError.self) { try await task.value }
        #expect(error.stage == .cancelled)
        #expect(server.requestLines == ["GET /held HTTP/1.1"])
        server.release()
    }

    @Test func downloadsStreamToDiskPastTheInMemoryLimit() async throws {
        var body = Data(count: 5 << 20)
        for index in stride(from: 0, to: body.count, by: 4_096) { body[index] = UInt8(truncatingIfNeeded: index >> 12) }
        // The server closes each connection after its reply, and says so: a client told nothing may send the second
        // request on the connection being closed (AsyncHTTPClient then fails it as `remoteConnectionClosed`).
        let head =
            "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: \(body.count)\r\n"
            + "Connection: close\r\n\r\n"
        let server = try MisbehavingServer(reply: Data(head.utf8) + body)
        let client = self.client(server, timeout: .seconds(30), maximumResponseSize: 1 << 20)
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("konex-big-\(UUID()).bin")
        defer { try? FileManager.default.removeItem(at: destination) }
        let response = try await client.request("/big").validate().download(to: destination)
        #expect(response.value == destination)
        #expect(try Data(contentsOf: destination) == body)
        // The same body asked for in memory is over the limit.
        let error = try await requireThrows(KonexError.self) { try await client.request("/big").responseData() }
        #expect(error.message.contains("exceeds maximumResponseSize"))
    }

    @Test func aContentLengthOverTheLimitIsRefusedBeforeTheBody() async throws {
        // A peer announcing 10 GiB: refused on the head, whichever transport, without reading what follows.
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: \(10 << 30)\r\n\r\n"
        let server = try MisbehavingServer(reply: Data(head.utf8) + Data(count: 64 << 10))
        let client = self.client(server, timeout: .seconds(30), maximumResponseSize: 1 << 20)
        let error = try await requireThrows(KonexError.self) { try await client.request("/huge").responseData() }
        #expect(error.stage == .transport)
        #expect(error.message.contains("of 10737418240 bytes (Content-Length) exceeds maximumResponseSize"))
        #expect(error.statusCode == 200)
    }

    @Test func aBodyWithoutALengthStopsAtTheLimit() async throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n"
        let server = try MisbehavingServer(reply: Data(head.utf8) + Data(count: 4 << 20))
        let client = self.client(server, timeout: .seconds(30), maximumResponseSize: 1 << 20)
        let error = try await requireThrows(KonexError.self) { try await client.request("/endless").responseData() }
        #expect(error.message.contains("reading stopped at"))
        #expect(error.message.contains("exceeds maximumResponseSize (1048576 bytes)"))
    }

    @Test func aFailedDownloadCarriesTheErrorBodyAndWritesNothing() async throws {
        let json = #"{"message":"gone"}"#
        let head = "HTTP/1.1 410 Gone\r\nContent-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\n\r\n"
        let server = try MisbehavingServer(reply: Data((head + json).utf8))
        struct APIError: Decodable, Sendable, Equatable { let message: String }
        let destination = FileManager.default.temporaryDirectory.appendingPathComponent("konex-gone-\(UUID()).bin")
        let error = try await requireThrows(KonexError.self) {
            try await client(server).request("/gone").validate().decodingErrors(as: APIError.self)
                .download(to: destination)
        }
        #expect(error.statusCode == 410)
        #expect(error.errorBody(as: APIError.self) == APIError(message: "gone"))
        #expect(!FileManager.default.fileExists(atPath: destination.path))
    }

    @Test func connectionLostMidBodyIsATransportError() async throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
        let server = try MisbehavingServer(reply: Data((head + #"{"id": 1, "tit"#).utf8))
        let error = try await requireThrows(KonexError.self) {
            try await client(server).request("/x").responseJSON()
        }
        #expect(error.stage == .transport)
        #expect(error.transportFailure != nil, "a kind of Konex's over either transport: \(error)")
    }

    @Test func garbageInsteadOfHTTPIsATransportError() async throws {
        let server = try MisbehavingServer(reply: Data("SSH-2.0-OpenSSH_9.2\r\n".utf8))
        let result = await Result { try await client(server).request("/x").responseData() }
        // libcurl reads a non-HTTP reply as an HTTP/0.9 body or rejects it; either way nothing is silently decoded.
        switch result {
        case .success(let data): #expect(data == Data("SSH-2.0-OpenSSH_9.2\r\n".utf8))
        case .failure(let error): #expect((error as? KonexError)?.stage == .transport)
        }
    }
}
