import Foundation

// What an HTTPCache may keep (RFC 9111 §3) and which stored response a request may use (§4.1).
extension HTTPCache {
    /// Stores `reply` when RFC 9111 §3 allows it and it can ever be reused; otherwise drops what was stored.
    /// `asked` is the request's own `Cache-Control`, parsed once by the caller.
    func keep(_ reply: TransportReply, key: String, request: URLRequest, asked: CacheControl, requestDate: Date) {
        let response = reply.response
        guard let url = request.url else { return }
        let entry = CachedResponse(
            url: url, statusCode: response.statusCode, headers: HTTPHeaders(response).dictionary, body: reply.data,
            requestDate: requestDate, responseDate: now())
        guard var kept = storable(entry, request: request, asked: asked) else {
            // A full answer that may not be kept still makes the old one outdated.
            if response.statusCode != 304 { storage.removeResponse(forKey: key) }
            return
        }
        for name in kept.parsed.varyNames {
            if let value = request.value(forHTTPHeaderField: name) { kept.varying[name] = value }
        }
        storage.store(kept, forKey: key)
    }

    /// The entry, if it may be stored and could ever be reused.
    private func storable(_ entry: CachedResponse, request: URLRequest, asked: CacheControl) -> CachedResponse? {
        let control = entry.cacheControl
        guard !control.has("no-store"), !asked.has("no-store"),
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
        let explicit = entry.hasExplicitFreshness(shared: isShared)
        let understood =
            CachedResponse.heuristicallyCacheable.contains(entry.statusCode)
            || (explicit && [302, 307].contains(entry.statusCode))
        guard understood else { return nil }
        // Keep what can be served fresh or revalidated; a response with neither is dead weight.
        guard explicit || entry.heuristicLifetime > 0 || entry.hasValidator || control.has("public") else {
            return nil
        }
        return entry
    }

    /// The stored entry when the request agrees with it on every header it varies on (§4.1).
    func matching(_ stored: CachedResponse, _ request: URLRequest) -> CachedResponse? {
        for name in stored.parsed.varyNames {
            if name == "*" { return nil }
            if stored.varying[name] != request.value(forHTTPHeaderField: name) { return nil }
        }
        return stored
    }
}
