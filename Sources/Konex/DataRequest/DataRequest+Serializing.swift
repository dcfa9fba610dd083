import Foundation

// The serializing step shared by every terminal (the pipeline's last, after `execute()`): the body decoded as a model,
// read as text or JSON, any failure a decoding-stage `KonexError`. The terminals themselves are in one file per family
// (DataRequest+ResponseData, +ResponseString, +ResponseJSON, +ResponseObject, +ResponseArray).
extension DataRequest {
    /// ``response(of:atKeyPath:decoder:errorType:)`` without the envelope, for the terminals that return the value.
    // Inlined into each terminal: one async frame fewer on every request.
    @inline(__always) func value<T: Decodable & Sendable>(
        of type: T.Type, atKeyPath keyPath: String?, decoder: JSONDecoder?,
        errorType: (any (Decodable & Sendable).Type)?
    ) async throws -> T {
        let request = decodingErrors(as: errorType)
        return try request.decoded(type, from: try await request.execute(), atKeyPath: keyPath, decoder: decoder)
    }

    /// Serializing for the decoding terminals: `type` from the answer's body at `keyPath`, with `decoder` or the
    /// client's, any failure a decoding-stage ``KonexError``. Synchronous, so it runs wherever its caller does: off the
    /// caller's actor for `Sendable` models, on it for models isolated there (DataRequest+CallerIsolation.swift).
    @inline(__always) func decoded<T: Decodable>(
        _ type: T.Type, from answer: ReceivedResponse, atKeyPath keyPath: String?, decoder: JSONDecoder?
    ) throws -> T {
        let decoder = decoder ?? client.decoder
        let path = keyPath.map(JSONKeyPath.init)
        return try Self.serialized(answer) { answer in
            try Self.decode(type, from: answer, keyPath: path, decoder: decoder)
        }
    }

    /// Serializing: runs the pipeline, then `body`, mapping any error to a decoding-stage ``KonexError``.
    func serialize<Value: Sendable>(_ body: (ReceivedResponse) throws -> Value) async throws -> Response<Value> {
        let answer = try await execute()
        return Response(try Self.serialized(answer, body), of: answer)
    }

    /// Runs `body` on a finished answer, mapping any error to a decoding-stage ``KonexError``.
    static func serialized<Value>(_ answer: ReceivedResponse, _ body: (ReceivedResponse) throws -> Value) throws
        -> Value
    {
        do {
            return try body(answer)
        } catch var error as KonexError {
            error.redaction = error.redaction ?? answer.redaction?.redaction
            throw error
        } catch {
            var failure = KonexError.decoding(
                error, keyPath: nil, request: answer.request, response: answer.response, data: answer.data)
            failure.attempt = answer.timing.attempt
            failure.redaction = answer.redaction?.redaction
            throw failure
        }
    }

    static func decode<T: Decodable>(
        _ type: T.Type, from answer: ReceivedResponse, keyPath: JSONKeyPath?, decoder: JSONDecoder
    )
        throws -> T
    {
        // `Empty` means "the body does not matter": whatever arrived (JSON or not) is accepted unread. (Compared by
        // identifier: `==` on metatypes wraps both in optionals, a metadata lookup on every response.)
        if ObjectIdentifier(type) == ObjectIdentifier(Empty.self) { return ignoredBody(as: type) }
        let data = answer.processedData
        if (data.first.map(Self.isWhitespace) ?? true) && data.allSatisfy(Self.isWhitespace) {
            return try emptyValue(of: type, for: answer)
        }
        do {
            return try JSONTape.decode(type, from: data, at: keyPath, with: decoder)
        } catch {
            throw KonexError.decoding(
                error, keyPath: keyPath, request: answer.request,
                response: answer.response, data: answer.data)
        }
    }

    // The two helpers below are not inlined into `decode`: a `T?` there makes every response look up `Optional<T>`'s
    // metadata at run time (about a thousand instructions a request, in a hash map whose probes depend on the
    // binary's layout), for paths taken only by `Empty` and by empty bodies.

    /// `Empty()` as `T`, which is `Empty` (checked by the caller).
    @inline(never)
    private static func ignoredBody<T>(as type: T.Type) -> T { Empty() as! T }

    /// The value of an empty body: an ``EmptyDecodable`` type's `emptyValue`, else the error that names the body.
    @inline(never)
    private static func emptyValue<T: Decodable>(of type: T.Type, for answer: ReceivedResponse) throws -> T {
        if let empty = type as? any EmptyDecodable.Type, let value = empty.emptyValue as? T { return value }
        throw KonexError.decoding(
            EmptyBodyFailure(type: type, statusCode: answer.response.statusCode), keyPath: nil,
            request: answer.request, response: answer.response, data: answer.data)
    }

    /// JSON's four whitespace bytes. A body is checked byte by byte only when it starts with one (rarely).
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}

/// A required value was asked of a response without a body.
struct EmptyBodyFailure: Error, CustomStringConvertible {
    let type: Any.Type
    let statusCode: Int
    var description: String {
        "the response (\(statusCode)) has an empty body but a \(type) is required; decode Empty or an Optional to accept no body"
    }
}

/// The body's bytes are not valid in the text encoding.
struct StringDecodingFailure: Error, CustomStringConvertible {
    let encoding: String.Encoding
    var description: String { "the body is not valid \(encoding) text" }
}

extension DataRequest {
}
