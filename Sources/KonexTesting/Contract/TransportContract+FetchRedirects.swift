import Foundation
import Konex

// The redirect rules of the Fetch standard (§4.4 "HTTP-redirect fetch", the facts web-platform-tests'
// `fetch/api/redirect/` checks), as Konex's client follows them over the transport under test. One difference, on
// purpose: a hop that becomes a GET drops every `Content-*` field, not only Fetch's four request-body-header names
// (`Content-Encoding`, `Content-Language`, `Content-Location`, `Content-Type`): with the body gone, a
// `Content-Length` or `Content-MD5` would describe bytes that are not sent.
extension TransportContract {
    /// A request to `/redirect-to` whose body carries the four request-body headers Fetch drops on a method change.
    static func bodyRedirect(_ server: URL, to target: String, status: Int, method: String) -> URLRequest {
        var request = redirectTo(server, target, status: status, method: method, body: Data("payload".utf8))
        for (name, value) in [
            ("Content-Type", "text/plain"), ("Content-Language", "en"), ("Content-Location", "/draft"),
            ("Content-Encoding", "identity"), ("X-Konex-Kept", "kept"),
        ] {
            request.setValue(value, forHTTPHeaderField: name)
        }
        return request
    }

    /// What httpbin's `/anything` saw: the method, the body, and the headers.
    static func echoed(_ response: Response<Data>) throws -> (method: String, body: String, headers: [String: String]) {
        let seen = try json(response.data)
        return (
            seen["method"] as? String ?? "?", seen["data"] as? String ?? "",
            seen["headers"] as? [String: String] ?? [:]
        )
    }

    static let fetchRedirectChecks: [Check] = [
        Check(name: "Fetch: a 301 or 302 turns a POST into a GET without the body and its Content-* headers") {
            context in
            for status in [301, 302] {
                let hop = bodyRedirect(context.server, to: "/anything", status: status, method: "POST")
                let seen = try echoed(try await context.client.request(hop).response())
                try require(seen.method == "GET" && seen.body.isEmpty, "\(status): arrived as \(seen.method)")
                let kept = ["Content-Type", "Content-Language", "Content-Location", "Content-Encoding"].filter {
                    seen.headers[$0] != nil
                }
                try require(kept.isEmpty, "\(status): the GET still carried \(kept)")
                try require(seen.headers["X-Konex-Kept"] == "kept", "\(status): an ordinary header was dropped")
            }
        },
        Check(name: "Fetch: a 301 or 302 keeps any method but POST, with its body") { context in
            for status in [301, 302] {
                let hop = bodyRedirect(context.server, to: "/anything", status: status, method: "PUT")
                let seen = try echoed(try await context.client.request(hop).response())
                try require(
                    seen.method == "PUT" && seen.body == "payload" && seen.headers["Content-Type"] == "text/plain",
                    "\(status): a PUT arrived as \(seen.method) with `\(seen.body)`")
            }
        },
        Check(name: "Fetch: a 303 turns every method but HEAD into a GET, and a HEAD stays a HEAD") { context in
            for method in ["POST", "PUT", "DELETE", "PATCH"] {
                let hop = bodyRedirect(context.server, to: "/anything", status: 303, method: method)
                let seen = try echoed(try await context.client.request(hop).response())
                try require(
                    seen.method == "GET" && seen.body.isEmpty && seen.headers["Content-Type"] == nil,
                    "303 after \(method): arrived as \(seen.method) with `\(seen.body)`")
            }
            let head = redirectTo(context.server, "/get", status: 303, method: "HEAD")
            let answer = try await context.client.request(head).response()
            try require(
                answer.statusCode == 200 && answer.response.url.path == "/get" && answer.data.isEmpty
                    && answer.request.httpMethod == "HEAD",
                "303 after HEAD: ended \(answer.statusCode) at \(answer.response.url.path) as \(answer.request.httpMethod)"
            )
        },
        Check(name: "Fetch: a 307 or 308 keeps the method and the body") { context in
            for status in [307, 308] {
                for method in ["POST", "PUT"] {
                    let hop = bodyRedirect(context.server, to: "/anything", status: status, method: method)
                    let seen = try echoed(try await context.client.request(hop).response())
                    try require(
                        seen.method == method && seen.body == "payload"
                            && seen.headers["Content-Type"] == "text/plain",
                        "\(status) after \(method): arrived as \(seen.method) with `\(seen.body)`")
                }
            }
        },
        Check(name: "Fetch: 20 hops are followed, the 21st fails") { context in
            let twenty = try await context.client.request(request(context.server, "/redirect/20")).response()
            try require(
                twenty.statusCode == 200 && twenty.redirects.count == 20, "20 hops: \(twenty.redirects.count)")
            try await requireRedirectRefused(
                request(context.server, "/redirect/21"), through: context.client, "a chain of 21 redirects")
        },
        Check(name: "Fetch: a Location that is not http or https fails the fetch") { context in
            for target in ["ftp://127.0.0.1/file", "data:text/plain,hello", "javascript:alert(1)", "about:blank"] {
                try await requireRedirectRefused(
                    redirectTo(context.server, target, status: 302), through: context.client, "a redirect to \(target)")
            }
        },
        Check(name: "Fetch: a relative Location resolves against the URL of its own hop") { context in
            // /relative-redirect/3 answers each hop with a path relative to that hop: /relative-redirect/2, then
            // /relative-redirect/1, then /get.
            let chain = try await context.client.request(request(context.server, "/relative-redirect/3")).response()
            try require(
                chain.statusCode == 200 && chain.response.url.path == "/get"
                    && chain.redirects.map(\.url.path) == [
                        "/relative-redirect/3", "/relative-redirect/2", "/relative-redirect/1",
                    ],
                "ended at \(chain.response.url.path) after \(chain.redirects.map(\.url.path))")
            // Dot segments and a query: "../anything/x?from=hop" from /redirect-to is /anything/x?from=hop.
            let nested = try await context.client.request(
                request(context.server, "/redirect-to?url=..%2Fanything%2Fx%3Ffrom%3Dhop&status_code=302")
            ).response()
            try require(
                nested.response.url.path == "/anything/x" && nested.response.url.query == "from=hop",
                "`../anything/x?from=hop` from /redirect-to resolved to \(nested.response.url.absoluteString)")
        },
    ]
}
