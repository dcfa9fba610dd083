import Foundation

/// One piece of a streamed mock body.
public struct MockChunk: Sendable, Hashable {
    /// The bytes.
    public var data: Data
    /// The wait before it, on the transport's clock.
    public var delay: Duration

    /// A chunk of bytes after `delay`.
    public init(_ data: Data, after delay: Duration = .zero) {
        self.data = data
        self.delay = delay
    }

    /// A chunk of UTF-8 text after `delay`.
    public static func text(_ text: String, after delay: Duration = .zero) -> MockChunk {
        MockChunk(Data(text.utf8), after: delay)
    }
}

/// How a streamed mock body ends.
public enum StreamEnding: Sendable, Hashable {
    /// Cleanly, after the last chunk.
    case finish
    /// With `URLError(.networkConnectionLost)` after the last chunk.
    case connectionLost
    /// Never: the body stays open until the reader cancels (a hang after the head, or an endless feed).
    case hang
}
