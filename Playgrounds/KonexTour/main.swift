import Foundation
import Konex
import KonexTesting

#if AsyncHTTPClient
    import KonexAsyncHTTPClient
#endif

// swift run konex-tour                       offline, on the fixtures next to this file (with visible delays)
// swift run konex-tour --live <baseURL>      the same tour against a real httpbin-compatible server
//                   [--sse <sseURL>]         …with step 11 against a Server-Sent Events server (scripts/sse-server)
//                   [--ws <wsURL>]           …and step 15 against a WebSocket server (scripts/ws-server)
// swift run --traits AsyncHTTPClient konex-tour [--live <baseURL>] --transport ahc
//                                            every step over AsyncHTTPClient (offline: the fixtures are served on a
//                                            real socket on 127.0.0.1), and step 14 shows what it changes

let arguments = CommandLine.arguments
let usage = "usage: konex-tour [--live <baseURL> [--sse <sseURL>] [--ws <wsURL>]] [--transport urlsession|ahc]"
let transportName =
    arguments.firstIndex(of: "--transport").flatMap {
        arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil
    } ?? "urlsession"
guard ["urlsession", "ahc"].contains(transportName) else {
    print(usage)
    exit(64)
}
#if !AsyncHTTPClient
    if transportName == "ahc" {
        print("--transport ahc needs the package trait: swift run --traits AsyncHTTPClient konex-tour --transport ahc")
        exit(64)
    }
#endif

/// The transport for a base URL: URLSession, or AsyncHTTPClient with `--transport ahc`.
func networkTransport() -> any Transport {
    #if AsyncHTTPClient
        if transportName == "ahc" { return AsyncHTTPClientTransport.shared }
    #endif
    return URLSessionTransport()
}

let client: KonexClient
let live: Bool
var loopback: LoopbackServer?
if let flag = arguments.firstIndex(of: "--live") {
    guard arguments.count > flag + 1, let url = URL(string: arguments[flag + 1]) else {
        print(usage)
        exit(64)
    }
    client = KonexClient(baseURL: url, transport: networkTransport())
    live = true
} else {
    let fixtures = try FixtureTransport(
        directory: FixtureDirectory(besides: #filePath, named: "Fixtures"), delay: .fixed(.milliseconds(120)))
    if transportName == "ahc" {
        // Offline still, but over a real socket: the fixtures answer from a server on 127.0.0.1.
        let server = try LoopbackServer(answeringWith: fixtures)
        loopback = server
        client = KonexClient(baseURL: server.url, transport: networkTransport())
    } else {
        client = KonexClient(baseURL: URL(string: "https://httpbin.tour")!, transport: fixtures)
    }
    live = false
}
print(
    "Konex tour — \(live ? "live against \(client.baseURL!.absoluteString)" : "offline, fixtures served with a 120 ms delay")"
        + (transportName == "ahc" ? ", over AsyncHTTPClient" : "")
)
do {
    let sse = arguments.firstIndex(of: "--sse").flatMap {
        arguments.indices.contains($0 + 1) ? URL(string: arguments[$0 + 1]) : nil
    }
    let ws = arguments.firstIndex(of: "--ws").flatMap {
        arguments.indices.contains($0 + 1) ? URL(string: arguments[$0 + 1]) : nil
    }
    var sockets: any WebSocketTransport = URLSessionTransport()
    #if AsyncHTTPClient
        sockets = NIOWebSocketTransport.shared
    #endif
    try await Tour(
        client: client, live: live, sse: sse, overAsyncHTTPClient: transportName == "ahc", webSockets: ws,
        webSocketTransport: sockets
    ).run()
    withExtendedLifetime(loopback) {}
} catch {
    print("\nThe tour stopped: \(error)")
    exit(1)
}
