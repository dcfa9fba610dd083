import Foundation
import Konex

extension Redaction {
    /// The entry with every listed header, cookie, query item and body field (JSON, form, multipart, HAR `params`)
    /// replaced, URLs in `Location`-like headers and `redirectURL` redacted, and what was replaced listed in the
    /// entry's `_konex.redacted` field (so a reader of the fixture knows which values are placeholders).
    func apply(to entry: HAR.Entry) -> HAR.Entry {
        // Registered secrets are a tripwire for a fixture (the final scan refuses the file), not something to
        // paper over here, so the field rules run without them.
        var fields = self
        fields.secrets = []
        return fields.applyFieldRules(to: entry)
    }

    private func applyFieldRules(to entry: HAR.Entry) -> HAR.Entry {
        var entry = entry
        var redacted: Set<String> = []
        func header(_ item: HAR.NameValue) -> HAR.NameValue {
            var value = value(ofHeader: item.name, item.value)
            if value != item.value {
                redacted.insert("header \(item.name)")
                // A cookie's name and attributes are kept, its value hidden: a replay through a cookie jar then sets
                // and sends the cookies the recording did, each by its name.
                value = Self.cookieShape(of: item.name, item.value) ?? value
            }
            return HAR.NameValue(name: item.name, value: value)
        }
        func cookie(_ item: HAR.NameValue) -> HAR.NameValue {
            if item.value != Self.placeholder { redacted.insert("cookie \(item.name)") }
            return HAR.NameValue(name: item.name, value: Self.placeholder)
        }
        entry.request.headers = entry.request.headers.map(header)
        entry.response.headers = entry.response.headers.map(header)
        entry.request.cookies = entry.request.cookies.map(cookie)
        entry.response.cookies = entry.response.cookies.map(cookie)
        entry.request.queryString = entry.request.queryString.map { item in
            let value = value(ofQueryItem: item.name, item.value)
            if value != item.value { redacted.insert("query \(item.name)") }
            return HAR.NameValue(name: item.name, value: value)
        }
        entry.request.url = url(entry.request.url)
        let redirect = url(entry.response.redirectURL)
        if redirect != entry.response.redirectURL { redacted.insert("redirectURL") }
        entry.response.redirectURL = redirect
        if let post = entry.request.postData {
            entry.request.postData = redact(post, into: &redacted)
        }
        entry.response.content = redact(entry.response.content, into: &redacted)
        if !redacted.isEmpty {
            var info = entry._konex ?? HAR.KonexInfo()
            info.redacted = redacted.sorted()
            entry._konex = info
        }
        return entry
    }

    private func redact(_ post: HAR.PostData, into redacted: inout Set<String>) -> HAR.PostData {
        var post = post
        if post._encoding == "base64" {
            // A binary body (a multipart upload with a file): redact its bytes, not the base64 text.
            if let bytes = Data(base64Encoded: post.text) {
                let result = body(bytes, contentType: post.mimeType)
                redacted.formUnion(result.redactedKeys)
                post.text = result.data.base64EncodedString()
            }
        } else {
            post.text = body(post.text, contentType: post.mimeType, redactedKeys: &redacted)
        }
        post.params = post.params?.map { param in
            var param = param
            if isListedField(param.name), param.value != nil, param.value != Self.placeholder {
                param.value = Self.placeholder
                redacted.insert("param \(param.name)")
            }
            return param
        }
        return post
    }

    private func redact(_ content: HAR.Content, into redacted: inout Set<String>) -> HAR.Content {
        var content = content
        guard let text = content.text else { return content }
        if content.encoding == "base64" {
            // Bytes that are not UTF-8 (one stray byte in a JSON body is enough) travel as base64: redact the bytes
            // by their media type, whatever it is, so a password beside a bad byte is not written out verbatim.
            guard let bytes = Data(base64Encoded: text) else { return content }
            let result = body(bytes, contentType: content.mimeType)
            redacted.formUnion(result.redactedKeys)
            content.text = result.data.base64EncodedString()
        } else {
            content.text = body(text, contentType: content.mimeType, redactedKeys: &redacted)
        }
        return content
    }
}

extension HAR {
    /// Every payload the archive holds as base64 (request and response bodies, binary WebSocket messages), decoded:
    /// what a scan for secrets must read besides the archive's text.
    var base64Payloads: [Data] {
        log.entries.flatMap { entry -> [Data] in
            var payloads: [Data] = []
            if let post = entry.request.postData, post._encoding == "base64",
                let bytes = Data(base64Encoded: post.text)
            {
                payloads.append(bytes)
            }
            if entry.response.content.encoding == "base64", let text = entry.response.content.text,
                let bytes = Data(base64Encoded: text)
            {
                payloads.append(bytes)
            }
            for message in entry._webSocketMessages ?? [] where message.opcode == 2 {
                if let bytes = Data(base64Encoded: message.data) { payloads.append(bytes) }
            }
            return payloads
        }
    }
}

extension Redaction {
    /// The first registered secret the archive still holds, in its text or inside a base64 payload.
    func leakedSecret(in archive: HAR, encoded: Data) -> String? {
        leakedSecret(in: encoded) ?? archive.base64Payloads.lazy.compactMap(leakedSecret(in:)).first
    }
}

extension Redaction {
    /// A `Cookie` or `Set-Cookie` value with every cookie's value replaced (`session=REDACTED; Path=/; HttpOnly`);
    /// `nil` for another header.
    static func cookieShape(of header: String, _ value: String) -> String? {
        func hidden(_ pair: Substring) -> String {
            let pair = pair.trimmingCharacters(in: .whitespaces)
            guard let equals = pair.firstIndex(of: "=") else { return placeholder }
            return pair[..<equals] + "=" + placeholder
        }
        switch header.lowercased() {
        case "cookie":
            return value.split(separator: ";").map(hidden).joined(separator: "; ")
        case "set-cookie":
            // Over URLSession one field holds every line, joined: each line's value is hidden.
            return SetCookieLines.split(value).map { line in
                let parts = line.split(separator: ";", maxSplits: 1)
                guard let pair = parts.first else { return placeholder }
                return hidden(pair) + (parts.count > 1 ? ";" + parts[1] : "")
            }.joined(separator: ", ")
        default:
            return nil
        }
    }
}
