import Foundation

// `responseString(encoding:)` in every form side by side: async, then the callback forms (on the caller's actor, or
// on a queue). See <doc:ResponsesAndDecoding> for where each runs.
extension DataRequest {
    /// Sends the request and returns the body as text, in the response's charset (UTF-8 when none is given).
    /// - Parameter encoding: Forces an encoding instead of the response's charset.
    /// - Throws: ``KonexError`` with stage `.decoding` when the bytes are not valid in that encoding.
    public consuming func responseString(encoding: String.Encoding? = nil) async throws -> String {
        try Self.serialized(try await execute()) { answer in
            let encoding =
                encoding ?? answer.response.value(forHTTPHeaderField: "Content-Type")
                .flatMap(MediaType.charset(of:)).flatMap(Self.encoding(named:)) ?? .utf8
            guard let text = String(data: answer.processedData, encoding: encoding) else {
                throw KonexError.decoding(
                    StringDecodingFailure(encoding: encoding), keyPath: nil, request: answer.request,
                    response: answer.response, data: answer.data)
            }
            return text
        }
    }

    /// Sends the request and delivers the body as text, on the caller's actor.
    /// - Parameters:
    ///   - encoding: Forces an encoding instead of the response's charset.
    ///   - isolation: The caller's actor, where the callbacks run (leave the default).
    ///   - onSuccess: Called once with the text.
    ///   - onError: Called once with a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func responseString(
        encoding: String.Encoding? = nil, isolation: isolated (any Actor)? = #isolation,
        onSuccess: @escaping (String) -> Void, onError: @escaping (KonexError) -> Void
    ) -> RequestHandle {
        deliver(
            isolation: isolation, { try await $0.responseString(encoding: encoding) },
            completion: split(onSuccess, onError))
    }

    /// Sends the request and delivers the body as text on `queue`.
    /// - Parameters:
    ///   - encoding: Forces an encoding instead of the response's charset.
    ///   - queue: Where the callbacks run; `nil` for the client's `callbackQueue`.
    ///   - onSuccess: Called once with the text.
    ///   - onError: Called once with a ``KonexError``.
    /// - Returns: A handle to cancel the request or wait for it.
    @discardableResult
    public func responseString(
        encoding: String.Encoding? = nil, queue: DispatchQueue?, onSuccess: @escaping @Sendable (String) -> Void,
        onError: @escaping @Sendable (KonexError) -> Void
    ) -> RequestHandle {
        deliver(on: queue, { try await $0.responseString(encoding: encoding) }, completion: split(onSuccess, onError))
    }

    /// The text encoding a `charset` parameter names; `nil` for one Konex does not read.
    private static func encoding(named charset: String) -> String.Encoding? {
        switch charset {
        case "utf-8", "utf8": .utf8
        case "iso-8859-1", "latin1", "iso-latin-1": .isoLatin1
        case "us-ascii", "ascii": .ascii
        case "utf-16": .utf16
        case "utf-16le": .utf16LittleEndian
        case "utf-16be": .utf16BigEndian
        case "windows-1252", "cp1252": .windowsCP1252
        default: nil
        }
    }
}
