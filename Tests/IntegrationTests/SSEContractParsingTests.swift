import Foundation
import Konex
import KonexTesting
import TestSupport
import Testing

/// The parsing, line-feed, byte-order-mark and payload-size cases of LaunchDarkly's sse-contract-tests, ported as
/// facts (what the server writes, write by write; the events a client must report) and run against a real server:
/// scripts/sse_server.py's `POST /replay` writes each piece as it is, 10 ms apart, so a CR can end one write and its LF
/// start the next, and a byte order mark can be cut between writes.
@Suite(.enabled(if: SSEServer.isAvailable, SSEServer.skipReason))
struct SSEContractParsingTests {
    /// One event as the suite states it: its type, its ID (`nil` for none) and its data.
    struct Expected: Sendable, Equatable, CustomStringConvertible {
        var type = "message"
        var id: String?
        var data: String
        var description: String { "\(type)/\(id ?? "-")/\(data.count > 40 ? "\(data.utf8.count) bytes" : data)" }
    }

    /// A case: the pieces the server writes, and the events expected of them.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let pieces: [[UInt8]]
        let expected: [Expected]
        /// Whether the server keeps the connection open after its pieces: the events must arrive without the end.
        var hold = false
        var testDescription: String { name }

        init(_ name: String, _ pieces: [String], _ expected: [Expected], hold: Bool = false) {
            self.init(name, bytes: pieces.map { Array($0.utf8) }, expected, hold: hold)
        }

        init(_ name: String, bytes: [[UInt8]], _ expected: [Expected], hold: Bool = false) {
            self.name = name
            pieces = bytes
            self.expected = expected
            self.hold = hold
        }

        /// The same input in pieces of `size` bytes, as the suite's "1-character chunks" cases send it.
        func cut(every size: Int) -> Case {
            let whole = pieces.flatMap { $0 }
            let cut = stride(from: 0, to: whole.count, by: size).map { Array(whole[$0..<min($0 + size, whole.count)]) }
            return Case("\(name), \(size)-byte pieces", bytes: cut, expected, hold: hold)
        }
    }

    struct Replay: KonexRequest {
        struct Spec: Encodable, Sendable {
            let pieces: [String]
            let hold: Bool
        }
        let spec: Spec
        var path: String { "/replay" }
        var method: HTTPMethod { .post }
        var body: RequestBody? { .json(spec) }
    }

    static func message(_ data: String, id: String? = nil, type: String = "message") -> Expected {
        Expected(type: type, id: id, data: data)
    }

    static let basicParsing: [Case] = [
        Case("one-line message in one piece", ["data: Hello\n\n"], [message("Hello")]),
        Case("one-line message in two pieces", ["data: Hel", "lo\n\n"], [message("Hello")]),
        Case(
            "two one-line messages in one piece", ["data: Hello\n\ndata: World\n\n"],
            [message("Hello"), message("World")]),
        Case("one two-line message", ["data: Hello\ndata:World\n\n"], [message("Hello\nWorld")]),
        Case("empty data", ["data:\n\n"], [message("")]),
        Case("event with a type", ["event: greeting\ndata: Hello\n\n"], [message("Hello", type: "greeting")]),
        Case("the default type is message", ["data: Hello\n\n"], [Expected(type: "message", data: "Hello")]),
        Case("event with an ID", ["id: abc\ndata: Hello\n\n"], [message("Hello", id: "abc")]),
        Case(
            "event with a type and an ID", ["event: greeting\nid: abc\ndata: Hello\n\n"],
            [message("Hello", id: "abc", type: "greeting")]),
        Case("an ID with a NUL is ignored", ["id: a\u{0}bc\ndata: Hello\n\n"], [message("Hello")]),
        Case(
            "the last ID persists", ["id: abc\ndata: first\n\n", "data: second\n\n"],
            [message("first", id: "abc"), message("second", id: "abc")]),
        Case(
            "an empty ID clears the last one", ["id: abc\ndata: first\n\n", "id: \ndata: second\n\n"],
            [message("first", id: "abc"), message("second")]),
        Case(
            "fields in reverse order", ["data: Hello\nid: abc\nevent: greeting\n\n"],
            [message("Hello", id: "abc", type: "greeting")]),
        Case(
            "an unknown field is ignored", ["event: greeting\ncolor: blue\ndata: Hello\n\n"],
            [message("Hello", type: "greeting")]),
        Case("fields without a space", ["event:greeting\ndata:Hello\n\n"], [message("Hello", type: "greeting")]),
        Case(
            "fields with an extra space keep it", ["event:  greeting\ndata:  Hello\n\n"],
            [message(" Hello", type: " greeting")]),
        Case("a field with no colon", ["data\n\ndata\ndata\n\n"], [message(""), message("\n")]),
        Case("multi-byte characters", ["data: €豆腐\n\n"], [message("€豆腐")]),
        Case(
            "a hundred messages at once", [(0..<100).map { "data: message \($0)\n\n" }.joined()],
            (0..<100).map { message("message \($0)") }),
        Case("multi-byte characters a byte at a time", ["data: €豆腐\n\n"], [message("€豆腐")]).cut(every: 1),
    ]

    static let lineFeeds: [Case] =
        ["\n", "\r\n", "\r"].flatMap { end -> [Case] in
            let named = end == "\n" ? "LF" : end == "\r" ? "CR" : "CRLF"
            let inputs = [
                Case("\(named): one-line event", ["data: event 1\(end)\(end)"], [message("event 1")]),
                Case(
                    "\(named): one-line event, two-line event",
                    ["data: event 1\(end)\(end)data: event 2 line 1\(end)data: event 2 line 2\(end)\(end)"],
                    [message("event 1"), message("event 2 line 1\nevent 2 line 2")]),
                Case(
                    "\(named): empty first line", ["data:\(end)data: line2\(end)data: line3\(end)\(end)"],
                    [message("\nline2\nline3")]),
                Case(
                    "\(named): empty middle line", ["data: line1\(end)data:\(end)data: line3\(end)\(end)"],
                    [message("line1\n\nline3")]),
                Case(
                    "\(named): one extra empty line", ["data: event 1\(end)\(end)\(end)data: event 2\(end)\(end)"],
                    [message("event 1"), message("event 2")]),
                Case(
                    "\(named): two extra empty lines",
                    ["data: event 1\(end)\(end)\(end)\(end)data: event 2\(end)\(end)"],
                    [message("event 1"), message("event 2")]),
            ]
            return inputs.flatMap { [$0, $0.cut(every: 1), $0.cut(every: 2)] }
        } + [
            Case(
                "CRLF with the CR ending a piece",
                ["data: Hello\r", "\ndata: World\r", "\n\r\ndata: OK\r", "\n", "\r", "\n"],
                [message("Hello\nWorld"), message("OK")])
        ]

    static let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
    static let byteOrderMark: [Case] = [
        Case("a BOM at the start is stripped", bytes: [bom + Array("data: Hello\n\n".utf8)], [message("Hello")]),
        Case(
            "a BOM before an event with a type and an ID",
            bytes: [bom + Array("event: greeting\nid: abc\ndata: Hello\n\n".utf8)],
            [message("Hello", id: "abc", type: "greeting")]),
        Case(
            "a BOM, then two messages", bytes: [bom + Array("data: First\n\ndata: Second\n\n".utf8)],
            [message("First"), message("Second")]),
        Case(
            "a BOM later in the stream is data",
            bytes: [Array("data: First\n\n".utf8), Array("data: ".utf8) + bom + Array("Second\n\n".utf8)],
            [message("First"), message("\u{FEFF}Second")]),
        Case(
            "a BOM cut between two pieces", bytes: [[0xEF, 0xBB], [0xBF] + Array("data: Hello\n\n".utf8)],
            [message("Hello")]),
        Case(
            "a BOM a byte a piece", bytes: [[0xEF], [0xBB], [0xBF], Array("data: Hello\n\n".utf8)], [message("Hello")]),
        Case(
            "only the first BOM is stripped", bytes: [bom + Array("data: ".utf8) + bom + Array("Hello\n\n".utf8)],
            [message("\u{FEFF}Hello")]),
        Case(
            "a BOM with multi-line data", bytes: [bom + Array("data: Line1\ndata: Line2\n\n".utf8)],
            [message("Line1\nLine2")]),
        Case("a BOM, then a comment", bytes: [bom + Array(":comment\ndata: Hello\n\n".utf8)], [message("Hello")]),
        Case("a BOM, then empty data", bytes: [bom + Array("data:\n\n".utf8)], [message("")]),
        Case("no BOM", ["data: Hello\n\n"], [message("Hello")]),
    ]

    /// The suite's sizes around common buffer boundaries: each event must arrive while the connection stays open.
    static let payloadSizes: [Case] = [
        1, 128, 512, 1_023, 1_024, 1_025, 2_048, 3_999, 4_094, 4_096, 4_098, 6_144, 8_189, 8_192, 8_195, 12_288,
        16_384, 32_768, 65_536, 262_144, 1_048_576,
    ].map { size in
        let data = String(repeating: "x", count: size)
        return Case("a payload of \(size) bytes", ["data: \(data)\n\n"], [message(data)], hold: true)
    }

    /// The events `contractCase` gives: read until as many as expected came (the server may hold the connection
    /// open), or the stream ends. A watchdog ends a read that outlives 60 s: a stall detector, not a speed target.
    static func events(of contractCase: Case) async throws -> [Expected] {
        let spec = Replay.Spec(
            pieces: contractCase.pieces.map { Data($0).base64EncodedString() }, hold: contractCase.hold)
        let reader = Task {
            let stream = try await SSEServer.client().request(Replay(spec: spec)).validate().stream()
            var events: [Expected] = []
            for try await event in stream.events(maximumLineLength: 4 << 20, maximumEventSize: 4 << 20) {
                events.append(Expected(type: event.event, id: event.id, data: event.data))
                if events.count == contractCase.expected.count { break }
            }
            stream.cancel()
            return events
        }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(60))
            reader.cancel()
        }
        defer { watchdog.cancel() }
        return try await reader.value
    }

    @Test(arguments: basicParsing + lineFeeds + byteOrderMark + payloadSizes)
    func theEventsOfACase(_ contractCase: Case) async throws {
        let events = try await Self.events(of: contractCase)
        #expect(events == contractCase.expected)
    }

    @Test func thereAreAsManyCasesAsTheSuiteHas() {
        // Basic parsing 20, line feeds 6 inputs × 3 line ends × 3 cuttings + 1, the byte order mark 11, payload
        // sizes 21: every case of those files of the suite.
        #expect(Self.basicParsing.count == 20)
        #expect(Self.lineFeeds.count == 55)
        #expect(Self.byteOrderMark.count == 11)
        #expect(Self.payloadSizes.count == 21)
    }
}
