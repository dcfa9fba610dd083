import Foundation

/// One WebSocket message: text (valid UTF-8) or binary.
public enum WebSocketMessage: Sendable, Hashable, CustomStringConvertible {
    /// A text message.
    case text(String)
    /// A binary message.
    case binary(Data)

    /// The message's bytes: the UTF-8 of a text message.
    public var data: Data {
        switch self {
        case .text(let text): Data(text.utf8)
        case .binary(let data): data
        }
    }

    /// How many bytes the message holds, without copying it.
    var byteCount: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .binary(let data): data.count
        }
    }

    public var description: String {
        switch self {
        // The first 80 characters, found without counting the rest (a message may be megabytes).
        case .text(let text):
            text.index(text.startIndex, offsetBy: 80, limitedBy: text.endIndex).map {
                $0 == text.endIndex ? "text(\(text))" : "text(\(text[..<$0])…)"
            } ?? "text(\(text))"
        case .binary(let data): "binary(\(data.count) bytes)"
        }
    }
}

/// A WebSocket close code (RFC 6455 §7.4); an open set, so codes an application defines (4000–4999) fit too.
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }
    public var description: String { "\(rawValue)" }

    /// 1000: the purpose of the connection was fulfilled.
    public static let normalClosure = Self(1000)
    /// 1001: an endpoint is going away (a page left, a server shutting down, a reader cancelled).
    public static let goingAway = Self(1001)
    /// 1002: a protocol error.
    public static let protocolError = Self(1002)
    /// 1003: a message of a type the endpoint does not accept.
    public static let unsupportedData = Self(1003)
    /// 1005: the close frame carried no code (never sent).
    public static let noStatusReceived = Self(1005)
    /// 1006: the connection ended without a close frame (never sent).
    public static let abnormalClosure = Self(1006)
    /// 1007: a text message that was not valid UTF-8.
    public static let invalidFramePayloadData = Self(1007)
    /// 1008: a message that violates the endpoint's policy.
    public static let policyViolation = Self(1008)
    /// 1009: a message too big to process.
    public static let messageTooBig = Self(1009)
    /// 1011: the server met an unexpected condition.
    public static let internalServerError = Self(1011)
}
