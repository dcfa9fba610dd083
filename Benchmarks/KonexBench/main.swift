import Foundation
import Konex

// swift run -c release konex-bench [--smoke] [--json FILE] [--only ID] [--repeat N]
// Raw URLSession and Konex run interleaved in one process against a static HTTP/1.1 server on 127.0.0.1, which runs
// in a process of its own (`--serve`). `--repeat N` runs the suite N times and says, per case, whether the N medians
// agree within ±3 %; a case that does not is "unstable", and decides nothing against its target.
// `--count CASE N` runs one in-process case N times and nothing else, for scripts/instruction-counts.
//
// This file has no top-level `await`: main stays synchronous and waits on a semaphore, because valgrind crashes in
// `dispatch_main` under an async main.

let arguments = CommandLine.arguments

/// Runs `body` on the cooperative pool and blocks the main thread until it ends.
func blocking(_ body: @escaping @Sendable () async throws -> Void) throws {
    let done = DispatchSemaphore(value: 0)
    let failure = Lock<(any Error)?>(nil)
    Task.detached {
        do { try await body() } catch { failure.value = error }
        done.signal()
    }
    done.wait()
    if let error = failure.value { throw error }
}

if let index = arguments.firstIndex(of: "--count") {
    let name = arguments.indices.contains(index + 1) ? arguments[index + 1] : ""
    let count = arguments.indices.contains(index + 2) ? Int(arguments[index + 2]) ?? 0 : 0
    if let dataset = CountedDataset(rawValue: name), count >= 0 {
        try blocking { try await dataset.run(count: count) }
        exit(0)
    }
    guard let counted = CountedCase(rawValue: name), count >= 0 else {
        let names = (CountedCase.allCases.map(\.rawValue) + CountedDataset.names).joined(separator: ", ")
        FileHandle.standardError.write(Data("usage: konex-bench --count CASE N (CASE: \(names))\n".utf8))
        exit(64)
    }
    try blocking { try await counted.run(count: count) }
    exit(0)
}
if let index = arguments.firstIndex(of: "--park") {
    let way = arguments.indices.contains(index + 1) ? arguments[index + 1] : "konex"
    try blocking { print(try await Benchmarks.park(way)) }
    exit(0)
}
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
#if AsyncHTTPClient
    if arguments.contains("--serve-ws") { try WebSocketEchoServer.serve() }
#endif
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

/// Runs off the main actor, so no case pays for hops back to the main thread. A case that throws reports its error
/// in its row, and the run goes on.
nonisolated func runAll(port: UInt16) async -> [Result] {
    let bench = Benchmarks(config: config, port: port)
    var results: [Result] = []
    func wanted(_ id: String) -> Bool { only == nil || id.hasPrefix(only!) }
    func attempt(_ id: String, _ body: () async throws -> [Result]) async {
        let rows: [Result]
        do { rows = try await body() } catch { rows = [Result.failed(id, error)] }
        for row in rows where only == nil || wanted(row.id) || id.hasPrefix(only!) {
            results.append(row)
            print(line(row))
        }
    }
    if wanted("seq") { await attempt("seq_small") { [try await bench.small(concurrently: false)] } }
    if wanted("urlprotocol") { await attempt("urlprotocol_small") { [try await bench.urlProtocolSmall()] } }
    if wanted("concurrent") { await attempt("concurrent_small") { [try await bench.small(concurrently: true)] } }
    if wanted("decode") || wanted("keypath") { await attempt("decode_1mb") { try await bench.large() } }
    if wanted("json") { await attempt("json") { try await bench.datasets() } }
    if wanted("pipeline") || wanted("idle") { await attempt("pipeline_mock") { try await bench.pipeline() } }
    if wanted("cache") || wanted("coalesced") { await attempt("cache_hit") { try await bench.production() } }
    if wanted("ws") {
        #if AsyncHTTPClient
            do {
                let (cases, server) = try WebSocketCases.start(config: config)
                let count = smoke ? 100 : 5_000
                await attempt("ws_roundtrip_small") {
                    [try await cases.roundTrips(id: "ws_roundtrip_small", count: count, payload: 32, binary: false)]
                }
                await attempt("ws_throughput_64k") {
                    [
                        try await cases.roundTrips(
                            id: "ws_throughput_64k", count: count / 10, payload: 65_536, binary: true)
                    ]
                }
                await attempt("ws_idle_connections") { [try await cases.idleConnections(count: smoke ? 50 : 1_000)] }
                server.terminate()
            } catch {
                print(line(Result.failed("ws", error)))
            }
        #else
            print("ws_*: the WebSocket cases need the trait: --traits AsyncHTTPClient")
        #endif
    }
    if wanted("telemetry") {
        #if Tracing && Metrics
            await attempt("telemetry") { try await bench.telemetry() }
        #else
            print("telemetry_*: tracing and metrics need the traits: --traits Tracing,Metrics")
        #endif
    }
    if wanted("memory") { await attempt("memory_growth") { [try await bench.memoryGrowth()] } }
    if wanted("inflight") { await attempt("inflight_memory") { [try await bench.inflightMemory()] } }
    if wanted("download") { await attempt("download_rss") { [try await bench.download()] } }
    if wanted("compress") { await attempt("compressed_upload") { [try await bench.compressedUpload()] } }
    if wanted("stream") || wanted("sse") {
        for (id, run) in bench.streamingCases() where wanted(id) || wanted("stream") {
            await attempt(id) { [try await run()] }
        }
    }
    if only == nil || only!.hasPrefix("ahc") {
        #if AsyncHTTPClient
            await bench.servers { id, body in if wanted(id) { await attempt(id, body) } }
        #else
            print("ahc_*: the four-way cases need the trait: swift run -c release --traits AsyncHTTPClient konex-bench")
        #endif
    }
    return results
}

/// The four-way cases as one table (markdown, so it pastes into BENCHMARKS.md).
func printFourWayTable(_ results: [Result]) {
    let rows = results.filter { $0.fourWay != nil }
    guard !rows.isEmpty else { return }
    print(
        "\n| case | " + Way.allCases.map(\.name).joined(separator: " | ")
            + " | Konex/AHC ÷ raw AHC | Konex/AHC ÷ raw URLSession |")
    print("| --- |" + String(repeating: " ---: |", count: Way.allCases.count + 2))
    for row in rows {
        let values = row.fourWay!.map { String(format: "%.2f", $0) }.joined(separator: " | ")
        print(
            "| \(row.id) (\(row.unit)) | \(values) | "
                + String(format: "%.3f× | %.3f× |", row.ratio ?? .nan, row.overRawURLSession ?? .nan))
    }
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
    try blocking { try await micro() }
    serverProcess.terminate()
    exit(0)
}
let allRuns = Lock<[[Result]]>([])
try blocking {
    for run in 1...max(1, repeats) {
        if repeats > 1 { print("\n— run \(run) of \(repeats)") }
        let results = await runAll(port: serverPort)
        printFourWayTable(results)
        allRuns.withLock { $0.append(results) }
    }
}
let runs = allRuns.value
let results = runs.last!
if repeats > 1 {
    print("\nAgreement across \(repeats) runs (±3 %): the ratio where there is one, else the value")
    for result in runs[0] where result.error == nil {
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
