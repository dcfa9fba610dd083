import Foundation

/// Turns the bytes of a `text/event-stream` into events, chunk by chunk, following the WHATWG rules.
///
/// - Lines end with LF, CR or CRLF, also when the ending or a multi-byte character is cut between chunks; a UTF-8
///   byte order mark at the very start is skipped.
/// - `field: value` (one space after the colon is dropped, none is needed), a line without a colon is a field with
///   an empty value, a line starting with `:` is a comment, unknown fields are ignored.
/// - `data` lines are joined with `"\n"`; `event` sets the type (`"message"` when absent or empty); `id` sets the
///   event ID (an empty `id` resets it, one containing NUL is ignored), which becomes ``lastEventID`` only when its
///   block is dispatched, so an event cut off by a dropped connection is asked for again; `retry` sets the
///   reconnection time when it is digits only and is ignored otherwise.
/// - An event is dispatched at a blank line, and only when it has data; a last event without its blank line is
///   discarded at the end of the stream.
/// - Bytes that are not valid UTF-8 decode as U+FFFD, as the standard says.
/// - Refused with ``StreamFailure``: a line longer than `maximumLineLength`, and an event whose data grows past
///   `maximumEventSize` (endless `data:` lines with no blank line).
///
/// ```swift
/// var parser = ServerSentEventParser()
/// for try await chunk in body { try parser.parse(chunk) { event in print(event.data) } }
/// ```
public struct ServerSentEventParser: Sendable {
    /// The default longest line: 1 MiB.
    public static let defaultMaximumLineLength = 1 << 20
    /// The default largest event (its data lines together): 16 MiB.
    public static let defaultMaximumEventSize = 16 << 20

    /// The last event ID so far (what a reconnection sends as `Last-Event-ID`); `nil` when none or reset.
    public private(set) var lastEventID: String?
    /// The reconnection time the stream asked for with `retry:`, if it did.
    public private(set) var reconnectionTime: Duration?

    /// The largest event accepted, in bytes of data.
    public let maximumEventSize: Int
    private var lines: LineSplitter
    /// The ID the block being read set; it becomes ``lastEventID`` when the block is dispatched.
    private var pendingEventID: String?
    private var data: [UInt8] = []
    private var hasData = false
    private var eventType: String?
    private var blockRetry: Duration?
    /// The first bytes, until three have been seen, to skip a byte order mark cut between chunks.
    private var opening: [UInt8]? = []

    /// Creates a parser.
    /// - Parameters:
    ///   - maximumLineLength: The longest line accepted, in bytes.
    ///   - maximumEventSize: The most bytes of data one event may gather.
    public init(maximumLineLength: Int = defaultMaximumLineLength, maximumEventSize: Int = defaultMaximumEventSize) {
        lines = LineSplitter(maximumLength: maximumLineLength)
        self.maximumEventSize = maximumEventSize
    }

    /// Parses the next chunk, calling `dispatch` with each complete event in order.
    /// - Throws: ``StreamFailure`` for a line or an event over its limit.
    public mutating func parse(_ chunk: Data, dispatch: (ServerSentEvent) throws -> Void) throws {
        try chunk.withUnsafeBytes { try parse($0, dispatch: dispatch) }
    }

    /// Parses the next chunk of raw bytes, calling `dispatch` with each complete event in order.
    public mutating func parse(_ chunk: UnsafeRawBufferPointer, dispatch: (ServerSentEvent) throws -> Void) throws {
        if var opening {
            // Hold the first bytes until three are known: a byte order mark may be cut between chunks.
            let needed = Swift.min(3 - opening.count, chunk.count)
            opening.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<needed]))
            if opening.count < 3 {
                self.opening = opening
                return
            }
            self.opening = nil
            if opening != [0xEF, 0xBB, 0xBF] { try feed(opening.withUnsafeBytes { Array($0) }, dispatch: dispatch) }
            try feed(UnsafeRawBufferPointer(rebasing: chunk[needed...]), dispatch: dispatch)
            return
        }
        try feed(chunk, dispatch: dispatch)
    }

    /// Ends the stream: a last event without its blank line is discarded, as the standard says. The last event ID
    /// and the reconnection time carry over to the next stream (a reconnection), which may start with a BOM again.
    public mutating func finish() {
        opening = []
        pendingEventID = lastEventID  // an ID whose event never arrived whole is not the last one
        _ = lines.remainder()
        data.removeAll()
        hasData = false
        eventType = nil
        blockRetry = nil
    }

    private mutating func feed(_ bytes: [UInt8], dispatch: (ServerSentEvent) throws -> Void) throws {
        try bytes.withUnsafeBytes { try feed($0, dispatch: dispatch) }
    }

    private mutating func feed(_ bytes: UnsafeRawBufferPointer, dispatch: (ServerSentEvent) throws -> Void) throws {
        // Moved out, not copied: a copy would share the splitter's buffer, and the next append would copy a long
        // partial line again on every chunk (quadratic for a long line in small pieces).
        var splitter = lines
        lines = LineSplitter(maximumLength: splitter.maximumLength)
        defer { lines = splitter }
        try splitter.split(bytes) { line in try process(line, dispatch: dispatch) }
    }

    private mutating func process(_ line: UnsafeRawBufferPointer, dispatch: (ServerSentEvent) throws -> Void) throws {
        if line.isEmpty { return try dispatchEvent(dispatch) }
        if line[0] == UInt8(ascii: ":") { return }  // a comment
        var nameEnd = 0
        while nameEnd < line.count && line[nameEnd] != UInt8(ascii: ":") { nameEnd += 1 }
        var valueStart = Swift.min(nameEnd + 1, line.count)
        if valueStart < line.count && line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let name = UnsafeRawBufferPointer(rebasing: line[..<nameEnd])
        let value = UnsafeRawBufferPointer(rebasing: line[valueStart...])
        switch nameEnd {
        case 4 where Self.equals(name, "data"):
            guard data.count + value.count + 1 <= maximumEventSize else {
                throw StreamFailure(
                    .eventTooLarge, "an event's data is longer than \(maximumEventSize) bytes (the maximumEventSize)")
            }
            if hasData { data.append(0x0A) }
            data.append(contentsOf: value)
            hasData = true
        case 5 where Self.equals(name, "event"):
            eventType = value.isEmpty ? nil : String(decoding: value, as: UTF8.self)
        case 2 where Self.equals(name, "id"):
            if !value.contains(0) { pendingEventID = value.isEmpty ? nil : String(decoding: value, as: UTF8.self) }
        case 5 where Self.equals(name, "retry"):
            if !value.isEmpty, value.count <= 18, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                let milliseconds = value.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
                reconnectionTime = .milliseconds(milliseconds)
                blockRetry = reconnectionTime
            }
        default:
            break  // unknown fields are ignored
        }
    }

    private mutating func dispatchEvent(_ dispatch: (ServerSentEvent) throws -> Void) throws {
        lastEventID = pendingEventID  // the block is whole: its ID counts, with or without data
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            eventType = nil
            blockRetry = nil
        }
        guard hasData else { return }
        let text = String(decoding: data, as: UTF8.self)
        try dispatch(ServerSentEvent(event: eventType ?? "message", data: text, id: lastEventID, retry: blockRetry))
    }

    private static func equals(_ bytes: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
        bytes.count == name.utf8CodeUnitCount && memcmp(bytes.baseAddress!, name.utf8Start, bytes.count) == 0
    }
}
