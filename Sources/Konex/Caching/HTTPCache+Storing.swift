import Foundation

// What an HTTPCache may keep (RFC 9111 §3), which stored response a request may use (§4.1), and what an unsafe
// request makes outdated (§4.4).
extension HTTPCache {
    /// Stores `reply` when RFC 9111 §3 allows it and it can ever be reused. A response that may not be stored leaves
    /// what was stored in place: only a storable replacement or an unsafe method replaces it, so an error from a
    /// struggling server never erases the offline copy. `asked` is the request's own `Cache-Control`.
    func keep(_ reply: TransportReply, key: String, request: TransportRequest, asked: CacheControl, requestDate: Date)
        async
    {
        // A body that is not whole (an interceptor nearer the transport answered with a stream) is not kept: the
        // cache does not read it on the caller's behalf, and never stores part of one.
        guard let body = reply.body.data else { return }
        let response = reply.response
        let url = request.url
        let received = CachedResponse(
            url: url, statusCode: response.statusCode, headers: Self.storedHeaders(of: response), body: body,
            requestDate: requestDate, responseDate: now())
        guard var kept = storable(received, request: request, asked: asked) else { return }
        let varyNames = kept.parsed.varyNames
        for name in varyNames {
            if let value = request.value(forHTTPHeaderField: name) { kept.varying[name] = digest(value) }
        }
        let entry = kept
        guard !varyNames.isEmpty else {
            await io { self.storage.store(entry, forKey: key) }
            return
        }
        // A response that varies is one variant among others: the URL's key holds the list of `Vary` names, each
        // variant its own key, so a second variant never evicts the first.
        let existing = await io { self.storage.response(forKey: key) }
        let list: CachedResponse
        if let existing, existing.isVariantList, existing.parsed.varyNames == varyNames {
            list = existing
        } else {
            list = CachedResponse(
                url: url, statusCode: 0,
                headers: [
                    "Vary": varyNames.joined(separator: ", "),
                    Self.variantListField: SHA256.hex(ProcessSecret.random(count: 8)),
                ],
                body: Data(), requestDate: requestDate, responseDate: requestDate)
            await io { self.storage.store(list, forKey: key) }
        }
        let variant = variantKey(key, list: list, request: request)
        await io { self.storage.store(entry, forKey: variant) }
    }

    /// The headers a cache keeps: not the hop-by-hop ones nor those `Connection` names (§3.1), and not
    /// `Set-Cookie`, which sets state once and must not be replayed (or written to disk) with every hit.
    static func storedHeaders(of response: ResponseHead) -> [String: String] {
        var headers = response.headerFields.dictionary
        var dropped: Set<String> = [
            "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade", "set-cookie",
        ]
        if let connection = headers.first(where: { $0.key.lowercased() == "connection" })?.value {
            for name in connection.split(separator: ",") {
                dropped.insert(name.trimmingCharacters(in: .whitespaces).lowercased())
            }
        }
        for name in headers.keys where dropped.contains(name.lowercased()) { headers[name] = nil }
        return headers
    }

    /// The entry, if it may be stored and could ever be reused.
    private func storable(_ entry: CachedResponse, request: TransportRequest, asked: CacheControl) -> CachedResponse? {
        let control = entry.cacheControl
        let status = entry.statusCode
        // A final response (not 1xx), and not one Konex cannot combine (206) or that is not a representation (304).
        guard status >= 200, status != 206, status != 304, !control.has("no-store"), !asked.has("no-store"),
            !entry.parsed.varyNames.contains("*")  // never matches again (§4.1)
        else { return nil }
        if isShared {
            guard !control.has("private") else { return nil }
            if request.value(forHTTPHeaderField: "Authorization") != nil,
                !(control.has("public") || control.has("s-maxage") || control.has("must-revalidate"))
            {
                return nil
            }
        }
        // §3: explicit freshness, `public`, or a status that is heuristically cacheable.
        let explicit = entry.hasExplicitFreshness(shared: isShared)
        guard explicit || control.has("public") || CachedResponse.heuristicallyCacheable.contains(status) else {
            return nil
        }
        // Keep what can be served fresh or revalidated; a response with neither is dead weight.
        guard explicit || entry.heuristicLifetime > 0 || entry.hasValidator || control.has("public") else {
            return nil
        }
        return entry
    }

    /// The stored entry when the request agrees with it on every header it varies on (§4.1).
    func matching(_ stored: CachedResponse, _ request: TransportRequest) -> CachedResponse? {
        for name in stored.parsed.varyNames {
            if name == "*" { return nil }
            if stored.varying[name] != request.value(forHTTPHeaderField: name).map(digest) { return nil }
        }
        return stored
    }

    /// After an unsafe request succeeded: its URL, and the `Location` and `Content-Location` of the answer on the
    /// same host, are outdated (§4.4).
    func invalidate(after request: TransportRequest, key: String, reply: TransportReply) async {
        var keys = [key]
        let base = request.url
        for name in ["Location", "Content-Location"] {
            guard let value = reply.response.value(forHTTPHeaderField: name),
                let target = URL(string: value, relativeTo: base)?.absoluteURL, target.host == base.host,
                target.scheme == base.scheme, target.port == base.port
            else { continue }
            var other = request
            other.url = target
            keys.append(self.key(for: other))
        }
        let outdated = keys
        await io { for key in outdated { self.storage.removeResponse(forKey: key) } }
        heads.withLock { $0.removeAll(keepingCapacity: true) }
    }
}
