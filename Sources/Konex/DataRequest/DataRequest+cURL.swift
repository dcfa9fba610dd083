import Foundation

extension DataRequest {
    /// The request as a `curl` command: what would be sent, after the adapters, redacted by the client's redaction.
    ///
    /// ```swift
    /// print(try await client.request(Login()).withAdapter(.bearer(token)).cURLDescription())
    /// // curl -X POST 'https://api.example.com/login' -H 'Authorization: REDACTED' -H 'Content-Type: application/json' --data-binary '{"user":"ada"}'
    /// ```
    /// - Returns: A command a shell can run.
    /// - Throws: ``KonexError`` when the request cannot be built or an adapter fails.
    public func cURLDescription() async throws -> String {
        try await cURLDescription(redaction: client.redaction)
    }

    /// The request as a `curl` command, hiding what `redaction` lists.
    /// - Parameter redaction: What to hide; `nil` to show everything.
    /// - Returns: A command a shell can run.
    /// - Throws: ``KonexError`` when the request cannot be built or an adapter fails.
    public func cURLDescription(redaction: Redaction?) async throws -> String {
        var request = try makeRequest()
        let adapters = Layers(client.componentSnapshot.adapters, endpoint?.requestAdapters, self.adapters)
        for adapter in adapters {
            do { request = try await adapter.adapt(request) } catch {
                throw KonexError(
                    stage: .adaptation, message: "adapter \(type(of: adapter)) failed: \(error)", url: request.url,
                    request: request, underlyingError: error)
            }
        }
        let url = request.url.absoluteString
        var parts = ["curl"]
        let method = request.httpMethod
        if method != "GET" { parts.append("-X \(method)") }
        parts.append(Self.shellQuoted(redaction?.url(url) ?? url))
        for (name, value) in request.headerFields.fields.sorted(by: { $0.name.lowercased() < $1.name.lowercased() }) {
            parts.append("-H " + Self.shellQuoted("\(name): \(redaction?.value(ofHeader: name, value) ?? value)"))
        }
        if let body = request.httpBody, !body.isEmpty {
            if let text = String(data: body, encoding: .utf8) {
                let type = request.value(forHTTPHeaderField: "Content-Type")
                parts.append("--data-binary " + Self.shellQuoted(redaction?.body(text, contentType: type) ?? text))
            } else {
                parts.append("--data-binary @- # \(body.count) bytes of binary data")
            }
        }
        return parts.joined(separator: " ")
    }

    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
