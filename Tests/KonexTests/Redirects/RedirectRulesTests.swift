import Foundation
import Testing

@testable import Konex

/// The redirect rules alone, hop by hop, as a hostile server would try them.
@Suite struct RedirectRulesTests {
    private static func request(
        _ url: String, method: String = "GET", headers: [String: String] = [:], body: Data? = nil
    ) -> TransportRequest {
        var request = TransportRequest(head: RequestHead(method: HTTPMethod(method), url: URL(string: url)!))
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        return request
    }

    private static func answer(_ status: Int, location: String?, at url: String) -> ResponseHead {
        ResponseHead(statusCode: status, headerFields: location.map { ["Location": $0] } ?? [:], url: URL(string: url)!)
    }

    private static func decide(
        _ request: TransportRequest, _ status: Int, to location: String?, policy: RedirectPolicy = .follow,
        redaction: Redaction = .default
    ) -> RedirectRules.Decision {
        RedirectRules.next(
            after: answer(status, location: location, at: request.url.absoluteString), to: request,
            visited: [RedirectRules.visitKey(request)], policy: policy, redaction: redaction)
    }

    private static func followed(_ decision: RedirectRules.Decision) -> TransportRequest? {
        if case .follow(let next, _) = decision { return next }
        return nil
    }

    private static func refusal(_ decision: RedirectRules.Decision) -> String? {
        if case .refuse(let reason) = decision { return reason }
        return nil
    }

    static let credentials = [
        "Authorization": "Bearer s3cret", "Proxy-Authorization": "Basic cHJveHk=", "Cookie": "session=abc",
        "X-API-Key": "k3y", "X-Trace": "kept",
    ]

    @Test(arguments: [
        "file:///etc/passwd", "ftp://127.0.0.1/x", "data:text/plain,hi", "unix:///var/run/docker.sock",
        "http+unix://%2Fvar%2Frun%2Fdocker.sock/containers/json", "https+unix://%2Ftmp%2Fs/x", "javascript:alert(1)",
        "gopher://127.0.0.1:6379/_FLUSHALL", "ws://127.0.0.1/socket", "HTTP+UNIX://%2Fvar%2Frun%2Fdocker.sock/x",
    ])
    func aSchemeThatIsNotHTTPIsNeverFollowed(location: String) throws {
        let reason = try #require(Self.refusal(Self.decide(Self.request("http://127.0.0.1:8080/a"), 302, to: location)))
        #expect(reason.contains("never followed"))
    }

    @Test func aUnixSocketOriginRedirectsOnlyWithinItsOwnSocket() throws {
        let socket = Self.request("http+unix://%2Ftmp%2Fapp.sock/a", headers: Self.credentials)
        let within = try #require(Self.followed(Self.decide(socket, 302, to: "/b")))
        #expect(within.url.absoluteString == "http+unix://%2Ftmp%2Fapp.sock/b")
        #expect(within.value(forHTTPHeaderField: "Authorization") == "Bearer s3cret")
        for location in [
            "http+unix://%2Fvar%2Frun%2Fdocker.sock/x", "http://127.0.0.1/x", "https+unix://%2Ftmp%2Fapp.sock/b",
        ] {
            #expect(
                Self.refusal(Self.decide(socket, 302, to: location))?.contains("same socket") == true, "\(location)")
        }
    }

    @Test func httpsToHTTPIsRefusedUnlessAllowedAndThenStripped() throws {
        let secure = Self.request("https://api.test/a", headers: Self.credentials)
        #expect(Self.refusal(Self.decide(secure, 301, to: "http://api.test/a"))?.contains("https to http") == true)
        let allowed = try #require(
            Self.followed(
                Self.decide(
                    secure, 301, to: "http://api.test/a", policy: RedirectPolicy.follow.allowingInsecureDowngrade())))
        #expect(allowed.url.scheme == "http")
        #expect(allowed.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(allowed.value(forHTTPHeaderField: "Cookie") == nil)
        // http → https is an upgrade, but still another origin.
        let upgraded = try #require(
            Self.followed(
                Self.decide(Self.request("http://api.test/a", headers: Self.credentials), 301, to: "https://api.test/a")
            ))
        #expect(upgraded.value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test(arguments: [
        "http://127.0.0.1:9090/b",  // another port
        "http://localhost:8080/b",  // another name for the same machine is another host
        "https://127.0.0.1:8080/b",  // another scheme
        "http://evil.test:8080/b",
        "//evil.test/b",  // scheme-relative
    ])
    func anotherOriginNeverSeesCredentials(location: String) throws {
        let request = Self.request("http://127.0.0.1:8080/a", headers: Self.credentials)
        let next = try #require(Self.followed(Self.decide(request, 302, to: location)))
        for name in ["Authorization", "Proxy-Authorization", "Cookie", "X-API-Key", "x-api-key", "COOKIE"] {
            #expect(next.value(forHTTPHeaderField: name) == nil, "\(name) reached \(location)")
        }
        #expect(next.value(forHTTPHeaderField: "X-Trace") == "kept")
    }

    @Test func aHeaderTheClientsRedactionListsIsDroppedToo() throws {
        var redaction = Redaction.default
        redaction.recognisesSecretNames = false
        redaction.headers.insert("x-tenant")
        let request = Self.request("https://api.test/a", headers: ["X-Tenant": "t", "X-Other": "o"])
        let next = try #require(
            Self.followed(Self.decide(request, 307, to: "https://cdn.test/a", redaction: redaction)))
        #expect(next.value(forHTTPHeaderField: "X-Tenant") == nil)
        #expect(next.value(forHTTPHeaderField: "X-Other") == "o")
    }

    @Test(arguments: ["X-Tenant-Key", "x_access_token", "X-Amz-Security-Token", "Client-Secret", "X-CSRF-Token"])
    func aHeaderNamedLikeACredentialIsDroppedAlthoughNoListNamesIt(name: String) throws {
        let request = Self.request("https://api.test/a", headers: [name: "t"])
        let next = try #require(Self.followed(Self.decide(request, 302, to: "https://cdn.test/a")))
        #expect(next.value(forHTTPHeaderField: name) == nil)
    }

    @Test(arguments: ["/b", "http://127.0.0.1:8080/b", "HTTP://127.0.0.1:8080/b", "http://127.0.0.1:8080/b?x=1#f"])
    func theSameOriginKeepsCredentials(location: String) throws {
        let request = Self.request("http://127.0.0.1:8080/a", headers: Self.credentials)
        let next = try #require(Self.followed(Self.decide(request, 302, to: location)))
        #expect(next.value(forHTTPHeaderField: "Authorization") == "Bearer s3cret")
        #expect(next.value(forHTTPHeaderField: "X-API-Key") == "k3y")
    }

    @Test func aDefaultPortWrittenOrNotIsTheSameOrigin() {
        #expect(RedirectRules.sameOrigin(URL(string: "http://a.test/x")!, URL(string: "http://A.TEST:80/y")!))
        #expect(RedirectRules.sameOrigin(URL(string: "https://a.test/x")!, URL(string: "https://a.test:443/y")!))
        #expect(!RedirectRules.sameOrigin(URL(string: "http://a.test/x")!, URL(string: "http://a.test:443/y")!))
        #expect(!RedirectRules.sameOrigin(URL(string: "http://a.test/x")!, URL(string: "https://a.test/y")!))
    }

    @Test(arguments: [
        (303, "POST", "GET"), (303, "PUT", "GET"), (303, "DELETE", "GET"), (303, "HEAD", "HEAD"), (303, "GET", "GET"),
        (301, "POST", "GET"), (302, "POST", "GET"), (301, "PUT", "PUT"), (302, "PATCH", "PATCH"),
        (307, "POST", "POST"), (308, "PUT", "PUT"), (302, "HEAD", "HEAD"),
    ])
    func theMethodAfterARedirect(status: Int, method: String, expected: String) throws {
        let body = Data(#"{"a":1}"#.utf8)
        let request = Self.request(
            "https://api.test/a", method: method,
            headers: ["Content-Type": "application/json", "Content-Language": "en", "X-Keep": "1"], body: body)
        let next = try #require(Self.followed(Self.decide(request, status, to: "/b")))
        #expect(next.httpMethod == expected)
        #expect(next.value(forHTTPHeaderField: "X-Keep") == "1")
        if expected == method && status != 303 {
            #expect(next.httpBody == body)
            #expect(next.value(forHTTPHeaderField: "Content-Type") == "application/json")
        } else {
            #expect(next.httpBody == nil)
            #expect(next.value(forHTTPHeaderField: "Content-Type") == nil)
            #expect(next.value(forHTTPHeaderField: "Content-Language") == nil)
        }
    }

    @Test(arguments: [307, 308])
    func aBodyThatCannotBeSentAgainEndsTheChainWithThe3xx(status: Int) {
        var upload = URLRequest(url: URL(string: "https://api.test/upload")!)
        upload.httpMethod = "POST"
        upload.httpBodyStream = InputStream(data: Data("once".utf8))
        let request = TransportRequest(upload)
        guard case .stop = Self.decide(request, status, to: "/elsewhere") else {
            Issue.record("a streamed body was proposed for sending again")
            return
        }
    }

    @Test(arguments: [300, 304, 305, 306, 200, 404])
    func statusesThatDoNotRedirect(status: Int) {
        guard case .stop = Self.decide(Self.request("https://api.test/a"), status, to: "/b") else {
            Issue.record("\(status) was followed")
            return
        }
    }

    @Test func aRedirectWithoutALocationIsTheAnswer() {
        guard case .stop = Self.decide(Self.request("https://api.test/a"), 302, to: nil) else {
            Issue.record("a 302 without Location was followed")
            return
        }
    }

    @Test(arguments: ["http://[::1", "http://exa mple.com/", "::::"])
    func aLocationThatIsNotAURLIsATypedRefusal(location: String) throws {
        let reason = try #require(Self.refusal(Self.decide(Self.request("https://api.test/a"), 302, to: location)))
        #expect(reason.contains("not a URL") || reason.contains("never followed"))
    }

    @Test func aLoopIsRefusedNamingTheRequest() throws {
        let first = Self.request("https://api.test/a")
        let visited = [RedirectRules.visitKey(first), "GET https://api.test/b"]
        let decision = RedirectRules.next(
            after: Self.answer(302, location: "/a", at: "https://api.test/b"),
            to: Self.request("https://api.test/b"), visited: visited, policy: .follow, redaction: .default)
        #expect(Self.refusal(decision)?.contains("loop: GET https://api.test/a") == true)
    }

    @Test(arguments: [0, 1, 20, Int.max])
    func theHopCapIsATypedRefusal(maximum: Int) throws {
        let policy = RedirectPolicy(maximumRedirects: maximum) { request, _, _ in request }
        let request = Self.request("https://api.test/0")
        let hops = min(maximum, 25)
        let visited = (0...hops).map { "GET https://api.test/\($0)" }
        let decision = RedirectRules.next(
            after: Self.answer(302, location: "/next", at: "https://api.test/\(hops)"), to: request, visited: visited,
            policy: policy, redaction: .default)
        if maximum > 25 {
            #expect(Self.followed(decision) != nil)
        } else {
            #expect(Self.refusal(decision) == "more than \(maximum) redirects")
        }
    }

    @Test func aNegativeMaximumMeansNoRedirects() {
        #expect(RedirectPolicy(maximumRedirects: -5) { request, _, _ in request }.maximumRedirects == 0)
        #expect(RedirectPolicy(maximumRedirects: Int.min) { request, _, _ in request }.maximumRedirects == 0)
    }

    @Test func thePolicyCannotRewriteIntoARefusedScheme() throws {
        let sneaky = RedirectPolicy { request, _, _ in
            var rewritten = request
            rewritten.url = URL(string: "file:///etc/passwd")!
            return rewritten
        }
        let reason = try #require(
            Self.refusal(Self.decide(Self.request("https://api.test/a"), 302, to: "/b", policy: sneaky)))
        #expect(reason.contains("file:"))
    }

    @Test func thePolicyDecidesWithinTheRules() throws {
        #expect(
            Self.followed(Self.decide(Self.request("https://api.test/a"), 302, to: "/b", policy: .doNotFollow)) == nil)
        let marked = RedirectPolicy { request, _, count in
            var request = request
            request.setValue("\(count)", forHTTPHeaderField: "X-Hop")
            return request
        }
        let next = try #require(
            Self.followed(Self.decide(Self.request("https://api.test/a"), 302, to: "/b", policy: marked)))
        #expect(next.value(forHTTPHeaderField: "X-Hop") == "0")
    }

    /// A browser's recording of an https → http chain replayed with redirects off: each 3xx is the answer as it came.
    @Test(arguments: [
        "http://api.test/downgraded", "file:///etc/passwd", "http://[::1", "javascript:alert(1)", "/a",
    ])
    func notFollowingMeansNoRuleJudgesTheHop(location: String) {
        let secure = Self.request("https://api.test/a", headers: Self.credentials)
        let decision = RedirectRules.next(
            after: Self.answer(302, location: location, at: "https://api.test/a"), to: secure,
            visited: [RedirectRules.visitKey(secure)], policy: .doNotFollow, redaction: .default)
        guard case .stop = decision else {
            Issue.record("under doNotFollow, a 302 to \(location) was \(decision), not the answer")
            return
        }
    }

    @Test func aHopThePolicyDeclinesIsNotRefused() {
        let declining = RedirectPolicy { _, _, _ in nil }
        for location in ["http://api.test/downgraded", "ftp://api.test/x"] {
            let decision = Self.decide(Self.request("https://api.test/a"), 301, to: location, policy: declining)
            #expect(Self.refusal(decision) == nil, "\(location)")
            #expect(Self.followed(decision) == nil, "\(location)")
        }
        // The same hops followed are still refused.
        #expect(Self.refusal(Self.decide(Self.request("https://api.test/a"), 301, to: "http://api.test/x")) != nil)
    }
}
