import Foundation
import Konex
import KonexTesting

// swift run konex-tour                       offline, on the fixtures next to this file (with visible delays)
// swift run konex-tour --live <baseURL>      the same tour against a real httpbin-compatible server
//                   [--sse <sseURL>]         …with step 11 against a Server-Sent Events server (scripts/sse-server)

let arguments = CommandLine.arguments
let client: KonexClient
let live: Bool
if let flag = arguments.firstIndex(of: "--live") {
    guard arguments.count > flag + 1, let url = URL(string: arguments[flag + 1]) else {
        print("usage: konex-tour [--live <baseURL> [--sse <sseURL>]]")
        exit(64)
    }
    client = KonexClient(baseURL: url)
    live = true
} else {
    let fixtures = FixtureDirectory(besides: #filePath, named: "Fixtures")
    client = KonexClient(
        baseURL: URL(string: "https://httpbin.tour")!,
        transport: try FixtureTransport(directory: fixtures, delay: .fixed(.milliseconds(120))))
    live = false
}
print(
    "Konex tour — \(live ? "live against \(client.baseURL!.absoluteString)" : "offline, fixtures served with a 120 ms delay")"
)
do {
    let sse = arguments.firstIndex(of: "--sse").flatMap {
        arguments.indices.contains($0 + 1) ? URL(string: arguments[$0 + 1]) : nil
    }
    try await Tour(client: client, live: live, sse: sse).run()
} catch {
    print("\nThe tour stopped: \(error)")
    exit(1)
}
