import Foundation
import Konex

// swift run -c release konex-bench [--smoke] [--json FILE] [--only ID] [--repeat N]
// Raw URLSession and Konex run interleaved in one process against a static HTTP/1.1 server on 127.0.0.1, which runs
// in a process of its own (`--serve`). `--repeat N` runs the suite N times and says, per case, whether the N medians
// agree within ±3 %; a case that does not is "unstable", and decides nothing against its target.

let arguments = CommandLine.arguments
let smoke = arguments.contains("--smoke")
let jsonPath = arguments.firstIndex(of: "--json").flatMap {
    arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil
}
let config = smoke ? Config.smoke : Config()

let small = try JSONEncoder().encode(Small(id: 7, title: "a small todo", done: false))
let posts = (1...5_000).map { index in
    Post(
        userId: index % 10, id: index, title: "Post number \(index) with a title of moderate length",
        body: String(repeating: "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", count: 2))
}
let postsJSON = try JSONEncoder().encode(posts)
var envelope = Data(#"{"meta":{"page":1,"total":5000},"data":{"cursor":"abc","items":"#.utf8)
envelope.append(postsJSON)
envelope.append(Data("}}".utf8))
let routes = ["/small": small, "/posts": postsJSON, "/envelope": envelope]
if arguments.contains("--serve") { try ServerProcess.serve(routes: routes) }
let (serverPort, serverProcess) = try ServerProcess.start()
defer { serverProcess.terminate() }
let repeats =
    arguments.firstIndex(of: "--repeat").flatMap {
        arguments.indices.contains($0 + 1) ? Int(arguments[$0 + 1]) : nil
    } ?? 1

let only = arguments.firstIndex(of: "--only").flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }

func padded(_ text: String, _ width: Int, left: Bool = true) -> String {
    let padding = String(repeating: " ", count: max(0, width - text.count))
    return left ? text + padding : padding + text
}

func line(_ result: Result) -> String {
    let ratio = result.ratio.map { String(format: "%.3f×", $0) } ?? "—"
    let baseline = result.baseline.map { String(format: "%.2f", $0) } ?? "—"
    return padded(result.id, 18) + padded(String(format: "%.2f", result.konex), 10, left: false) + "  "
        + padded(baseline, 10, left: false) + "  " + padded(ratio, 8, left: false) + "  " + result.unit
        + "\n    " + result.detail
}

/// Runs off the main actor, so no case pays for hops back to the main thread.
nonisolated func runAll(port: UInt16) async throws -> [Result] {
    let bench = Benchmarks(config: config, port: port)
    var results: [Result] = []
    func wanted(_ id: String) -> Bool { only == nil || id.hasPrefix(only!) }
    func report(_ result: Result) {
        results.append(result)
        print(line(result))
    }
    if wanted("seq") { report(try await bench.small(concurrently: false)) }
    if wanted("urlprotocol") { report(try await bench.urlProtocolSmall()) }
    if wanted("concurrent") { report(try await bench.small(concurrently: true)) }
    if wanted("decode") || wanted("keypath") { for result in try await bench.large() { report(result) } }
    if wanted("pipeline") || wanted("idle") { for result in try await bench.pipeline() { report(result) } }
    if wanted("cache") || wanted("coalesced") {
        for result in try await bench.production() where wanted(result.id) { report(result) }
    }
    if wanted("memory") { report(try await bench.memoryGrowth()) }
    if wanted("download") { report(try await bench.download()) }
    if wanted("stream") || wanted("sse") {
        for result in try await bench.streaming() where wanted(result.id) || wanted("stream") { report(result) }
    }
    return results
}

print(
    "konex-bench\(smoke ? " (smoke)" : "") — \(ProcessInfo.processInfo.activeProcessorCount) cores, 1 MB body = \(postsJSON.count) bytes"
)
print(
    "instruction counts: "
        + (InstructionCounter.unavailable.map { "unavailable here, \($0)" }
            ?? "user space, all threads, in each paired case's detail line"))
print(
    padded("case", 18) + padded("konex", 10, left: false) + "  " + padded("baseline", 10, left: false) + "  "
        + padded("ratio", 8, left: false) + "  unit")
if only == "micro" {
    try await micro()
    serverProcess.terminate()
    exit(0)
}
var runs: [[Result]] = []
for run in 1...max(1, repeats) {
    if repeats > 1 { print("\n— run \(run) of \(repeats)") }
    runs.append(try await runAll(port: serverPort))
}
let results = runs.last!
if repeats > 1 {
    print("\nAgreement across \(repeats) runs (±3 %): the ratio where there is one, else the value")
    for result in runs[0] {
        let values = runs.compactMap { run in run.first { $0.id == result.id }.map { $0.ratio ?? $0.konex } }
        guard let low = values.min(), let high = values.max(), low > 0 else { continue }
        let spread = high / low - 1
        let verdict = spread <= 0.03 ? "stable" : "unstable"
        print(
            padded(result.id, 22) + padded(verdict, 10)
                + values.map { String(format: "%.3f", $0) }.joined(separator: "  ")
                + String(format: "   (spread %.1f %%)", spread * 100))
    }
}

if let jsonPath {
    struct Summary: Encodable { var cases: [Result] }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(Summary(cases: results)).write(to: URL(fileURLWithPath: jsonPath))
    print("wrote \(jsonPath)")
}
