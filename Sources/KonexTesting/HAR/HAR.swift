import Foundation
import Konex

/// An HTTP Archive (HAR 1.2), the format browser dev tools, Charles and Proxyman open.
///
/// Konex-specific data lives in `_`-prefixed fields, as the spec allows. Encoding is deterministic
/// (sorted keys, pretty-printed, headers in received order) so recorded fixtures diff cleanly.
public struct HAR: Codable, Sendable, Hashable {
    /// The archive's root.
    public var log: Log

    /// Creates an archive.
    public init(log: Log) { self.log = log }

    /// The `log` object.
    public struct Log: Codable, Sendable, Hashable {
        public var version: String
        public var creator: Creator
        public var entries: [Entry]
        public init(version: String = "1.2", creator: Creator = Creator(), entries: [Entry] = []) {
            self.version = version
            self.creator = creator
            self.entries = entries
        }
    }

    /// The tool that wrote the archive.
    public struct Creator: Codable, Sendable, Hashable {
        public var name: String
        public var version: String
        public init(name: String = "Konex", version: String = "1.0") {
            self.name = name
            self.version = version
        }
    }

    /// One exchange.
    public struct Entry: Codable, Sendable, Hashable {
        public var startedDateTime: String
        public var time: Double
        public var request: Request
        public var response: Response
        public var cache: Cache
        public var timings: Timings
        /// Konex's own data about the entry (a HAR custom field; other tools ignore it).
        public var _konex: KonexInfo?
        /// What kind of resource it was, as Chrome DevTools writes it (`"websocket"` for a WebSocket).
        public var _resourceType: String?
        /// A WebSocket's messages, in Chrome DevTools' own custom field: Chrome's recordings replay in Konex, and
        /// Konex's open in DevTools.
        public var _webSocketMessages: [WebSocketMessage]?
        public init(startedDateTime: String, time: Double, request: Request, response: Response, timings: Timings) {
            self.startedDateTime = startedDateTime
            self.time = time
            self.request = request
            self.response = response
            self.cache = Cache()
            self.timings = timings
        }
    }

    /// One WebSocket message as Chrome DevTools records it.
    public struct WebSocketMessage: Codable, Sendable, Hashable {
        /// `"send"` (from the client) or `"receive"` (from the server).
        public var type: String
        /// When, in seconds since 1970.
        public var time: Double
        /// 1 for text, 2 for binary.
        public var opcode: Int
        /// The text, or the binary data in base64.
        public var data: String

        /// Creates a message record.
        public init(type: String, time: Double, opcode: Int, data: String) {
            self.type = type
            self.time = time
            self.opcode = opcode
            self.data = data
        }

        /// The message as Konex sends and receives it; `nil` for an opcode other than text or binary, or binary data
        /// that is not base64.
        public var message: Konex.WebSocketMessage? {
            switch opcode {
            case 1: .text(data)
            case 2: Data(base64Encoded: data).map { .binary($0) }
            default: nil
            }
        }
    }

    /// A name/value pair (headers, query items, cookies).
    public struct NameValue: Codable, Sendable, Hashable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The request.
    public struct Request: Codable, Sendable, Hashable {
        public var method: String
        public var url: String
        public var httpVersion: String
        public var cookies: [NameValue]
        public var headers: [NameValue]
        public var queryString: [NameValue]
        public var postData: PostData?
        public var headersSize: Int
        public var bodySize: Int
    }

    /// A request body.
    public struct PostData: Codable, Sendable, Hashable {
        public var mimeType: String
        public var text: String
        /// `"base64"` when `text` holds base64 of a binary body (a Konex extension; HAR has no field for it).
        public var _encoding: String?
        /// The fields of a form body, as some tools write them beside (or instead of) `text`.
        public var params: [Param]? = nil
    }

    /// One field of a posted form (`postData.params`).
    public struct Param: Codable, Sendable, Hashable {
        public var name: String
        public var value: String?
        public var fileName: String?
        public var contentType: String?
        public init(name: String, value: String? = nil, fileName: String? = nil, contentType: String? = nil) {
            self.name = name
            self.value = value
            self.fileName = fileName
            self.contentType = contentType
        }
    }

    /// The response.
    public struct Response: Codable, Sendable, Hashable {
        public var status: Int
        public var statusText: String
        public var httpVersion: String
        public var cookies: [NameValue]
        public var headers: [NameValue]
        public var content: Content
        public var redirectURL: String
        public var headersSize: Int
        public var bodySize: Int
    }

    /// A response body.
    public struct Content: Codable, Sendable, Hashable {
        public var size: Int
        public var mimeType: String
        public var text: String?
        /// `"base64"` for binary bodies (HAR 1.2 §content).
        public var encoding: String?
    }

    /// Konex's custom field on an entry.
    public struct KonexInfo: Codable, Sendable, Hashable {
        /// What was replaced by `REDACTED` before writing, e.g. `["header Authorization", "json password"]`.
        public var redacted: [String]
        /// For a streamed body: how it arrived, chunk by chunk, so a replay can keep the pacing.
        public var chunks: [ChunkTiming]?

        public init(redacted: [String] = [], chunks: [ChunkTiming]? = nil) {
            self.redacted = redacted
            self.chunks = chunks
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            redacted = try container.decodeIfPresent([String].self, forKey: .redacted) ?? []
            chunks = try container.decodeIfPresent([ChunkTiming].self, forKey: .chunks)
        }
    }

    /// One chunk of a recorded stream: its size, and when it arrived after the response head.
    public struct ChunkTiming: Codable, Sendable, Hashable {
        /// The chunk's size in bytes.
        public var bytes: Int
        /// Milliseconds from the response head to this chunk.
        public var atMilliseconds: Double

        public init(bytes: Int, atMilliseconds: Double) {
            self.bytes = bytes
            self.atMilliseconds = atMilliseconds
        }
    }

    /// Caching information (unused, but required).
    public struct Cache: Codable, Sendable, Hashable {
        public init() {}
    }

    /// Time spent in each phase, in milliseconds; `-1` where not measured.
    public struct Timings: Codable, Sendable, Hashable {
        public var send: Double
        public var wait: Double
        public var receive: Double
        public init(send: Double, wait: Double, receive: Double) {
            self.send = send
            self.wait = wait
            self.receive = receive
        }
    }
}

extension HAR {
    /// Reads an archive leniently (see ``read(from:)``), reporting which file, entry and field when it cannot be used.
    /// - Parameter url: The `.har` file.
    /// - Throws: ``FixtureError``.
    public static func load(from url: URL) throws -> HAR { try read(from: url).archive }

    /// The archive as deterministic, pretty-printed JSON.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }
}

/// A fixture is missing, malformed, or outside its directory.
public struct FixtureError: Error, Sendable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }

    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "missing required field \(path(context.codingPath)).\(key.stringValue)"
        case .typeMismatch(let type, let context): return "field \(path(context.codingPath)) is not a \(type)"
        case .valueNotFound(let type, let context): return "field \(path(context.codingPath)) is null, expected \(type)"
        case .dataCorrupted(let context):
            return "not valid JSON at \(path(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
}
