import Foundation

/// What is scrubbed from logs, cURL commands and recorded fixtures.
///
/// By default: `Authorization`, `Cookie`, `Set-Cookie`, `Proxy-Authorization` and common API-key headers;
/// token-like query items; password/token JSON fields. Add your own, and register secret values so the final
/// scan refuses to write any fixture that still contains them:
/// ```swift
/// var redaction = Redaction.default
/// redaction.headers.insert("x-tenant-signature")
/// redaction.jsonFields.insert("ssn")
/// redaction.secrets.append(ProcessInfo.processInfo.environment["API_TOKEN"] ?? "")
/// ```
public struct Redaction: Sendable {
    /// What replaces a redacted value.
    public static let placeholder = "REDACTED"

    /// Header names (case-insensitive) whose values are replaced.
    public var headers: Set<String>
    /// Query item names (case-insensitive) whose values are replaced.
    public var queryItems: Set<String>
    /// JSON object keys (case-insensitive, at any depth, in request and response bodies) whose values are replaced.
    public var jsonFields: Set<String>
    /// Values that must never be written; a fixture that still contains one is refused.
    public var secrets: [String]

    /// Creates a redaction policy.
    public init(headers: Set<String>, queryItems: Set<String>, jsonFields: Set<String>, secrets: [String] = []) {
        self.headers = Set(headers.map { $0.lowercased() })
        self.queryItems = Set(queryItems.map { $0.lowercased() })
        self.jsonFields = Set(jsonFields.map { $0.lowercased() })
        self.secrets = secrets
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

    /// The header's value, or the placeholder when the header is listed.
    public func value(ofHeader name: String, _ value: String) -> String {
        headers.contains(name.lowercased()) ? Self.placeholder : value
    }

    /// The URL with listed query items' values replaced (an unparsable URL is returned unchanged).
    public func url(_ url: String) -> String {
        guard var components = URLComponents(string: url), let items = components.queryItems,
            items.contains(where: { queryItems.contains($0.name.lowercased()) })
        else { return url }
        components.queryItems = items.map { item in
            queryItems.contains(item.name.lowercased()) ? URLQueryItem(name: item.name, value: Self.placeholder) : item
        }
        return components.string ?? url
    }

    /// The query item's value, or the placeholder when the item is listed.
    public func value(ofQueryItem name: String, _ value: String) -> String {
        queryItems.contains(name.lowercased()) ? Self.placeholder : value
    }

    /// Replaces listed fields in a JSON text, and registered secrets anywhere; other text keeps its bytes.
    public func body(_ text: String) -> String {
        var text = redactJSON(text)
        for secret in secrets where !secret.isEmpty {
            text = text.replacingOccurrences(of: secret, with: Self.placeholder)
        }
        return text
    }

    /// Replaces listed fields in a JSON text; text that is not JSON is returned unchanged.
    public func redactJSON(_ text: String) -> String {
        var ignored: Set<String> = []
        return redactJSON(text, redactedKeys: &ignored)
    }

    /// Replaces listed fields (and keys named like a listed header) in a JSON text, adding the keys it replaced to
    /// `redactedKeys`.
    public func redactJSON(_ text: String, redactedKeys: inout Set<String>) -> String {
        guard !jsonFields.isEmpty || !headers.isEmpty,
            let json = try? JSONDecoder().decode(JSON.self, from: Data(text.utf8))
        else {
            return text
        }
        let redacted = redact(json, into: &redactedKeys)
        guard redacted != json else { return text }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(redacted)).map { String(decoding: $0, as: UTF8.self) } ?? text
    }

    private func redact(_ json: JSON, into keys: inout Set<String>) -> JSON {
        switch json {
        case .object(let members):
            var result: [String: JSON] = [:]
            for (key, value) in members {
                // A listed header name as a key too: echo services and error bodies repeat request headers.
                if jsonFields.contains(key.lowercased()) || headers.contains(key.lowercased()) {
                    result[key] = .string(Self.placeholder)
                    keys.insert(key)
                } else {
                    result[key] = redact(value, into: &keys)
                }
            }
            return .object(result)
        case .array(let elements): return .array(elements.map { redact($0, into: &keys) })
        default: return json
        }
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
