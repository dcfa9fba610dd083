import Foundation

/// The rules every redirect passes before a ``RedirectPolicy`` is asked, written once for every transport.
///
/// Drawn from the clients that were burned by redirects: credentials stay with their scheme, host and port (curl's
/// CVE-2018-1000007 and CVE-2022-27776, Python requests' `should_strip_auth`, Go's `shouldCopyHeaderOnRedirect`);
/// only `http` and `https` are followed, a Unix socket only within itself, and a cycle is an error
/// (AsyncHTTPClient's `RedirectState`); a change of method drops the body's `Content-*` fields (the Fetch standard's
/// request-body header names).
enum RedirectRules {
    /// What happens after a response.
    enum Decision {
        /// Not a redirect to follow: the response is the answer.
        case stop
        /// Send this request next; `hop` records the redirect that led to it.
        case follow(TransportRequest, hop: Redirect)
        /// The redirect is refused: the reason, for a ``KonexError/Stage/redirect`` error.
        case refuse(String)
    }

    /// The statuses that redirect (300, 304, 305 and 306 do not).
    @inline(__always) static func redirects(_ status: Int) -> Bool {
        status == 301 || status == 302 || status == 303 || status == 307 || status == 308
    }

    /// Schemes whose "host" is a Unix socket path (AsyncHTTPClient's spellings).
    static let socketSchemes: Set<String> = ["unix", "http+unix", "https+unix"]

    /// The fields a body brings with it, dropped when the body is.
    static func isBodyField(_ lowercasedName: String) -> Bool {
        lowercasedName.hasPrefix("content-") || lowercasedName == "transfer-encoding"
    }

    /// Decides what follows `response`, the answer to `request`.
    /// - Parameters:
    ///   - response: The answer.
    ///   - request: The request it answered.
    ///   - visited: Method and URL of every request of the chain so far, the first included.
    ///   - policy: The user's policy, asked last.
    ///   - redaction: The client's redaction: every header it treats as secret is dropped on a change of origin,
    ///     besides the credentials every client drops.
    static func next(
        after response: ResponseHead, to request: TransportRequest, visited: [String], policy: RedirectPolicy,
        redaction: Redaction
    ) -> Decision {
        let status = response.statusCode
        let from = request.url
        guard redirects(status), let location = response.value(forHTTPHeaderField: "Location") else { return .stop }
        // The rules judge only the hops Konex follows: a policy that follows nothing returns every 3xx as it came,
        // whatever its Location says (an https answer pointing at http included).
        if policy.followsNothing { return .stop }
        guard let target = URL(string: location, relativeTo: from)?.absoluteURL, target.scheme != nil else {
            return .refuse("the \(status) redirect's Location `\(location.prefix(200))` is not a URL")
        }
        let hops = visited.count - 1

        var next = request
        next.url = target
        let method = request.httpMethod.uppercased()
        // A 303 points at another resource: nothing of the request's body goes there (HEAD stays HEAD).
        let dropsBody = status == 303 || ((status == 301 || status == 302) && method == "POST")
        if dropsBody {
            if method != "HEAD" { next.httpMethod = "GET" }
            next.body = nil
            next.headerFields = HTTPHeaders(
                keepingRepeats: next.headerFields.fields.filter { !isBodyField($0.name.lowercased()) })
        } else if let body = request.body, !body.canBeSentAgain {
            // A stream was read once; sending it again would send nothing. The 3xx is the answer.
            return .stop
        }
        if !sameOrigin(from, target) {
            next.headerFields = HTTPHeaders(
                keepingRepeats: next.headerFields.fields.filter { !redaction.isCredential(header: $0.name) })
        }

        // The policy is asked first: a hop it declines is not followed, so no rule has anything to refuse.
        guard let decided = policy.redirect(next, after: response, count: hops) else { return .stop }
        // The rules then judge the hop as it will be sent (the closure may have rewritten it, never around them).
        if let refusal = refusal(from: from, to: decided.url, policy: policy) { return .refuse(refusal) }
        if hops >= policy.maximumRedirects {
            return .refuse("more than \(policy.maximumRedirects) redirects")
        }
        let key = visitKey(decided)
        if visited.contains(key) {
            return .refuse("a redirect loop: \(key) was already requested in this chain")
        }
        return .follow(decided, hop: Redirect(url: from, statusCode: status))
    }

    /// The method and URL that identify a request of a chain, for loop detection.
    static func visitKey(_ request: TransportRequest) -> String {
        "\(request.httpMethod.uppercased()) \(request.url.absoluteString)"
    }

    /// Why a redirect from `from` to `target` may not be followed, or `nil` when it may.
    static func refusal(from: URL, to target: URL, policy: RedirectPolicy) -> String? {
        let fromScheme = from.scheme?.lowercased() ?? ""
        let toScheme = target.scheme?.lowercased() ?? ""
        let shown = target.absoluteString.prefix(200)
        if socketSchemes.contains(fromScheme) {
            guard toScheme == fromScheme, target.host == from.host else {
                return "a redirect from a Unix socket leaves only within the same socket, not to `\(shown)`"
            }
            return nil
        }
        guard toScheme == "http" || toScheme == "https" else {
            return "a redirect to a `\(toScheme):` URL is never followed (`\(shown)`)"
        }
        if fromScheme == "https", toScheme == "http", !policy.allowsInsecureDowngrade {
            return
                "a redirect from https to http is refused (`\(shown)`); RedirectPolicy.allowingInsecureDowngrade() allows it"
        }
        return nil
    }

    /// Whether two URLs share an origin: scheme, host (in any case) and port (a default port written or not).
    static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        let schemeA = a.scheme?.lowercased()
        let schemeB = b.scheme?.lowercased()
        return schemeA == schemeB && a.host?.lowercased() == b.host?.lowercased()
            && port(of: a, scheme: schemeA) == port(of: b, scheme: schemeB)
    }

    private static func port(of url: URL, scheme: String?) -> Int? {
        if let port = url.port { return port }
        switch scheme {
        case "http", "ws": return 80
        case "https", "wss": return 443
        default: return nil
        }
    }
}
