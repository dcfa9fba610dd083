/// Splits bytes that arrive in chunks into lines ended by LF, CR or CRLF, also when a line end or a line is cut
/// between two chunks. The one splitter of every line reader: Konex's streams and KonexOpenAPI's record limits. A line longer than `maximumLength` is an error, so one endless line cannot take all memory.
package struct LineSplitter: Sendable {
    package let maximumLength: Int
    /// The start of a line whose end has not arrived yet.
    private var carry: [UInt8] = []
    /// The previous chunk ended with CR: an LF at the start of the next one belongs to it.
    private var afterCR = false

    package init(maximumLength: Int) { self.maximumLength = maximumLength }

    /// Calls `line` with each complete line in `bytes` (without its ending), in order.
    package mutating func split(
        _ bytes: UnsafeRawBufferPointer, _ line: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        var start = 0
        let count = bytes.count
        if afterCR, count > 0 {
            afterCR = false
            if bytes[0] == 0x0A { start = 1 }
        }
        var index = start
        while index < count {
            let byte = bytes[index]
            if byte != 0x0A && byte != 0x0D {
                index += 1
                continue
            }
            let segment = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
            if carry.isEmpty {
                guard segment.count <= maximumLength else { throw tooLong() }
                try line(segment)
            } else {
                guard carry.count + segment.count <= maximumLength else { throw tooLong() }
                carry.append(contentsOf: segment)
                try carry.withUnsafeBytes { try line($0) }
                carry.removeAll(keepingCapacity: true)
            }
            index += 1
            if byte == 0x0D {
                if index < count {
                    if bytes[index] == 0x0A { index += 1 }
                } else {
                    afterCR = true
                }
            }
            start = index
        }
        if start < count {
            guard carry.count + (count - start) <= maximumLength else { throw tooLong() }
            carry.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<count]))
        }
    }

    /// The unterminated last line, if any (JSON Lines may end without a newline; an event stream discards it).
    mutating func remainder() -> [UInt8]? {
        defer { carry.removeAll() }
        return carry.isEmpty ? nil : carry
    }

    private func tooLong() -> StreamFailure {
        StreamFailure(.lineTooLong, "a line is longer than \(maximumLength) bytes (the maximumLineLength)")
    }
}

/// UTF-8 text from bytes that must be valid UTF-8 (no replacement characters slipped in).
enum UTF8Text {
    static func decode(_ bytes: UnsafeRawBufferPointer) throws -> String {
        if let offset = UTF8Validation.firstInvalidOffset(bytes) { throw invalid(at: offset) }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func invalid(at offset: Int) -> StreamFailure {
        StreamFailure(.invalidUTF8, "the stream is not valid UTF-8 text (at byte \(offset) of a line)")
    }
}
