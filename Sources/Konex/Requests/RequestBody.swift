import Foundation

/// A typed request body; Konex sets `Content-Type` to match unless the request sets it itself.
///
/// ```swift
/// var body: RequestBody? { .json(NewPost(title: "Hello")) }
/// var body: RequestBody? { .form(["user": "ada", "remember": true]) }
/// var body: RequestBody? { .data(png, contentType: "image/png") }
/// ```
public struct RequestBody: Sendable {
    enum Kind: Sendable {
        case json(any Encodable & Sendable, encoder: JSONEncoder?)
        case form(Parameters)
        case data(Data, contentType: String)
        case multipart(MultipartFormData)
        case file(URL, contentType: String)
        case chunks(ChunksBox, contentType: String)  // boxed: see `TransportRequest.Body.Storage`
        /// A value that could not be encoded where it was given (``DataRequest/body(json:encoder:)``): why.
        case unencodable(String)
    }

    let kind: Kind

    /// An `Encodable` value encoded as JSON (`application/json`).
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - encoder: An encoder for this body only; the client's `encoder` by default.
    public static func json(_ value: some Encodable & Sendable, encoder: JSONEncoder? = nil) -> RequestBody {
        RequestBody(kind: .json(value, encoder: encoder))
    }

    /// Parameters encoded as `application/x-www-form-urlencoded`, with the client's ``URLEncoding``.
    /// - Parameter parameters: The fields.
    public static func form(_ parameters: Parameters) -> RequestBody { RequestBody(kind: .form(parameters)) }

    /// Raw bytes with the given content type.
    /// - Parameters:
    ///   - data: The bytes to send.
    ///   - contentType: The `Content-Type`; `application/octet-stream` by default.
    public static func data(_ data: Data, contentType: String = "application/octet-stream") -> RequestBody {
        RequestBody(kind: .data(data, contentType: contentType))
    }

    /// Text encoded as UTF-8.
    /// - Parameters:
    ///   - text: The text to send.
    ///   - contentType: The `Content-Type`; `text/plain; charset=utf-8` by default.
    public static func text(_ text: String, contentType: String = "text/plain; charset=utf-8") -> RequestBody {
        RequestBody(kind: .data(Data(text.utf8), contentType: contentType))
    }

    /// A file's contents, memory-mapped rather than read into memory where the platform allows.
    /// - Parameters:
    ///   - url: A file URL.
    ///   - contentType: The `Content-Type`; `application/octet-stream` by default.
    public static func file(_ url: URL, contentType: String = "application/octet-stream") -> RequestBody {
        RequestBody(kind: .file(url, contentType: contentType))
    }

    /// Bytes sent as they are produced, chunked, while the answer may already be streaming back (see
    /// ``TransportRequest/Body/chunks(_:)``: `AsyncHTTPClientTransport` sends them, `URLSessionTransport` refuses
    /// them). Sent once: a retry or a redirect that would send it again returns the answer instead.
    /// ```swift
    /// let (chunks, writer) = AsyncThrowingStream.makeStream(of: Data.self)
    /// let replies = try await client.request(Echo()).body(.chunks(chunks)).stream()   // Echo: a POST endpoint
    /// writer.yield(Data("ping".utf8))   // and read the echo from `replies` before the next one
    /// ```
    /// - Parameters:
    ///   - chunks: The body, chunk by chunk; an error it throws fails the request.
    ///   - contentType: The `Content-Type`; `application/octet-stream` by default.
    public static func chunks(
        _ chunks: AsyncThrowingStream<Data, any Error>, contentType: String = "application/octet-stream"
    ) -> RequestBody {
        RequestBody(kind: .chunks(ChunksBox(chunks), contentType: contentType))
    }

    /// A `multipart/form-data` body (RFC 7578).
    /// - Parameter form: The parts.
    public static func multipart(_ form: MultipartFormData) -> RequestBody { RequestBody(kind: .multipart(form)) }

    /// Why a value did not encode as JSON, with the coding path of an invalid value.
    static func reason(_ error: any Error) -> String {
        if let error = error as? EncodingError, case .invalidValue(let value, let context) = error {
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return "invalid value \(value) at \(JSONKeyPath.render(path)): \(context.debugDescription)"
        }
        return String(describing: error)
    }
}
