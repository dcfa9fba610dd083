import Foundation
import TestSupport
import Testing

@testable import Konex

/// Each WHATWG event-stream rule, one row, parsed whole, byte by byte, and cut at every position in two.
@Suite struct ServerSentEventParserTests {
    static func parse(_ chunks: [[UInt8]]) throws -> (events: [ServerSentEvent], parser: ServerSentEventParser) {
        var parser = ServerSentEventParser(maximumLineLength: 64)
        var events: [ServerSentEvent] = []
        for chunk in chunks { try parser.parse(Data(chunk)) { events.append($0) } }
        parser.finish()
        return (events, parser)
    }

    /// The same bytes in every chunking must give the same events.
    static func everyChunking(of bytes: [UInt8]) throws -> [ServerSentEvent] {
        let whole = try parse([bytes]).events
        #expect(try parse(bytes.map { [$0] }).events == whole, "byte by byte")
        for cut in 0...bytes.count {
            #expect(try parse([Array(bytes[..<cut]), Array(bytes[cut...])]).events == whole, "cut at \(cut)")
        }
        return whole
    }

    static func event(_ data: String, _ type: String = "message", id: String? = nil, retry: Duration? = nil)
        -> ServerSentEvent
    {
        ServerSentEvent(event: type, data: data, id: id, retry: retry)
    }

    @Test(arguments: [
        ("LF line ends", "data: a\n\n", [event("a")]),
        ("CR line ends", "data: a\r\r", [event("a")]),
        ("CRLF line ends", "data: a\r\n\r\n", [event("a")]),
        ("mixed line ends", "data: a\rdata: b\r\ndata: c\n\n", [event("a\nb\nc")]),
        ("a BOM at the start is skipped", "\u{FEFF}data: a\n\n", [event("a")]),
        ("a BOM later is part of a field name", "data: a\n\n\u{FEFF}data: b\n\n", [event("a")]),
        ("multi-byte UTF-8", "data: é日😀\n\n", [event("é日😀")]),
        ("data without the space", "data:a\n\n", [event("a")]),
        ("only one space is dropped", "data:  a\n\n", [event(" a")]),
        ("data lines joined with LF", "data: a\ndata: b\n\n", [event("a\nb")]),
        ("a data line without a colon is empty data", "data\n\n", [event("")]),
        ("comments are ignored", ": hi\ndata: a\n:\n\n", [event("a")]),
        ("unknown fields are ignored", "foo: bar\ndata: a\nDATA: x\n\n", [event("a")]),
        ("event sets the type", "event: add\ndata: a\n\n", [event("a", "add")]),
        ("the type resets after dispatch", "event: add\ndata: a\n\ndata: b\n\n", [event("a", "add"), event("b")]),
        ("no data, no event", "event: add\n\n\n\ndata: a\n\n", [event("a")]),
        ("id carries over", "id: 1\ndata: a\n\ndata: b\n\n", [event("a", id: "1"), event("b", id: "1")]),
        ("an empty id resets it", "id: 1\ndata: a\n\nid\ndata: b\n\n", [event("a", id: "1"), event("b")]),
        (
            "an id with NUL is ignored", "id: 1\ndata: a\n\nid: x\u{0}y\ndata: b\n\n",
            [event("a", id: "1"), event("b", id: "1")]
        ),
        ("retry with digits", "retry: 1500\ndata: a\n\n", [event("a", retry: .milliseconds(1_500))]),
        ("retry with letters is ignored", "retry: 15a\ndata: a\n\n", [event("a")]),
        ("retry that is empty is ignored", "retry:\ndata: a\n\n", [event("a")]),
        ("dispatch only at a blank line", "data: a\ndata: b", []),
        ("a last event without its blank line is discarded", "data: a\n\ndata: b\n", [event("a")]),
    ])
    func rule(name: String, stream: String, expected: [ServerSentEvent]) throws {
        #expect(try Self.everyChunking(of: Array(stream.utf8)) == expected, "\(name)")
    }

    @Test func retryAndLastEventIDSurviveTheEndForAReconnection() throws {
        let (_, parser) = try Self.parse([Array("id: 7\nretry: 250\ndata: a\n\nretry: x\n\n".utf8)])
        #expect(parser.lastEventID == "7")
        #expect(parser.reconnectionTime == .milliseconds(250))
    }

    @Test(
        arguments: [
            ([0x64, 0x61, 0x74, 0x61, 0x3A, 0x20, 0xFF, 0x0A, 0x0A], event("\u{FFFD}")),  // data: <0xFF>
            ([0x64, 0x61, 0x74, 0x61, 0x3A, 0x20, 0xC3, 0x0A, 0x0A], event("\u{FFFD}")),  // a cut two-byte sequence
            (  // event: <a surrogate>
                [0x65, 0x76, 0x65, 0x6E, 0x74, 0x3A, 0xED, 0xA0, 0x80, 0x0A, 0x64, 0x61, 0x74, 0x61, 0x0A, 0x0A],
                event("", "\u{FFFD}\u{FFFD}\u{FFFD}")
            ),
        ] as [([UInt8], ServerSentEvent)])
    func textThatIsNotUTF8DecodesWithReplacementCharacters(bytes: [UInt8], expected: ServerSentEvent) throws {
        // The standard decodes the stream as UTF-8 with U+FFFD for what is not; one bad byte never ends a stream.
        #expect(try Self.everyChunking(of: bytes) == [expected])
    }

    @Test func anEmptyEventFieldIsAMessage() throws {
        #expect(try Self.everyChunking(of: Array("event: add\nevent:\ndata: a\n\n".utf8)) == [Self.event("a")])
    }

    @Test func anIDCountsOnlyWhenItsEventIsDispatched() throws {
        // The connection drops after "id: 2" but before the blank line: a reconnection must ask for event 2 again.
        let (events, parser) = try Self.parse([Array("id: 1\ndata: a\n\nid: 2\ndata: b\n".utf8)])
        #expect(events == [Self.event("a", id: "1")])
        #expect(parser.lastEventID == "1")
        // A block without data still commits its ID (the standard sets it before checking the data).
        let (_, reset) = try Self.parse([Array("id: 1\ndata: a\n\nid: 5\n\n".utf8)])
        #expect(reset.lastEventID == "5")
    }

    @Test func endlessDataWithoutABlankLineIsATypedError() async throws {
        var parser = ServerSentEventParser(maximumLineLength: 64, maximumEventSize: 1_000)
        let line = Data("data: \(String(repeating: "x", count: 50))\n".utf8)
        let failure = try await requireThrows(StreamFailure.self) {
            for _ in 0..<100 { try parser.parse(line) { _ in Issue.record("no event ends") } }
        }
        #expect(failure.kind == .eventTooLarge)
        #expect(failure.description.contains("1000 bytes"))
    }

    @Test func aLongLineInOneBytePiecesIsParsedInLinearTime() throws {
        // Before the splitter was moved instead of copied, each piece copied the partial line again: 512 KiB one
        // byte at a time meant ~10¹¹ bytes copied (minutes). Now it is a moment; a regression makes this test hang.
        var parser = ServerSentEventParser()
        let line = Array("data: ".utf8) + Array(repeating: UInt8(ascii: "x"), count: 512 << 10) + [0x0A, 0x0A]
        var events: [ServerSentEvent] = []
        for byte in line { try parser.parse(Data([byte])) { events.append($0) } }
        #expect(events.count == 1)
        #expect(events.first?.data.utf8.count == 512 << 10)
    }

    @Test func aLineLongerThanTheLimitIsATypedError() async throws {
        let long = Array("data: ".utf8) + Array(repeating: UInt8(ascii: "x"), count: 100)
        let failure = try await requireThrows(StreamFailure.self) { try Self.parse(long.map { [$0] }) }
        #expect(failure.kind == .lineTooLong)
        #expect(failure.description.contains("64 bytes"))
    }

    @Test func wireFormatRoundTrips() throws {
        let events = [Self.event("a\nb", "add", id: "9", retry: .seconds(2)), Self.event("{\"x\":1}", id: "9")]
        let text = events.map(\.wireFormat).joined()
        #expect(try Self.everyChunking(of: Array(text.utf8)) == events)
    }
}
