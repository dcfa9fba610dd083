import Foundation

/// A request as Konex sends it: a ``RequestHead`` and, for methods that have one, a body.
///
/// What adapters change, plugins and interceptors see, retriers judge and transports send. It reads like `URLRequest`,
/// so a closure written for one compiles for the other:
/// ```swift
/// client.request(GetProfile()).withAdapter { request in
///     var request = request
///     request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
///     return request
/// }
/// ```
/// Konex makes a `URLRequest` only where one is needed: `urlRequest`, which ``URLSessionTransport`` reads.
public struct TransportRequest: Sendable {
    /// The head.
    public var head: RequestHead

    /// The body; `nil` for none.
    public var body: Body?

    /// Creates a request.
    /// - Parameters:
    ///   - head: The head.
    ///   - body: The body, or `nil`.
    public init(head: RequestHead, body: Body? = nil) {
        self.head = head
        self.body = body
    }

    /// A Foundation request as Konex's: head, body, and the settings Konex passes on to URLSession.
    /// - Parameter request: A Foundation request.
    public init(_ request: URLRequest) {
        head = RequestHead(request)
        if let data = request.httpBody {
            body = .data(data)
        } else if let stream = request.httpBodyStream {
            body = Body(storage: .stream(InputStreamBox(stream)))
        } else {
            body = nil
        }
    }

    /// The URL.
    public var url: URL {
        get { head.url }
        set { head.url = newValue }
    }

    /// The method.
    public var method: HTTPMethod {
        get { head.method }
        set { head.method = newValue }
    }

    /// The method's name, as `URLRequest` spells it.
    public var httpMethod: String {
        get { head.httpMethod }
        set { head.httpMethod = newValue }
    }

    /// The header fields in order, repeats kept.
    public var headerFields: HTTPHeaders {
        get { head.headerFields }
        set { head.headerFields = newValue }
    }

    /// The fields as a dictionary, as `URLRequest` gives them: repeats joined by `","`.
    public var allHTTPHeaderFields: [String: String]? { head.allHTTPHeaderFields }

    /// A field's value by name in any case; repeated fields come back joined by `","`, as `URLRequest` joins them.
    /// - Parameter name: The field name.
    public func value(forHTTPHeaderField name: String) -> String? { head.value(forHTTPHeaderField: name) }

    /// Sets a field, replacing every field of that name; `nil` removes them.
    /// - Parameters:
    ///   - value: The value, or `nil`.
    ///   - name: The field name, in any case.
    public mutating func setValue(_ value: String?, forHTTPHeaderField name: String) {
        head.setValue(value, forHTTPHeaderField: name)
    }

    /// Adds a field after those already there, keeping any of the same name.
    /// - Parameters:
    ///   - value: The value.
    ///   - name: The field name.
    public mutating func addValue(_ value: String, forHTTPHeaderField name: String) {
        head.addValue(value, forHTTPHeaderField: name)
    }

    /// The body's bytes when it is in memory, as `URLRequest` spells it; setting replaces the body.
    public var httpBody: Data? {
        get { body?.data }
        set { body = newValue.map(Body.data) }
    }

    /// The timeout in seconds, as `URLRequest` spells it; `.infinity` for none.
    public var timeoutInterval: TimeInterval {
        get { head.timeoutInterval }
        set { head.timeoutInterval = newValue }
    }

    /// How a cache may answer (``HTTPCache`` and URLSession read it).
    public var cachePolicy: URLRequest.CachePolicy {
        get { head.cachePolicy }
        set { head.cachePolicy = newValue }
    }

    /// Whether cookies from the session's storage go with the request.
    public var httpShouldHandleCookies: Bool {
        get { head.httpShouldHandleCookies }
        set { head.httpShouldHandleCookies = newValue }
    }

    /// This request as Foundation's, body included, made when asked (URLSession's transport asks).
    public var urlRequest: URLRequest {
        var request = head.urlRequest
        switch body?.storage {
        case .data(let data): request.httpBody = data
        case .file(let file): request.httpBodyStream = InputStream(url: file)
        case .stream(let box): request.httpBodyStream = box.stream
        case .chunks, nil: break  // sent as it comes by a transport that can (see `Body.chunks(_:)`)
        }
        return request
    }

    /// A request body: bytes, a file, or a stream read once.
    public struct Body: Sendable {
        enum Storage: Sendable {
            case data(Data)
            case file(URL)
            case stream(InputStreamBox)
            // Boxed: `AsyncThrowingStream` is a resilient type, whose unknown layout made every request's body (and
            // every copy of a request) go through value witnesses: +3,500 instructions a mocked request.
            case chunks(ChunksBox)
        }

        let storage: Storage
        /// What must live as long as the body: a temporary file's owner, which removes it.
        let keepsAlive: (any Sendable & AnyObject)?

        init(storage: Storage, keepsAlive: (any Sendable & AnyObject)? = nil) {
            self.storage = storage
            self.keepsAlive = keepsAlive
        }

        /// Bytes in memory.
        /// - Parameter data: The body.
        public static func data(_ data: Data) -> Body { Body(storage: .data(data)) }

        /// The contents of a file, read as the request goes.
        /// - Parameter file: A file URL.
        public static func file(_ file: URL) -> Body { Body(storage: .file(file)) }

        /// Bytes written as they are produced, while the answer may already be arriving (a body streamed in both
        /// directions at once); sent chunked, with no `Content-Length`, once.
        ///
        /// `AsyncHTTPClientTransport` sends it as it comes; `URLSessionTransport` refuses it (a `URLRequest` carries
        /// a body stream only as a Foundation `InputStream`, which FoundationNetworking cannot make from async code).
        /// It cannot be sent again, so a redirect that would resend it, or a retry, returns the answer instead.
        /// ```swift
        /// let (chunks, writer) = AsyncThrowingStream.makeStream(of: Data.self)
        /// let request = TransportRequest(head: head, body: .chunks(chunks))
        /// writer.yield(Data("hello".utf8)); writer.finish()
        /// ```
        /// - Parameter chunks: The body's bytes, chunk by chunk; an error thrown by it fails the request.
        public static func chunks(_ chunks: AsyncThrowingStream<Data, any Error>) -> Body {
            Body(storage: .chunks(ChunksBox(chunks)))
        }

        /// Why a body of ``chunks(_:)`` cannot be read whole before it is sent.
        public struct SentAsItComes: Error, CustomStringConvertible {
            public var description: String {
                "a body of chunks is written as it comes: it cannot be read whole before it is sent"
            }
        }

        /// The body's size in bytes when it is known without reading it: bytes in memory, or a file's size; `nil` for
        /// a stream.
        public var byteCount: Int? {
            switch storage {
            case .data(let data): data.count
            case .file(let file): Int(exactly: BodyFile.size(of: file))
            case .stream, .chunks: nil
            }
        }

        /// Whether the body can be sent again (after a redirect or a retry): bytes and files can, streams and chunks
        /// cannot.
        public var canBeSentAgain: Bool {
            switch storage {
            case .data, .file: true
            case .stream, .chunks: false
            }
        }

        /// The chunks of a body of ``chunks(_:)``, for a transport that sends them as they come; `nil` for another.
        public var chunks: AsyncThrowingStream<Data, any Error>? {
            if case .chunks(let box) = storage { return box.chunks }
            return nil
        }

        /// The bytes when the body is in memory.
        public var data: Data? {
            if case .data(let data) = storage { return data }
            return nil
        }

        /// The whole body as bytes: a file read, a stream drained (so it cannot be sent again). What an adapter that
        /// signs the payload reads: a body compressed past 1 MiB is in a file, and ``TransportRequest/httpBody`` is
        /// `nil` for it.
        /// - Parameter limit: The most bytes to read.
        /// - Throws: ``ResponseBody/TooLong`` past `limit`; the file's or stream's errors; ``SentAsItComes`` for a
        ///   body of ``chunks(_:)``, which exists only as it is sent (``collected(upTo:)`` drains one).
        public func collect(upTo limit: Int) throws -> Data {
            let data: Data
            switch storage {
            case .data(let bytes): data = bytes
            case .file(let file): data = try Data(contentsOf: file)
            case .stream(let box): data = try box.drain(upTo: limit)
            case .chunks: throw SentAsItComes()
            }
            guard data.count <= limit else { throw ResponseBody.TooLong(limit: limit) }
            return data
        }

        /// The whole body as bytes, a body of ``chunks(_:)`` drained too (so it cannot be sent): for a test double
        /// that records what a request carried.
        /// - Parameter limit: The most bytes to read.
        /// - Throws: ``ResponseBody/TooLong`` past `limit`; the chunks' own error.
        public func collected(upTo limit: Int) async throws -> Data {
            guard case .chunks(let box) = storage else { return try collect(upTo: limit) }
            var data = Data()
            for try await chunk in box.chunks {
                data.append(chunk)
                guard data.count <= limit else { throw ResponseBody.TooLong(limit: limit) }
            }
            return data
        }
    }
}

/// The chunks of a body of ``TransportRequest/Body/chunks(_:)``, behind one reference.
final class ChunksBox: Sendable {
    let chunks: AsyncThrowingStream<Data, any Error>
    init(_ chunks: AsyncThrowingStream<Data, any Error>) { self.chunks = chunks }
}

/// A Foundation input stream carried across tasks: it is read once, by one transport.
final class InputStreamBox: @unchecked Sendable {
    let stream: InputStream

    init(_ stream: InputStream) { self.stream = stream }

    func drain(upTo limit: Int) throws -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        stream.open()
        defer { stream.close() }
        while data.count <= limit {
            let read = stream.read(&buffer, maxLength: buffer.count)
            if read < 0 { throw stream.streamError ?? CocoaError(.fileReadUnknown) }
            if read == 0 { break }
            data.append(buffer, count: read)
        }
        return data
    }
}

extension TransportRequest {
    /// Scheme, host and port, as one string: what per-host limits and budgets count by. Scheme and host are
    /// case-folded and the scheme's default port is left out, so `https://API.test:443` and `https://api.test` are
    /// one origin.
    var origin: String {
        let url = self.url
        let scheme = url.scheme?.lowercased() ?? ""
        let defaultPort =
            switch scheme {
            case "http", "ws": 80
            case "https", "wss": 443
            default: -1
            }
        let port = url.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
        return "\(scheme)://\(url.host?.lowercased() ?? "")\(port)"
    }
}
