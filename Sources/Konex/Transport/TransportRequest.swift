import Foundation

/// What a transport sends: a ``RequestHead`` and, for methods that have one, a body.
public struct TransportRequest: Sendable {
    /// The head.
    public var head: RequestHead {
        didSet {
            // The body was the old head's request's: keep it apart before that request is let go.
            if bodyIsInOrigin {
                storedBody = oldValue.origin.flatMap(Self.body(of:))
                bodyIsInOrigin = false
            }
        }
    }

    /// The body; `nil` for none.
    public var body: Body? {
        get { bodyIsInOrigin ? head.origin.flatMap(Self.body(of:)) : storedBody }
        set {
            storedBody = newValue
            bodyIsInOrigin = false
        }
    }

    private var storedBody: Body?
    /// Whether the body is the head's request's, read only when a transport asks (URLSession never does).
    private var bodyIsInOrigin: Bool

    /// Creates a request.
    /// - Parameters:
    ///   - head: The head.
    ///   - body: The body, or `nil`.
    public init(head: RequestHead, body: Body? = nil) {
        self.head = head
        storedBody = body
        bodyIsInOrigin = false
    }

    /// The request Konex built, head and body.
    /// - Parameter request: A Foundation request.
    public init(_ request: URLRequest) {
        head = RequestHead(request)
        storedBody = nil
        bodyIsInOrigin = true
    }

    private static func body(of request: URLRequest) -> Body? {
        if let data = request.httpBody { return .data(data) }
        if let stream = request.httpBodyStream { return Body(storage: .stream(InputStreamBox(stream))) }
        return nil
    }

    /// The URL.
    public var url: URL { head.url }

    /// The method.
    public var method: HTTPMethod { head.method }

    /// A field's value by name in any case.
    /// - Parameter name: The field name.
    public func value(forHTTPHeaderField name: String) -> String? { head.value(forHTTPHeaderField: name) }

    /// This request as Foundation's, body included: the one Konex built when nothing changed since.
    public var urlRequest: URLRequest {
        if bodyIsInOrigin, let origin = head.origin { return origin }
        var request = head.urlRequest
        switch storedBody?.storage {
        case .data(let data): request.httpBody = data
        case .file(let file): request.httpBodyStream = InputStream(url: file)
        case .stream(let box): request.httpBodyStream = box.stream
        case nil:
            // The head's request may have brought a body; this request has none.
            request.httpBody = nil
            request.httpBodyStream = nil
        }
        return request
    }

    /// A request body: bytes, a file, or a stream read once.
    public struct Body: Sendable {
        enum Storage: Sendable {
            case data(Data)
            case file(URL)
            case stream(InputStreamBox)
        }

        let storage: Storage

        /// Bytes in memory.
        /// - Parameter data: The body.
        public static func data(_ data: Data) -> Body { Body(storage: .data(data)) }

        /// The contents of a file, read as the request goes.
        /// - Parameter file: A file URL.
        public static func file(_ file: URL) -> Body { Body(storage: .file(file)) }

        /// Whether the body can be sent again (after a redirect or a retry): bytes and files can, a stream cannot.
        public var canBeSentAgain: Bool {
            if case .stream = storage { return false }
            return true
        }

        /// The bytes when the body is in memory.
        public var data: Data? {
            if case .data(let data) = storage { return data }
            return nil
        }

        /// The whole body as bytes: a file read, a stream drained (so it cannot be sent again).
        /// - Parameter limit: The most bytes to read.
        /// - Throws: ``ResponseBody/TooLong`` past `limit`; the file's or stream's errors.
        public func collect(upTo limit: Int) throws -> Data {
            let data: Data
            switch storage {
            case .data(let bytes): data = bytes
            case .file(let file): data = try Data(contentsOf: file)
            case .stream(let box): data = try box.drain(upTo: limit)
            }
            guard data.count <= limit else { throw ResponseBody.TooLong(limit: limit) }
            return data
        }
    }
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
