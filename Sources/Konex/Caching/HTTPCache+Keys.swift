import Foundation

// Which stored response a request may see: the key (URL, then the partition or the credentials), and the variants
// of a URL whose responses vary (RFC 9111 §4.1).
extension HTTPCache {
    /// Request headers that were the cache's whole idea of a credential before it asked the client's redaction.
    @available(
        *, deprecated,
        message:
            "the cache keys accounts on every header the client's Redaction calls a credential (Redaction.isCredential(header:)), not on this list"
    )
    public static let credentialHeaders: [String] = [
        "Authorization", "Proxy-Authorization", "Cookie", "X-API-Key", "API-Key", "X-Auth-Token", "X-Access-Token",
    ]

    /// The key a request's response is stored under: its URL without the fragment, then the ``partition`` when one
    /// is set, else a digest of the request's credentials (every header that is a credential by its built-in meaning,
    /// ``Redaction/isCredential(header:)`` of ``Redaction/default``, or that the client's ``Redaction`` adds; never a
    /// per-request nonce such as `Idempotency-Key` or `X-Request-ID`; and the cookies `cookieStorage` would add), so
    /// that one
    /// account is never served another's response. Compared as digests keyed by the storage's secret; the values
    /// themselves are never stored.
    /// - Parameter request: A request.
    /// - Returns: The key.
    public func key(for request: TransportRequest) -> String {
        let url = request.url
        var text = url.absoluteString
        if let hash = text.utf8.firstIndex(of: UInt8(ascii: "#")) { text = String(text[..<hash]) }
        if let partition {
            text += " partition:" + digest(partition)
        } else if let credentials = credentials(of: request, url: url) {
            text += " credentials:" + digest(credentials)
        }
        return text
    }

    /// The credentials a request carries, as one text, or `nil` when it carries none.
    private func credentials(of request: TransportRequest, url: URL) -> String? {
        var found: String?
        // A credential by its built-in meaning (Redaction.default's), and whatever else the client's redaction calls
        // one: a redaction changed to show a header in logs must not let two accounts share entries. Every line of
        // each, names folded and sorted so the key does not depend on the order or the case they were written in.
        // Per-request nonces are named like keys but identify no one: they would make every request a miss.
        let own = Redaction.bound
        let fields = request.headerFields.fields
        if !fields.isEmpty {
            var lines: [(name: String, value: String)] = []
            for field in fields
            where (Redaction.default.isCredential(header: field.name) || own?.isCredential(header: field.name) == true)
                && !Self.isPerRequestNonce(field.name)
            {
                lines.append((HTTPHeaders.folded(field.name), field.value))
            }
            for line in lines.enumerated().sorted(by: { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }) {
                found = (found ?? "") + line.element.name + ":" + line.element.value + "\n"
            }
        }
        // URLSession adds cookies below the interceptors, so the cache asks the same storage it will ask.
        if request.httpShouldHandleCookies, let cookies = cookieStorage?.cookies(for: url), !cookies.isEmpty {
            for cookie in cookies.sorted(by: { $0.name < $1.name }) {
                found = (found ?? "") + "cookie " + cookie.name + "=" + cookie.value + "\n"
            }
        }
        return found
    }

    /// Headers that differ on every request by design (an idempotency key, a request or correlation id, trace
    /// context), in ``SecretName``'s normal form.
    static let perRequestNonces: Set<String> = [
        "idempotency_key", "x_idempotency_key", "request_id", "x_request_id", "correlation_id", "x_correlation_id",
        "traceparent", "tracestate", "x_amzn_trace_id", "x_cloud_trace_context", "x_b3_traceid", "x_b3_spanid",
    ]

    static func isPerRequestNonce(_ name: String) -> Bool { perRequestNonces.contains(SecretName.normalized(name)) }

    /// A digest of `text` keyed by the storage's secret (HMAC-SHA-256, 128 bits shown), remembered for the last
    /// values seen so a hit does not hash again.
    func digest(_ text: String) -> String {
        if let known = digests.withLock({ $0[text] }) { return known }
        let made = String(SHA256.hex(SHA256.hmac(key: storage.keySecret, Array(text.utf8))).prefix(32))
        digests.withLock { digests in
            if digests.count >= 64 { digests.removeAll(keepingCapacity: true) }
            digests[text] = made
        }
        return made
    }

    // MARK: Variants

    /// The key of the variant of `key` that `request` selects, under the variant list `list`.
    func variantKey(_ key: String, list: CachedResponse, request: TransportRequest) -> String {
        var selection = ""
        for name in list.parsed.varyNames {
            selection += name + ":" + (request.value(forHTTPHeaderField: name) ?? "") + "\n"
        }
        return key + " variant:" + (list.header(Self.variantListField) ?? "") + ":" + digest(selection)
    }

    /// The stored response `request` may use, and the key it is stored under.
    func lookup(_ key: String, _ request: TransportRequest) async -> (response: CachedResponse, key: String)? {
        guard let primary = await io({ self.storage.response(forKey: key) }) else { return nil }
        guard primary.isVariantList else { return matching(primary, request).map { ($0, key) } }
        let variant = variantKey(key, list: primary, request: request)
        guard let stored = await io({ self.storage.response(forKey: variant) }) else { return nil }
        return matching(stored, request).map { ($0, variant) }
    }

    /// The field of a variant list that names its generation: variants of an earlier list (before an invalidation)
    /// are never found again.
    static let variantListField = "X-Konex-Variants"
}

extension CachedResponse {
    /// Whether this entry only lists the `Vary` names of a URL whose responses are stored as variants.
    var isVariantList: Bool { statusCode == 0 }
}
