import Foundation

extension KonexError {
    static func invalidRequest(_ message: String, method: HTTPMethod?, url: URL? = nil, underlying: (any Error)? = nil)
        -> KonexError
    {
        KonexError(stage: .invalidRequest, message: message, method: method, url: url, underlyingError: underlying)
    }

    static func cancelled(_ request: TransportRequest?, method: HTTPMethod?, url: URL?) -> KonexError {
        KonexError(stage: .cancelled, message: "the request was cancelled", method: method, url: url, request: request)
    }

    /// A transport failure, recognising cancellation and naming the URLError when there is one.
    static func transport(_ error: any Error, request: TransportRequest) -> KonexError {
        let method = request.method
        if error is CancellationError || (error as? URLError)?.code == .cancelled {
            return .cancelled(request, method: method, url: request.url)
        }
        if let konex = error as? KonexError { return konex }
        if let failure = error as? WebSocketFailure {
            let stage: Stage =
                failure.kind == .protocolViolation || failure.kind == .messageTooBig ? .protocolViolation : .connection
            return KonexError(
                stage: stage, message: failure.message, method: method, url: request.url, request: request,
                underlyingError: failure)
        }
        if let refused = error as? WebSocketHandshakeRefused {
            return KonexError(
                stage: .handshake, message: refused.description, method: method, url: request.url, request: request,
                response: refused.response, data: refused.data, underlyingError: refused)
        }
        let message: String
        if let urlError = error as? URLError {
            message = "\(urlError.code.name) (URLError \(urlError.code.rawValue)): \(urlError.localizedDescription)"
        } else if let failure = error as? TransportFailure {
            message =
                "\(failure.kind): \(failure.underlying.map { String(describing: $0).prefix(300) } ?? "no response")"
        } else {
            message = String(describing: error)
        }
        return KonexError(
            stage: .transport, message: message, method: method, url: request.url, request: request,
            underlyingError: error)
    }

    /// A decoding failure with the coding path and a readable reason.
    static func decoding(
        _ error: any Error, keyPath: JSONKeyPath?, request: TransportRequest, response: ResponseHead, data: Data
    ) -> KonexError {
        var path = keyPath?.components ?? []
        var reason = String(describing: error)
        if let decodingError = error as? DecodingError {
            let (codingPath, text) = DecodingErrorDescription.describe(decodingError)
            path += codingPath
            reason = text
        } else if let scanError = error as? JSONScanner.Failure {
            // The scanner names the place itself: a byte offset, or how far the path got.
            path = []
            reason = scanError.description
            if scanError.isSyntaxError, let keyPath {
                reason += " (reading the key path \(JSONKeyPath.render(keyPath.components)))"
            }
        }
        let pathText = JSONKeyPath.render(path)
        return KonexError(
            stage: .decoding, message: pathText.isEmpty ? reason : "\(reason) at \(pathText)",
            method: request.method, url: request.url, request: request, response: response,
            data: data, underlyingError: error, codingPath: pathText)
    }
}

extension URLError.Code {
    /// A readable name for the common codes, e.g. `timedOut`.
    var name: String {
        switch self {
        case .timedOut: "timedOut"
        case .cannotConnectToHost: "cannotConnectToHost"
        case .networkConnectionLost: "networkConnectionLost"
        case .notConnectedToInternet: "notConnectedToInternet"
        case .cannotFindHost: "cannotFindHost"
        case .badServerResponse: "badServerResponse"
        case .cancelled: "cancelled"
        case .badURL: "badURL"
        case .unsupportedURL: "unsupportedURL"
        case .httpTooManyRedirects: "httpTooManyRedirects"
        case .userAuthenticationRequired: "userAuthenticationRequired"
        case .dataLengthExceedsMaximum: "dataLengthExceedsMaximum"
        default: "URLError"
        }
    }
}

/// Turns a `DecodingError` into a coding path and a sentence a developer can act on.
enum DecodingErrorDescription {
    static func describe(_ error: DecodingError) -> (path: [String], reason: String) {
        switch error {
        case .typeMismatch(let type, let context):
            return (names(context.codingPath), "type mismatch: expected \(type): \(context.debugDescription)")
        case .valueNotFound(let type, let context):
            return (names(context.codingPath), "value not found: expected \(type), found null")
        case .keyNotFound(let key, let context):
            return (names(context.codingPath), "key not found: \"\(key.stringValue)\"")
        case .dataCorrupted(let context):
            let underlying = (context.underlyingError as NSError?)?.localizedDescription
            return (names(context.codingPath), "data corrupted: \(underlying ?? context.debugDescription)")
        @unknown default:
            return ([], String(describing: error))
        }
    }

    private static func names(_ path: [any CodingKey]) -> [String] {
        path.map { key in key.intValue.map { "[\($0)]" } ?? key.stringValue }
    }
}
