import Foundation
import Konex

#if AsyncHTTPClient
    import KonexAsyncHTTPClient
#endif

// A command-line tool that calls an API through Konex over AsyncHTTPClient, with no server framework: the shape of a
// cron job, a worker or a CLI on Linux. Run it against any httpbin-compatible server:
//
//   swift run --traits AsyncHTTPClient konex-server-example http://127.0.0.1:8080
//
// It owns its HTTPClient (so it shuts it down), retries 5xx with backoff, bounds every request to 2 s, and exits
// non-zero with a precise error when the API misbehaves.

/// What `/anything` echoes back.
struct Echo: Decodable, Sendable {
    let method: String
    let url: String
    let json: [String: String]?
}

/// One endpoint of the API, as a value.
struct Publish: KonexRequest {
    let name: String
    var path: String { "/anything/publish" }
    var method: HTTPMethod { .post }
    var body: RequestBody? { .json(["name": name]) }
}

#if AsyncHTTPClient
    /// Publishes one report and shows a sub-second timeout; `false` when the API misbehaved.
    func run(against base: URL) async throws -> Bool {
        let http = AsyncHTTPClientTransport.makeClient(connectTimeout: .milliseconds(500))
        let client = KonexClient(
            baseURL: base, transport: AsyncHTTPClientTransport(client: http, headTimeout: .seconds(2)),
            timeout: .seconds(2), retriers: [RetryPolicy(maximumAttempts: 3)])
        var succeeded = true
        do {
            let echo = try await client.request(Publish(name: "nightly-report")).validate()
                .responseObject(of: Echo.self)
            print("published \(echo.json?["name"] ?? "?") with \(echo.method) \(echo.url)")
            do {
                _ = try await client.request("/delay/1").timeout(.milliseconds(300)).validate().responseData()
                print("konex-server-example: /delay/1 answered within a 300 ms timeout")
                succeeded = false
            } catch let error as KonexError where error.isTimeout {
                print("a 300 ms timeout fired as asked (stage \(error.stage))")
            }
        } catch {
            print("konex-server-example: \(error)")
            succeeded = false
        }
        try await http.shutdown()  // the tool made the client, so the tool shuts it down
        return succeeded
    }

    let arguments = CommandLine.arguments
    guard arguments.count == 2, let base = URL(string: arguments[1]) else {
        print("usage: konex-server-example <baseURL>")
        exit(64)
    }
    exit(try await run(against: base) ? 0 : 1)
#else
    print("konex-server-example needs the trait: swift run --traits AsyncHTTPClient konex-server-example <baseURL>")
    exit(64)
#endif
