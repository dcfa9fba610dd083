import Foundation
import Konex
import KonexTesting
import TestSupport
import Testing

/// A hostile server on a real socket (127.0.0.1): absurd dates and numbers, ten thousand headers, a header of a
/// megabyte, invalid UTF-8 in header values, endless lines and events, a body longer than its Content-Length. Each
/// case ends in a typed error or an ignored value, through the whole chain (cache, retry, validation, logging); the
/// process never traps, and its memory stays bounded (measured: the resident size is printed and checked).
@Suite(.serialized) struct HostileServerTests {
    /// A response with `headers` and `body`, closing the connection.
    static func reply(_ status: String = "200 OK", headers: [String], body: Data = Data("{}".utf8)) -> Data {
        var head = "HTTP/1.1 \(status)\r\nConnection: close\r\n"
        for header in headers { head += header + "\r\n" }
        return Data((head + "\r\n").utf8) + body
    }

    /// The client every case goes through: an HTTP cache, a retry policy, validation and a logger at full level.
    func client(_ server: MisbehavingServer, log: Lock<Int>) -> KonexClient {
        let client = KonexClient(
            baseURL: URL(string: "http://127.0.0.1:\(server.port)")!,
            transport: Live.transport(), timeout: .seconds(10),
            interceptors: [HTTPCache(cookieStorage: nil)])
        client.plugins = [LoggingPlugin(level: .bodies) { line in log.withLock { $0 += line.utf8.count } }]
        client.retriers = [RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(1))]
        return client
    }

    /// The process's resident memory, in bytes (Linux: /proc/self/statm).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let pages = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    static let absurd = "Thu, 01 Jan 999999999999 00:00:00 GMT"
    static let huge = "99999999999999999999999999"

    @Test func absurdDatesAndNumbersAreIgnored() async throws {
        let server = try MisbehavingServer(
            reply: Self.reply(headers: [
                "Date: \(Self.absurd)", "Expires: \(Self.absurd)", "Last-Modified: \(Self.absurd)", "Age: \(Self.huge)",
                "Cache-Control: max-age=\(Self.huge), stale-while-revalidate=\(Self.huge)",
                "Content-Type: application/json",
            ]))
        let log = Lock(0)
        let response = try await client(server, log: log).request("absurd").validate().response()
        #expect(response.statusCode == 200)
        #expect(log.value > 0)
    }

    @Test func anAbsurdRetryAfterIsDeclinedNotSlept() async throws {
        let server = try MisbehavingServer(
            reply: Self.reply("503 Service Unavailable", headers: ["Retry-After: \(Self.huge)", "Content-Length: 2"]))
        let started = ContinuousClock.now
        let error = try await requireThrows(KonexError.self) {
            try await client(server, log: Lock(0)).request("busy").validate().responseData()
        }
        #expect(error.stage == .validation)
        #expect(error.statusCode == 503)
        // Not a century's sleep, with room for a loaded machine's stalls.
        #expect(started.duration(to: .now) < .seconds(60))
        #expect(server.requestLines.count == 1)
    }

    @Test func anAbsurdContentLengthIsATypedErrorNotAnAllocation() async throws {
        let before = Self.residentBytes()
        // Not 9223372036854775807: within 512 of 2⁶³ FoundationNetworking itself traps on Linux (it converts the
        // length through a Double in _EasyHandle), before any Konex code runs; RELIABILITY.md records it.
        let server = try MisbehavingServer(reply: Self.reply(headers: ["Content-Length: 9000000000000000000"]))
        let error = try await requireThrows(KonexError.self) {
            try await client(server, log: Lock(0)).request("length").responseData()
        }
        #expect(error.stage == .transport)
        #expect(Self.residentBytes() - before < 256 << 20)
    }

    @Test func aBodyLongerThanItsContentLengthIsCutAtTheLength() async throws {
        let server = try MisbehavingServer(
            reply: Self.reply(
                headers: ["Content-Length: 5"], body: Data("hello and more the server should not send".utf8)))
        let body = try await client(server, log: Lock(0)).request("long").responseString()
        #expect(body == "hello")
    }

    @Test func tenThousandHeadersEndInAnAnswerOrATypedError() async throws {
        // Konex reads a response's fields in linear time; FoundationNetworking's own parsing of them is quadratic
        // (~0.26 s for 4,000, ~1.6 s for 10,000 here), which is the floor of this case.
        let server = try MisbehavingServer(
            reply: Self.reply(headers: (0..<10_000).map { "X-Header-\($0): \($0)" } + ["Content-Length: 2"]))
        let started = ContinuousClock.now
        do {
            let response = try await client(server, log: Lock(0)).request("many").response()
            #expect(response.headers["X-Header-9999"] == "9999")
        } catch let error as KonexError {
            #expect(error.stage == .transport)
        }
        // A hang detector, not a speed target: the thread sanitizer slows that quadratic parse tenfold.
        #expect(started.duration(to: .now) < .seconds(90))
    }

    @Test func aHeaderOfAMegabyteIsATypedError() async throws {
        let server = try MisbehavingServer(
            reply: Self.reply(headers: ["X-Big: " + String(repeating: "b", count: 1 << 20), "Content-Length: 2"]))
        let error = try await requireThrows(KonexError.self) {
            try await client(server, log: Lock(0)).request("big").responseData()
        }
        #expect(error.stage == .transport)
    }

    @Test func invalidUTF8InHeaderValuesIsReadOrDroppedNeverATrap() async throws {
        var head = Data(
            "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\nCache-Control: max-age=60\r\n".utf8)
        head +=
            Data("X-Bad: ".utf8) + Data([0xFF, 0xFE, 0xC3, 0x28]) + Data("\r\nETag: \"".utf8)
            + Data([0xED, 0xA0, 0x80])
        head += Data("\"\r\nVary: ".utf8) + Data([0xC0, 0xAF]) + Data("\r\n\r\n{}".utf8)
        let server = try MisbehavingServer(reply: head)
        let log = Lock(0)
        do {
            let response = try await client(server, log: log).request("utf8").response()
            #expect(response.statusCode == 200)
            #expect(log.value > 0)
        } catch let error as KonexError {
            // FoundationNetworking on Linux refuses such a head ("Failed writing header"): a typed error, named.
            #expect(error.stage == .transport)
            #expect(error.url?.path == "/utf8")
        }
    }

    @Test func anEndlessLineIsATypedErrorWithBoundedMemory() async throws {
        let before = Self.residentBytes()
        let server = try MisbehavingServer(
            reply: Self.reply(
                headers: ["Content-Type: text/event-stream"], body: Data(repeating: UInt8(ascii: "x"), count: 8 << 20)))
        let stream = try await client(server, log: Lock(0)).request("line").stream()
        let error = try await requireThrows(KonexError.self) { for try await _ in stream.events() {} }
        #expect((error.underlyingError as? StreamFailure)?.kind == .lineTooLong)
        #expect(error.stage == .decoding)
        let grown = Self.residentBytes() - before
        print("hostile server: an 8 MiB line grew the resident size by \(grown >> 20) MiB")
        #expect(grown < 256 << 20)
    }

    @Test func endlessDataLinesWithoutABlankLineAreATypedError() async throws {
        let lines = Data(String(repeating: "data: " + String(repeating: "y", count: 1_000) + "\n", count: 2_000).utf8)
        let server = try MisbehavingServer(reply: Self.reply(headers: ["Content-Type: text/event-stream"], body: lines))
        let stream = try await client(server, log: Lock(0)).request("event").stream()
        let error = try await requireThrows(KonexError.self) {
            for try await _ in stream.events(maximumEventSize: 256 << 10) {}
        }
        #expect((error.underlyingError as? StreamFailure)?.kind == .eventTooLarge)
    }
}
