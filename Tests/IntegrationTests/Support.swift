import Foundation
import Konex
import KonexTesting
import Testing

#if AsyncHTTPClient
    import KonexAsyncHTTPClient
#endif

/// The transport the integration suites talk through: `URLSessionTransport`, or `AsyncHTTPClientTransport` when
/// `KONEX_TRANSPORT=ahc` (scripts/test's second pass, built with `--traits AsyncHTTPClient`), so every suite runs
/// over both.
enum Live {
    static let name = ProcessInfo.processInfo.environment["KONEX_TRANSPORT"] ?? "urlsession"
    static var isAsyncHTTPClient: Bool { name == "ahc" }

    static func transport(redirectPolicy: RedirectPolicy = .follow) -> any Transport {
        switch name {
        case "urlsession":
            return URLSessionTransport(configuration: .ephemeral, redirectPolicy: redirectPolicy)
        case "ahc":
            #if AsyncHTTPClient
                return AsyncHTTPClientTransport(
                    client: AsyncHTTPClientTransport.shared.client, redirectPolicy: redirectPolicy)
            #else
                fatalError("KONEX_TRANSPORT=ahc needs a build with --traits AsyncHTTPClient")
            #endif
        default:
            fatalError("KONEX_TRANSPORT is `urlsession` or `ahc`, not `\(name)`")
        }
    }
}

/// Where the real server is: scripts/test starts httpbin on 127.0.0.1 and exports KONEX_HTTPBIN_URL.
enum Server {
    static let url: URL? = ProcessInfo.processInfo.environment["KONEX_HTTPBIN_URL"].flatMap(URL.init(string:))
    static var isAvailable: Bool { url != nil }
    /// scripts/test sets this so a missing server fails the run instead of skipping the suite.
    static var isRequired: Bool { ProcessInfo.processInfo.environment["KONEX_REQUIRE_INTEGRATION"] == "1" }
    static let skipReason: Comment =
        "KONEX_HTTPBIN_URL is not set: run scripts/test, which starts a real httpbin on 127.0.0.1"

    static func client(
        headers: [String: String] = [:], transport: (any Transport)? = nil, timeout: Duration? = nil,
        clock: any Clock<Duration> = ContinuousClock()
    ) -> KonexClient {
        KonexClient(
            baseURL: url!, headers: headers, transport: transport ?? Live.transport(),
            timeout: timeout, clock: clock)
    }
}

@Suite struct IntegrationPrerequisites {
    @Test func serverIsConfiguredWhenRequired() {
        if Server.isRequired {
            #expect(Server.isAvailable, "scripts/test must export KONEX_HTTPBIN_URL")
        }
    }
}

/// What httpbin's /anything, /get and /post echo back.
struct Echo: Decodable, Sendable {
    var args: [String: StringOrList]
    var headers: [String: String]
    var method: String?
    var json: JSON?
    var form: [String: StringOrList]?
    var files: [String: String]?
    var data: String?
    var url: String
}

enum StringOrList: Decodable, Sendable, Equatable {
    case one(String)
    case many([String])
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let one = try? container.decode(String.self) {
            self = .one(one)
        } else {
            self = .many(try container.decode([String].self))
        }
    }
}
