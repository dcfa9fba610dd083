import Foundation
import Konex
import OpenAPIRuntime

#if canImport(EventSource)
    import EventSource
#endif

// swift run -c release --package-path Benchmarks/Peers sse-peers [--smoke]
// The same event stream, in the same 64 KB chunks, through three parsers; rounds interleave so all three see the
// same machine. Prints MB/s medians with min–max and Konex's ratio to the faster peer.

let smoke = CommandLine.arguments.contains("--smoke")
let megabytes = smoke ? 1 : 10
let rounds = smoke ? 2 : 7

let (stream, expected) = sampleEventStream(megabytes: megabytes)
let chunks: [[UInt8]] = stride(from: 0, to: stream.count, by: 65_536).map {
    Array(stream[$0..<min($0 + 65_536, stream.count)])
}

/// The chunks as an async sequence, as a network body would deliver them.
struct Chunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let chunks: [[UInt8]]
    struct Iterator: AsyncIteratorProtocol {
        var index = 0
        let chunks: [[UInt8]]
        mutating func next() async -> ArraySlice<UInt8>? {
            guard index < chunks.count else { return nil }
            defer { index += 1 }
            return chunks[index][...]
        }
    }
    func makeAsyncIterator() -> Iterator { Iterator(chunks: chunks) }
}

/// The same chunks, byte by byte (EventSource reads an `AsyncSequence` of `UInt8`).
struct Bytes: AsyncSequence, Sendable {
    typealias Element = UInt8
    let chunks: [[UInt8]]
    struct Iterator: AsyncIteratorProtocol {
        let chunks: [[UInt8]]
        var chunk = 0
        var offset = 0
        mutating func next() async -> UInt8? {
            while chunk < chunks.count {
                if offset < chunks[chunk].count {
                    defer { offset += 1 }
                    return chunks[chunk][offset]
                }
                chunk += 1
                offset = 0
            }
            return nil
        }
    }
    func makeAsyncIterator() -> Iterator { Iterator(chunks: chunks) }
}

func konex() async throws -> Int {
    var parser = ServerSentEventParser()
    var count = 0
    for await chunk in Chunks(chunks: chunks) {
        try chunk.withUnsafeBytes { try parser.parse($0) { _ in count += 1 } }
    }
    return count
}

func openAPIRuntime() async throws -> Int {
    var count = 0
    for try await _ in Chunks(chunks: chunks).asDecodedServerSentEvents() { count += 1 }
    return count
}

#if canImport(EventSource)
    func eventSource() async throws -> Int {
        var count = 0
        for try await _ in Bytes(chunks: chunks).events { count += 1 }
        return count
    }
    let peers: [(String, () async throws -> Int)] = [
        ("swift-openapi-runtime 1.13.4", openAPIRuntime), ("mattt/EventSource 1.1.1", eventSource),
    ]
#else
    let peers: [(String, () async throws -> Int)] = [("swift-openapi-runtime 1.13.4", openAPIRuntime)]
#endif

func seconds(_ body: () async throws -> Int) async throws -> Double {
    let start = ContinuousClock.now
    let count = try await body()
    precondition(count == expected, "parsed \(count) events, expected \(expected)")
    return (ContinuousClock.now - start) / .seconds(1)
}

let parsers = [("Konex", konex)] + peers
var results: [String: [Double]] = [:]
for round in 0..<rounds {
    // Rotate the order each round, so no parser always runs first.
    let shift = round % parsers.count
    let order = Array(parsers[shift...] + parsers[..<shift])
    for (name, parse) in order {
        results[name, default: []].append(Double(stream.count) / 1_048_576 / (try await seconds(parse)))
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

print(
    "sse-peers\(smoke ? " (smoke)" : ""): \(expected) events, \(stream.count) bytes in \(chunks.count) chunks of 64 KB, \(rounds) rounds"
)
for (name, _) in parsers {
    let values = results[name]!
    let label = name.padding(toLength: 30, withPad: " ", startingAt: 0)
    print(label + String(format: "%9.1f MB/s   (min %.1f, max %.1f)", median(values), values.min()!, values.max()!))
}
#if !canImport(EventSource)
    print("mattt/EventSource 1.1.1: not built on this platform (it needs URLSession.bytes(for:))")
#endif
let fasterPeer = peers.map { median(results[$0.0]!) }.max()!
print(String(format: "Konex / faster peer: %.2f×", median(results["Konex"]!) / fasterPeer))
