import Foundation

/// A response kept by an ``HTTPCache``: what the server sent, when, and what the request said for each header the
/// response varies on.
public struct CachedResponse: Codable, Sendable, Hashable {
    /// The URL the response answered.
    public var url: URL
    /// The status code.
    public var statusCode: Int {
        didSet { parsed = Parsed(headers: headers, statusCode: statusCode) }
    }
    /// The response headers as received (merged with those of later `304 Not Modified` answers).
    public var headers: [String: String] {
        didSet { parsed = Parsed(headers: headers, statusCode: statusCode) }
    }
    /// The body.
    public var body: Data
    /// When the request that got this response was sent (for the age calculation of RFC 9111 §4.2.3).
    public var requestDate: Date
    /// When the response arrived.
    public var responseDate: Date
    /// The request's value of each header named by the response's `Vary` (lower-case names; absent headers absent).
    public var varying: [String: String]
    /// What the headers say about freshness, parsed once when the headers are set (a hit reads it, never reparses).
    private(set) var parsed: Parsed

    private enum CodingKeys: String, CodingKey {
        case url, statusCode, headers, body, requestDate, responseDate, varying
    }

    /// Creates a stored response.
    public init(
        url: URL, statusCode: Int, headers: [String: String], body: Data, requestDate: Date, responseDate: Date,
        varying: [String: String] = [:]
    ) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.requestDate = requestDate
        self.responseDate = responseDate
        self.varying = varying
        parsed = Parsed(headers: headers, statusCode: statusCode)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            url: try container.decode(URL.self, forKey: .url),
            statusCode: try container.decode(Int.self, forKey: .statusCode),
            headers: try container.decode([String: String].self, forKey: .headers),
            body: try container.decode(Data.self, forKey: .body),
            requestDate: try container.decode(Date.self, forKey: .requestDate),
            responseDate: try container.decode(Date.self, forKey: .responseDate),
            varying: try container.decode([String: String].self, forKey: .varying))
    }

    /// The headers that decide freshness and validation, parsed.
    struct Parsed: Sendable, Hashable {
        var control: CacheControl
        var date: Date?
        var age: Int
        /// `nil` when absent; `.some(nil)` when present but not a date (which means already expired).
        var expires: Date??
        var lastModified: Date?
        var hasValidator: Bool
        var varyNames: [String]
        var heuristicallyCacheable: Bool

        init(headers: [String: String], statusCode: Int) {
            var fields: [String: String] = [:]
            for (name, value) in headers { fields[name.lowercased()] = value }
            control = CacheControl(fields["cache-control"])
            date = fields["date"].flatMap(HTTPDate.parse)
            age = CacheControl.ageSeconds(fields["age"])
            expires = fields["expires"].map(HTTPDate.parse)
            lastModified = fields["last-modified"].flatMap(HTTPDate.parse)
            hasValidator = fields["etag"] != nil || fields["last-modified"] != nil
            varyNames = CachedResponse.varyNames(fields["vary"])
            heuristicallyCacheable = CachedResponse.heuristicallyCacheable.contains(statusCode)
        }
    }

    /// A header's value, its name matched without case.
    public func header(_ name: String) -> String? {
        if let exact = headers[name] { return exact }
        return headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The size counted against a storage's capacity: body and headers.
    var cost: Int { body.count + headers.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count } + 256 }

    var cacheControl: CacheControl { parsed.control }

    /// The lower-case header names of `Vary`; `["*"]` for `Vary: *`.
    static func varyNames(_ field: String?) -> [String] {
        (field ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty }
    }
}

// MARK: - Freshness (RFC 9111 §4.2)

extension CachedResponse {
    /// Statuses a cache may keep without explicit freshness (RFC 9110 §15.1 "heuristically cacheable").
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// The most a heuristic lifetime may be: a day, whatever 10 % of the time since `Last-Modified` says.
    static let heuristicLimit: TimeInterval = 86_400

    /// The current age (§4.2.3), in seconds.
    func age(at now: Date) -> TimeInterval {
        let dateValue = parsed.date ?? responseDate
        let ageValue = TimeInterval(parsed.age)
        let apparentAge = max(0, responseDate.timeIntervalSince(dateValue))
        let responseDelay = max(0, responseDate.timeIntervalSince(requestDate))
        let correctedInitialAge = max(apparentAge, ageValue + responseDelay)
        return correctedInitialAge + max(0, now.timeIntervalSince(responseDate))
    }

    /// The freshness lifetime (§4.2.1), in seconds; 0 when nothing gives one.
    func freshnessLifetime(shared: Bool) -> TimeInterval {
        let control = cacheControl
        if shared, let sharedMaxAge = control.seconds("s-maxage") { return TimeInterval(sharedMaxAge.value) }
        if let maxAge = control.seconds("max-age") { return TimeInterval(maxAge.value) }
        if let expires = parsed.expires {
            // An invalid Expires ("0", "-1") means already expired (§5.3).
            guard let expiry = expires else { return 0 }
            return max(0, expiry.timeIntervalSince(parsed.date ?? responseDate))
        }
        return heuristicLifetime
    }

    /// 10 % of the time since `Last-Modified`, up to a day (§4.2.2), for statuses that allow it.
    var heuristicLifetime: TimeInterval {
        guard parsed.heuristicallyCacheable, let lastModified = parsed.lastModified else { return 0 }
        let date = parsed.date ?? responseDate
        return min(Self.heuristicLimit, max(0, date.timeIntervalSince(lastModified) * 0.1))
    }

    /// Whether there is explicit freshness information (§4.2.1), valid or not.
    func hasExplicitFreshness(shared: Bool) -> Bool {
        let control = cacheControl
        return control.has("max-age") || (shared && control.has("s-maxage")) || parsed.expires != nil
    }

    /// Whether the response carries a validator for a conditional request.
    var hasValidator: Bool { parsed.hasValidator }

    /// This response updated by a `304 Not Modified` (§4.3.4): its headers replace the stored ones, except those
    /// that describe the stored body itself and those a cache never keeps (`Set-Cookie`, hop-by-hop fields).
    func updated(by notModified: ResponseHead, requestDate: Date, responseDate: Date) -> CachedResponse {
        var merged = self
        for (name, value) in HTTPCache.storedHeaders(of: notModified) {
            let lower = name.lowercased()
            if Self.keptOnUpdate.contains(lower) { continue }
            if let existing = merged.headers.keys.first(where: { $0.lowercased() == lower }) {
                merged.headers[existing] = nil
            }
            merged.headers[name] = value
        }
        merged.requestDate = requestDate
        merged.responseDate = responseDate
        return merged
    }

    /// Headers a 304 does not change: they describe the stored body, or only the hop the 304 took.
    static let keptOnUpdate: Set<String> = [
        "content-length", "content-encoding", "transfer-encoding", "content-range", "connection", "keep-alive",
    ]
}

extension CacheControl {
    /// The `Age` field's seconds (§5.1): a non-negative integer, clamped; anything else counts as 0.
    static func ageSeconds(_ field: String?) -> Int {
        guard let field else { return 0 }
        return CacheControl("age=\(field.trimmingCharacters(in: .whitespaces))").seconds("age")?.value ?? 0
    }
}
