import Foundation

/// What is scrubbed from logs, cURL commands, errors, recorded fixtures and cache files: the one redaction path
/// every sink takes its text from.
///
/// By default: `Authorization`, `Cookie`, `Set-Cookie`, `Proxy-Authorization` and common API-key headers;
/// token-like query items (in a URL, and in a `Location`, `Content-Location` or `Referer` header); password/token
/// fields of JSON bodies (also when cut short or not valid JSON), of form bodies
/// (`application/x-www-form-urlencoded`, by query item and JSON field names) and of `multipart/form-data` parts; a
/// URL's user info, user name and password both. A body is always redacted whole before it is cut to a length. Add your own, and
/// register secret values so the final scan refuses to write any fixture that still contains them:
/// ```swift
/// var redaction = Redaction.default
/// redaction.headers.insert("x-tenant-signature")
/// redaction.jsonFields.insert("ssn")
/// redaction.secrets.append(ProcessInfo.processInfo.environment["API_TOKEN"] ?? "")
/// ```
public struct Redaction: Sendable, Equatable {
    /// What replaces a redacted value.
    public static let placeholder = "REDACTED"

    /// Header names whose values are replaced, compared by meaning (case, `_`, `-` and camel case do not count).
    public var headers: Set<String> { didSet { normalizedHeaders = Self.normalized(headers) } }
    /// Query item names whose values are replaced, compared by meaning.
    public var queryItems: Set<String> { didSet { normalizedQueryItems = Self.normalized(queryItems) } }
    /// JSON object keys (at any depth, in request and response bodies) whose values are replaced, compared by meaning.
    public var jsonFields: Set<String> { didSet { normalizedJSONFields = Self.normalized(jsonFields) } }
    /// Values that must never be written; a fixture that still contains one is refused.
    public var secrets: [String]
    /// Whether a name that says it holds a credential is redacted although no list names it: `accessToken`,
    /// `X-Tenant-Key`, `user[password]`, `client_assertion`, and OAuth's `code` in a query, fragment or form (not as a
    /// JSON key, where `code` is usually an error's code) (`true` by default).
    public var recognisesSecretNames = true

    private var normalizedHeaders: Set<String>
    private var normalizedQueryItems: Set<String>
    private var normalizedJSONFields: Set<String>

    /// Creates a redaction policy.
    public init(headers: Set<String>, queryItems: Set<String>, jsonFields: Set<String>, secrets: [String] = []) {
        self.headers = Set(headers.map { $0.lowercased() })
        self.queryItems = Set(queryItems.map { $0.lowercased() })
        self.jsonFields = Set(jsonFields.map { $0.lowercased() })
        self.secrets = secrets
        normalizedHeaders = Self.normalized(headers)
        normalizedQueryItems = Self.normalized(queryItems)
        normalizedJSONFields = Self.normalized(jsonFields)
    }

    private static func normalized(_ names: Set<String>) -> Set<String> { Set(names.map(SecretName.normalized)) }

    /// Whether a header of this name is redacted: listed in ``headers`` in any spelling, or named like a credential.
    /// - Parameter name: The header's name, in any case.
    public func isSecret(header name: String) -> Bool {
        let words = SecretName.words(name)
        return normalizedHeaders.contains(words.joined(separator: "_"))
            || (recognisesSecretNames && SecretName.isSecret(words: words))
    }

    /// Whether a request header of this name carries a credential: `Authorization`, `Proxy-Authorization` and
    /// `Cookie` always, and every header this redaction holds secret (listed, or named like a credential:
    /// `PRIVATE-TOKEN`, `X-Shopify-Access-Token`, `apikey`).
    ///
    /// The one notion of a credential every component asks: what a redirect to another origin drops, what
    /// ``HTTPCache`` keys accounts on, and what the sinks redact.
    /// - Parameter name: The header's name, in any case.
    public func isCredential(header name: String) -> Bool {
        HTTPHeaders.equal(name, "authorization") || HTTPHeaders.equal(name, "proxy-authorization")
            || HTTPHeaders.equal(name, "cookie") || isSecret(header: name)
    }

    /// The default policy.
    public static let `default` = Redaction(
        headers: [
            "authorization", "cookie", "set-cookie", "proxy-authorization", "x-api-key", "api-key", "x-auth-token",
            "x-access-token",
        ],
        queryItems: [
            "token", "access_token", "refresh_token", "id_token", "api_key", "apikey", "key", "password", "secret",
            "client_secret", "signature", "sig",
        ],
        jsonFields: ["password", "token", "access_token", "refresh_token", "id_token", "secret", "client_secret"])

    /// Headers whose value is a URL, redacted as one.
    static let urlHeaders: Set<String> = ["location", "content-location", "referer"]

    /// The header's value: the placeholder when the header is listed, the URL redacted for a header that holds one.
    public func value(ofHeader name: String, _ value: String) -> String {
        if isSecret(header: name) { return Self.placeholder }
        return Self.urlHeaders.contains(name.lowercased()) ? url(value) : value
    }

    /// The URL (absolute or relative) with listed query items' values (also in a `#name=value` fragment) and both
    /// halves of its user info (a user name is how several hosts take a token) replaced. Text that
    /// does not parse as a URL has every `name=value` pair of a listed name replaced instead, so a malformed URL
    /// never carries its token through.
    public func url(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return form(url) }
        var changed = false
        // Both halves of the user info: `https://ghp_…@github.com/…` carries a token as the user name alone, and
        // `https://TOKEN:x-oauth-basic@…` as the user name beside a dummy password.
        if components.percentEncodedUser != nil {
            components.percentEncodedUser = Self.placeholder
            changed = true
        }
        if components.percentEncodedPassword != nil {
            components.percentEncodedPassword = Self.placeholder
            changed = true
        }
        // `#access_token=…&state=…`: OAuth's implicit flow returns tokens in the fragment, as a form.
        if let fragment = components.percentEncodedFragment, fragment.contains("=") {
            let redacted = form(fragment)
            if redacted != fragment {
                components.percentEncodedFragment = redacted
                changed = true
            }
        }
        if let items = components.queryItems, items.contains(where: { isListedField($0.name) }) {
            components.queryItems = items.map { item in
                isListedField(item.name) ? URLQueryItem(name: item.name, value: Self.placeholder) : item
            }
            changed = true
        }
        guard changed else { return url }
        return components.string ?? form(url)
    }

    /// Free text (an error message, an underlying error's description, a report line) with every `http://` or
    /// `https://` URL in it redacted as ``url(_:)`` does, every listed `name=value` pair replaced (a relative URL, a
    /// form), and registered secrets replaced.
    public func text(_ text: String) -> String {
        var output = text
        if text.contains("://") {
            var result = ""
            var rest = Substring(text)
            while let start = rest.range(of: "http", options: .caseInsensitive) {
                result += rest[..<start.lowerBound]
                let candidate = rest[start.lowerBound...]
                let end = candidate.firstIndex { $0.isWhitespace || "\"'<>`".contains($0) } ?? candidate.endIndex
                let word = candidate[..<end]
                result += word.contains("://") ? url(String(word)) : String(word)
                rest = candidate[end...]
            }
            output = result + rest
        }
        // A relative URL or a form in the text (`GET /me?token=…`): listed `name=value` pairs are replaced too.
        output = form(output)
        for secret in secrets where !secret.isEmpty {
            output = output.replacingOccurrences(of: secret, with: Self.placeholder)
        }
        return output
    }

    /// The query item's value, or the placeholder when the item is listed.
    public func value(ofQueryItem name: String, _ value: String) -> String {
        isListedField(name) ? Self.placeholder : value
    }

    /// Replaces listed fields in a body's text (JSON, or a form or multipart body when `contentType` says so), and
    /// registered secrets anywhere; other text keeps its bytes.
    /// - Parameters:
    ///   - text: The body as text.
    ///   - contentType: The body's `Content-Type`, when known.
    public func body(_ text: String, contentType: String? = nil) -> String {
        var ignored: Set<String> = []
        return body(text, contentType: contentType, redactedKeys: &ignored)
    }

    /// `body(_:contentType:)` for text, adding what it replaced to `redactedKeys` (`"json password"`, `"form token"` …).
    public func body(_ text: String, contentType: String?, redactedKeys: inout Set<String>) -> String {
        var text = text
        let type = contentType?.lowercased() ?? ""
        if type.hasPrefix("multipart/form-data") {
            let redacted = multipart(Data(text.utf8), contentType: contentType ?? "", redactedKeys: &redactedKeys)
            text = String(decoding: redacted, as: UTF8.self)
        } else if type.hasPrefix("application/x-www-form-urlencoded") {
            text = form(text, redactedKeys: &redactedKeys)
        } else {
            var keys: Set<String> = []
            text = redactJSON(text, redactedKeys: &keys)
            redactedKeys.formUnion(keys.map { "json \($0)" })
        }
        for secret in secrets where !secret.isEmpty {
            text = text.replacingOccurrences(of: secret, with: Self.placeholder)
        }
        return text
    }

    /// A body's bytes with listed fields replaced, whatever it is: multipart parts are redacted in place (a binary
    /// file part stays as it was), text as `body(_:contentType:)` says.
    /// - Returns: The redacted bytes, and what was replaced.
    public func body(_ data: Data, contentType: String?) -> (data: Data, redactedKeys: Set<String>) {
        var keys: Set<String> = []
        if contentType?.lowercased().hasPrefix("multipart/form-data") == true {
            var redacted = multipart(data, contentType: contentType ?? "", redactedKeys: &keys)
            for secret in secrets where !secret.isEmpty {
                redacted = Redaction.replacing(Data(secret.utf8), in: redacted)
            }
            return (redacted, keys)
        }
        if let text = String(data: data, encoding: .utf8) {
            let redacted = body(text, contentType: contentType, redactedKeys: &keys)
            return (Data(redacted.utf8), keys)
        }
        // Not UTF-8 (one stray byte in a JSON body is enough): read each byte as one Latin-1 character, so the
        // structure (quotes, `=`, `&`) is found, every byte not replaced survives, and the bytes come back unchanged.
        guard let text = String(data: data, encoding: .isoLatin1) else { return (data, keys) }
        var fields = self
        fields.secrets = []
        var redacted = fields.body(text, contentType: contentType, redactedKeys: &keys).data(using: .isoLatin1) ?? data
        for secret in secrets where !secret.isEmpty {
            redacted = Redaction.replacing(Data(secret.utf8), in: redacted)
        }
        return (redacted, keys)
    }

    /// A body as text for a log or a description: redacted whole, then cut to `limit` bytes (on a character
    /// boundary), with its size when cut; binary data is described, never shown.
    public func bodySnippet(_ data: Data, contentType: String?, limit: Int) -> String {
        let redacted = body(data, contentType: contentType).data
        guard let text = String(data: redacted, encoding: .utf8) else { return "<\(data.count) bytes of binary data>" }
        guard redacted.count > limit else { return text }
        var shown = String(decoding: redacted.prefix(Swift.max(0, limit)), as: UTF8.self)
        while shown.last == "\u{FFFD}" { shown.removeLast() }  // a character cut in two
        return shown + "… (\(data.count) bytes)"
    }

    /// Replaces listed fields in a JSON text; text that is not JSON is returned unchanged.
    public func redactJSON(_ text: String) -> String {
        var ignored: Set<String> = []
        return redactJSON(text, redactedKeys: &ignored)
    }

    /// Replaces listed fields (and keys named like a listed header) in a JSON text, adding the keys it replaced to
    /// `redactedKeys`.
    ///
    /// It reads the text as tokens rather than parsing it, so it also redacts JSON that is cut short (a body over a
    /// log's limit), JSON Lines, and JSON inside other text; every byte it does not replace stays as it was.
    public func redactJSON(_ text: String, redactedKeys: inout Set<String>) -> String {
        guard !jsonFields.isEmpty || !headers.isEmpty, text.utf8.contains(UInt8(ascii: "\"")) else { return text }
        var keys: Set<String> = []
        let output = JSONRedactor(bytes: Array(text.utf8), isListed: { self.isListedJSONKey($0) }).redact(into: &keys)
        guard !keys.isEmpty else { return text }
        redactedKeys.formUnion(keys)
        return String(decoding: output, as: UTF8.self)
    }

    /// A JSON key is listed when it is a listed field, or named like a listed header (echo services and error
    /// bodies repeat request headers).
    private func isListedJSONKey(_ key: String) -> Bool {
        isListed(SecretName.words(key), orAHeader: true, asAFormField: false)
    }

    /// Whether a query item, form field, multipart part or JSON key of this name is redacted: a form body is a
    /// query string, and its fields are the same as a JSON body's, so the names are ``queryItems`` and
    /// ``jsonFields`` together, in any spelling (`accessToken` is `access_token`), and, unless
    /// ``recognisesSecretNames`` is off, any name that says it holds a credential. A bracketed form name
    /// (`user[password]`) is read by its words.
    /// - Parameter name: The field's name, in any spelling.
    public func isListedField(_ name: String) -> Bool {
        isListed(SecretName.words(name), orAHeader: false, asAFormField: true)
    }

    /// Whether a field of these words is listed (or, with `orAHeader`, named like a listed header), or says it holds
    /// a credential; the name is split into words once for every comparison.
    private func isListed(_ words: [String], orAHeader: Bool, asAFormField: Bool) -> Bool {
        let normal = words.joined(separator: "_")
        // `user[ssn]` is the `ssn` field of a nested form: its last word is the field.
        let last = words.last ?? normal
        return normalizedQueryItems.contains(normal) || normalizedJSONFields.contains(normal)
            || normalizedQueryItems.contains(last) || normalizedJSONFields.contains(last)
            || (orAHeader && normalizedHeaders.contains(normal))
            || (recognisesSecretNames && SecretName.isSecret(words: words, asAFormField: asAFormField))
    }

    /// The first registered secret found in `data`, if any.
    /// The secret may appear raw or JSON-escaped (inside a body stored as a HAR string), so both are checked.
    public func leakedSecret(in data: Data) -> String? {
        secrets.first { secret in
            guard !secret.isEmpty else { return false }
            if data.range(of: Data(secret.utf8)) != nil { return true }
            guard let quoted = try? JSONEncoder().encode(secret), quoted.count > 2 else { return false }
            return data.range(of: quoted.dropFirst().dropLast()) != nil
        }
    }
}
