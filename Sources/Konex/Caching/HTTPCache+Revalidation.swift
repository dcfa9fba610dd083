import Foundation

// Asking the origin: a plain fetch, a revalidation of a stored response (RFC 9111 §4.3), stale-if-error
// (RFC 5861 §4), stale-while-revalidate in the background, and a caller's own conditional request (§4.3.2).
extension HTTPCache {
    /// Asks the server and keeps the answer when allowed.
    func fetch(
        key: String, request: TransportRequest, original: TransportRequest, asked: CacheControl, next: TransportNext
    ) async throws -> TransportReply {
        let requestDate = now()
        let reply = try await next(request)
        await keep(reply, key: key, request: original, asked: asked, requestDate: requestDate)
        return reply
    }

    /// Asks the server whether `stored` (kept under `key`; `primaryKey` is the URL's) is still good: a 304 that
    /// agrees with its validators refreshes it, an error may fall back on it, and an error never erases it.
    func revalidate(
        _ stored: CachedResponse, key: String, primaryKey: String, request: TransportRequest, asked: CacheControl,
        next: TransportNext
    ) async throws -> TransportReply {
        var conditional = request
        if let etag = stored.header("ETag") { conditional.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        if let modified = stored.header("Last-Modified") {
            conditional.setValue(modified, forHTTPHeaderField: "If-Modified-Since")
        }
        let requestDate = now()
        let reply: TransportReply
        do {
            reply = try await next(conditional)
        } catch let error where !(error is CancellationError) && (error as? URLError)?.code != .cancelled {
            if let fallback = staleIfError(stored, key: key, request: request, asked: asked) { return fallback }
            throw error
        }
        let status = reply.response.statusCode
        if status == 304, stored.hasValidator {
            // §4.3.4: the 304 must speak of the stored response; one that names another validator refreshes
            // nothing, and the full response is fetched instead.
            guard Self.validatorsAgree(stored, reply.response) else {
                return try await fetch(key: primaryKey, request: request, original: request, asked: asked, next: next)
            }
            let refreshed = stored.updated(by: reply.response, requestDate: requestDate, responseDate: now())
            await io { self.storage.store(refreshed, forKey: key) }
            // The 304's `Set-Cookie` lines are for this caller only: never stored, never replayed to the next one,
            // and each its own field (RFC 9110 §5.3: they cannot be joined into one).
            var served = serve(refreshed, key: key, to: request, as: .revalidated)
            // Over URLSession the 304's lines come joined: split again, as they were sent.
            let cookies = SetCookieLines.lines(of: reply.response)
            if !cookies.isEmpty {
                var fields = served.response.headerFields
                for cookie in cookies { fields.append("Set-Cookie", cookie) }
                served.response = ResponseHead(
                    statusCode: served.response.statusCode, headerFields: fields, url: served.response.url)
            }
            served.queueTime = reply.queueTime
            return served
        }
        if status >= 500 || status == 429 {
            // The server is struggling: pass its answer on, but the stored copy stays for the next request, and
            // for an offline one (§4.3.3 lets a cache keep it).
            if let fallback = staleIfError(stored, key: key, request: request, asked: asked) { return fallback }
            return reply
        }
        await keep(reply, key: primaryKey, request: request, asked: asked, requestDate: requestDate)
        return reply
    }

    /// Whether a 304's validators select the stored response (§4.3.4): the same entity tag when it sends one, else
    /// the same `Last-Modified` when both have one.
    static func validatorsAgree(_ stored: CachedResponse, _ notModified: ResponseHead) -> Bool {
        if let tag = notModified.value(forHTTPHeaderField: "ETag") {
            return stored.header("ETag").map { EntityTag.weaklyEqual($0, tag) } ?? false
        }
        if let modified = notModified.value(forHTTPHeaderField: "Last-Modified"),
            let storedModified = stored.header("Last-Modified")
        {
            return HTTPDate.parse(modified) == HTTPDate.parse(storedModified)
        }
        return true
    }

    /// `stale-if-error` (RFC 5861 §4), from the response or the request, unless the response forbids stale use.
    private func staleIfError(_ stored: CachedResponse, key: String, request: TransportRequest, asked: CacheControl)
        -> TransportReply?
    {
        let control = stored.cacheControl
        guard !forbidsStale(control), !control.has("no-cache"),
            let window = control.seconds("stale-if-error") ?? asked.seconds("stale-if-error")
        else { return nil }
        let age = stored.age(at: now())
        guard age - stored.freshnessLifetime(shared: isShared) <= TimeInterval(window.value) else { return nil }
        return serve(stored, key: key, to: request, as: .cache, age: age)
    }

    /// `stale-while-revalidate`: the stale response is served now and refreshed behind the caller's back.
    func revalidateInBackground(
        _ stored: CachedResponse, key: String, primaryKey: String, request: TransportRequest, next: TransportNext
    ) {
        let started = revalidating.withLock { $0.insert(key).inserted }
        guard started else { return }
        let task = Task {
            defer { _ = revalidating.withLock { $0.remove(key) } }
            _ = try? await revalidate(
                stored, key: key, primaryKey: primaryKey, request: request, asked: CacheControl(nil), next: next)
        }
        background.withLock { $0[key] = task }
    }

    /// Waits until every background revalidation started so far has finished (for tests, and before a scope that
    /// installed a transport ends).
    public func waitForBackgroundRevalidations() async {
        let tasks = background.withLock { tasks in
            defer { tasks.removeAll() }
            return Array(tasks.values)
        }
        for task in tasks { await task.value }
    }

    /// A 304 built from a stored response for a caller whose own validators match it (§4.3.2, §4.3.4).
    func notModified(_ stored: CachedResponse, key: String, to request: TransportRequest) -> TransportReply {
        var headers = stored.headers
        for name in headers.keys where CachedResponse.keptOnUpdate.contains(name.lowercased()) {
            headers[name] = nil
        }
        let response = ResponseHead(
            statusCode: 304, headerFields: HTTPHeaders(headers), url: request.url)
        return TransportReply(data: Data(), response: response, source: .cache)
    }
}

/// A caller's own `If-None-Match` / `If-Modified-Since`, evaluated against a stored response (RFC 9110 §13.1).
struct CallerValidators {
    let noneMatch: String?
    let modifiedSince: Date?

    /// The request's validators, or `nil` when it sends none.
    init?(_ request: TransportRequest) {
        noneMatch = request.value(forHTTPHeaderField: "If-None-Match")
        let since = request.value(forHTTPHeaderField: "If-Modified-Since")
        guard noneMatch != nil || since != nil else { return nil }
        modifiedSince = since.flatMap(HTTPDate.parse)
    }

    /// Whether the stored response is what the caller already has: `If-None-Match` compared weakly (and `*`), or,
    /// only without it, `If-Modified-Since` no earlier than the stored `Last-Modified`; without one, the stored
    /// `Date`, and without that, when the response was received (RFC 9111 §4.3.2).
    func match(_ stored: CachedResponse) -> Bool {
        if let noneMatch {
            guard let tag = stored.header("ETag") else { return false }
            return noneMatch.split(separator: ",").contains { candidate in
                let candidate = candidate.trimmingCharacters(in: .whitespaces)
                return candidate == "*" || EntityTag.weaklyEqual(candidate, tag)
            }
        }
        guard let modifiedSince else { return false }
        // A `Last-Modified` or `Date` that does not parse stands for nothing: the stored response is not matched.
        let lastModified: Date? =
            if let value = stored.header("Last-Modified") {
                HTTPDate.parse(value)
            } else if let value = stored.header("Date") {
                HTTPDate.parse(value)
            } else {
                stored.responseDate
            }
        guard let lastModified else { return false }
        return lastModified <= modifiedSince
    }
}

/// Entity tags (RFC 9110 §8.8.3).
enum EntityTag {
    /// Weak comparison: the same opaque tag, whether either is marked weak (`W/`).
    static func weaklyEqual(_ first: String, _ second: String) -> Bool {
        opaque(first) == opaque(second)
    }

    private static func opaque(_ tag: String) -> Substring {
        let trimmed = tag.trimmingCharacters(in: .whitespaces)
        return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : Substring(trimmed)
    }
}
