import Foundation

extension DataRequest {
    /// Builds the request from the endpoint: URL, query, headers, body, timeout (the pipeline's build). No `URLRequest`
    /// is made on the way: a transport that wants one asks for it.
    /// - Throws: ``KonexError`` with stage `.invalidRequest`.
    /// - Parameter compressing: Whether to compress the body as ``compressingBody(_:minimumBytes:)`` asked (a retry
    ///   reuses the first attempt's compressed body instead).
    func makeRequest(compressing: Bool = true) throws -> TransportRequest {
        var request: TransportRequest
        // The endpoint's timeout is read here, where the endpoint is at hand: `endpoint` copies the existential.
        var endpointTimeout: Duration?
        switch source {
        case .url(let url):
            try Self.checkScheme(url, method: .get)
            try refuseCallSiteBody(method: .get, url: url)
            request = TransportRequest(head: RequestHead(method: .get, url: url))
        case .ready(let given):
            let method = given.method
            try refuseCallSiteBody(method: method, url: given.url)
            let url = given.url
            if url.absoluteString == "about:blank" {
                throw KonexError.invalidRequest("the URLRequest has no URL", method: method)
            }
            try Self.checkScheme(url, method: method)
            if given.body != nil, !method.allowsBody {
                throw KonexError.invalidRequest("a \(method) request cannot carry a body", method: method, url: url)
            }
            for (name, value) in given.headerFields { try Self.checkHeader(name, value, method: method, url: url) }
            request = given
        case .endpoint(let endpoint):
            request = try build(endpoint)
            endpointTimeout = endpoint.timeout
        }
        if !client.headers.isEmpty {
            try Self.checkHeaders(client.headers, method: request.method, url: request.url)
            for (name, value) in client.headers where request.value(forHTTPHeaderField: name) == nil {
                request.head.headerFields.append(name, value)
            }
        }
        // A given request's own timeout stands unless the call or the client sets one.
        request.head.timeout =
            timeout ?? endpointTimeout ?? client.timeout ?? request.head.timeout ?? Self.defaultTimeout
        if compressing, let setting = bodyCompression {
            request = try Self.compressed(request, as: setting.compression, minimumBytes: setting.minimumBytes)
        }
        return request
    }

    /// A URL or a ready request carries its own body: a call-site body given to one would be lost, so it is refused.
    private func refuseCallSiteBody(method: HTTPMethod, url: URL) throws {
        guard callSiteBody != nil else { return }
        throw KonexError.invalidRequest(
            "body(_:) gives an endpoint or a path its body; a request made from a URL or a URLRequest carries its own",
            method: method, url: url)
    }

    /// The timeout of a request that sets none: URLRequest's default, which every transport honours alike.
    static let defaultTimeout = Duration.seconds(60)

    private func build(_ endpoint: any KonexRequest) throws -> TransportRequest {
        let method = endpoint.method
        try EndpointShape.check(endpoint, method: method)
        var url = try Self.resolve(endpoint.path, against: client.basePrefix, method: method)
        let body = callSiteBody ?? endpoint.body
        var parametersBody: Data?
        if let parameters = endpoint.parameters, !parameters.isEmpty {
            if method.encodesParametersInQuery || body != nil || !method.allowsBody {
                url = try Self.appendingQuery(
                    client.urlEncoding.percentEncodedQuery(parameters), to: url, method: method)
            } else {
                parametersBody = try encode(JSON.object(parameters), with: client.encoder, method: method, url: url)
            }
        }
        let headers = endpoint.headers ?? [:]
        try Self.checkHeaders(headers, method: method, url: url)
        var fields: [(name: String, value: String)] = []
        if !headers.isEmpty {
            fields.reserveCapacity(headers.count + 1)
            for (name, value) in headers { fields.append((name, value)) }
        }
        // The body and its type first, then the request made once: changing a request in place copies it.
        var payload: TransportRequest.Body?
        var contentType: String?
        if let body {
            guard method.allowsBody else {
                throw KonexError.invalidRequest("a \(method) request cannot carry a body", method: method, url: url)
            }
            if case .chunks(let box, let type) = body.kind {
                (payload, contentType) = (TransportRequest.Body(storage: .chunks(box)), type)
            } else {
                let (data, type) = try encode(body, method: method, url: url)
                (payload, contentType) = (.data(data), type)
            }
        } else if let parametersBody {
            (payload, contentType) = (.data(parametersBody), "application/json")
        }
        if let contentType, !fields.contains(where: { HTTPHeaders.equal($0.name, "Content-Type") }) {
            fields.append(("Content-Type", contentType))
        }
        return TransportRequest(
            head: RequestHead(method: method, url: url, headerFields: HTTPHeaders(keepingRepeats: fields)),
            body: payload)
    }

    private func encode(_ body: RequestBody, method: HTTPMethod, url: URL) throws -> (Data, String) {
        switch body.kind {
        case .json(let value, let encoder):
            return (try encode(value, with: encoder ?? client.encoder, method: method, url: url), "application/json")
        case .form(let parameters):
            return (
                Data(client.urlEncoding.percentEncodedQuery(parameters).utf8),
                "application/x-www-form-urlencoded; charset=utf-8"
            )
        case .data(let data, let contentType):
            return (data, contentType)
        case .file(let file, let contentType):
            do {
                return (try Data(contentsOf: file, options: .alwaysMapped), contentType)
            } catch {
                throw KonexError(
                    stage: .fileSystem,
                    message: "cannot read the body file \(file.path): \(error.localizedDescription)",
                    method: method, url: url, underlyingError: error)
            }
        case .unencodable(let reason):
            throw KonexError.invalidRequest(
                "the body could not be encoded as JSON: \(reason)", method: method, url: url)
        case .chunks:
            throw KonexError.invalidRequest(
                "a body of chunks is sent as it comes, not encoded", method: method, url: url)
        case .multipart(let form):
            do {
                return (try form.encode(), form.contentType)
            } catch {
                throw KonexError.invalidRequest(
                    "the multipart body could not be built: \(error)", method: method, url: url, underlying: error)
            }
        }
    }

    private func encode(_ value: any Encodable, with encoder: JSONEncoder, method: HTTPMethod, url: URL) throws -> Data
    {
        do {
            return try encoder.encode(value)
        } catch {
            throw KonexError.invalidRequest(
                "the body could not be encoded as JSON: \(RequestBody.reason(error))", method: method, url: url,
                underlying: error)
        }
    }

    /// Joins `path` to `base`, or parses it when it is absolute.
    static func resolve(_ path: String, against base: URL?, method: HTTPMethod) throws -> URL {
        try resolve(path, against: base.map(CheckedBase.init), method: method)
    }

    /// Joins `path` to a checked base (its text without trailing slashes), or parses it when it is absolute.
    static func resolve(_ path: String, against base: CheckedBase?, method: HTTPMethod) throws -> URL {
        if path.isEmpty { throw KonexError.invalidRequest("the request path is empty", method: method) }
        if hasScheme(path) {
            guard let url = URL(string: String(URLText.encoded(path[...]))) else {
                throw KonexError.invalidRequest("\"\(path)\" is not a valid URL", method: method)
            }
            try checkScheme(url, method: method)
            return url
        }
        guard let base else {
            throw KonexError.invalidRequest(
                "the relative path \"\(path)\" needs a client baseURL, and this client has none", method: method)
        }
        // The base's scheme and host were checked once; a path joined after its "/" cannot change them.
        if let problem = base.problem { throw problem }
        if let known = base.joinedURL(for: path) { return known }
        var joined = base.prefix
        joined += "/"
        joined += URLText.encoded(path.drop(while: { $0 == "/" }))
        guard let url = URL(string: joined) else {
            throw KonexError.invalidRequest("\"\(joined)\" is not a valid URL", method: method)
        }
        base.remember(url, for: path)
        return url
    }

    /// `scheme://…`, or one of the schemes written without slashes.
    private static func hasScheme(_ path: String) -> Bool {
        // Byte-wise: this runs for every request.
        let bytes = path.utf8
        var length = 0
        for byte in bytes {
            if byte == UInt8(ascii: ":") { break }
            let isLetter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            let isOther =
                (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            guard isLetter || (length > 0 && isOther) else { return false }
            length += 1
        }
        guard length > 0, length < bytes.count else { return false }
        let rest = bytes.dropFirst(length)
        if rest.starts(with: "://".utf8) { return true }
        let scheme = String(path.prefix(length)).lowercased()
        return ["mailto", "data", "file", "javascript", "tel"].contains(scheme)
    }

    static func checkScheme(_ url: URL, method: HTTPMethod) throws {
        let scheme = url.scheme?.lowercased()
        // ws and wss are for webSocket(); a WebSocket transport opens them, an HTTP transport refuses them itself.
        guard scheme == "http" || scheme == "https" || scheme == "ws" || scheme == "wss" else {
            throw KonexError.invalidRequest(
                "unsupported URL scheme \"\(url.scheme ?? "")\": Konex sends http, https, ws and wss requests only",
                method: method, url: url)
        }
        guard let host = url.host, !host.isEmpty else {
            throw KonexError.invalidRequest("the URL has no host", method: method, url: url)
        }
    }

    private static func appendingQuery(_ query: String, to url: URL, method: HTTPMethod) throws -> URL {
        if query.isEmpty { return url }
        var text = url.absoluteString
        var fragment = ""
        if let hash = text.firstIndex(of: "#") {
            fragment = String(text[hash...])
            text = String(text[..<hash])
        }
        text += text.contains("?") ? (text.hasSuffix("?") || text.hasSuffix("&") ? "" : "&") : "?"
        text += query + fragment
        guard let result = URL(string: text) else {
            throw KonexError.invalidRequest(
                "the parameters produce an invalid URL \"\(text)\"", method: method, url: url)
        }
        return result
    }

    /// Rejects header names that are not tokens and values with CR, LF or NUL (header injection).
    static func checkHeaders(_ headers: [String: String], method: HTTPMethod, url: URL?) throws {
        if headers.isEmpty { return }
        for (name, value) in headers { try checkHeader(name, value, method: method, url: url) }
    }

    /// Whether `byte` may appear in a token (RFC 9110 §5.6.2): a visible ASCII character but a delimiter.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0...0x20, 0x7F...: false
        case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "@"),
            UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"), UInt8(ascii: "\\"), UInt8(ascii: "\""),
            UInt8(ascii: "/"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "?"), UInt8(ascii: "="),
            UInt8(ascii: "{"), UInt8(ascii: "}"):
            false
        default: true
        }
    }

    /// Rejects a header name that is not a token and a value with CR, LF or NUL.
    static func checkHeader(_ name: String, _ value: String, method: HTTPMethod, url: URL?) throws {
        let validName = !name.isEmpty && name.utf8.allSatisfy(isTokenByte)
        guard validName else {
            throw KonexError.invalidRequest(
                "invalid header name \"\(name.debugDescription.dropFirst().dropLast())\"", method: method, url: url)
        }
        if value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) {
            throw KonexError.invalidRequest(
                "the value of header \"\(name)\" contains CR, LF or NUL (header injection refused)",
                method: method, url: url)
        }
    }
}
