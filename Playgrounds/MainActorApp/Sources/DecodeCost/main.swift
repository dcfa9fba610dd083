import Foundation
import Konex
import KonexTesting

// What decoding on the main actor costs: a 1 MB JSON body of 12,000 objects, decoded as a main-actor model (this
// target's default) and as a nonisolated one, from a MockTransport. It prints each call's time and the longest stall a
// main-actor ticker saw while five calls ran. Run it in release: scripts/main-actor-check --cost. The figures are in
// Sources/Konex/Konex.docc/AppsOnTheMainActor.md.

struct Item: Codable {
    let id: Int
    let name: String
    let tags: [String]
    let score: Double
}

nonisolated struct FreeItem: Codable, Sendable {
    let id: Int
    let name: String
    let tags: [String]
    let score: Double
}

let items = (0..<12_000).map {
    Item(id: $0, name: "item number \($0)", tags: ["a", "bb", "ccc"], score: Double($0) / 7)
}
let body = try JSONEncoder().encode(items)
let mock = MockTransport(clock: ImmediateClock())
mock.stub(.get("/items"), .data(body, contentType: "application/json"))
let client = KonexClient.mocked(mock)

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
}

func timed(_ work: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await work()
    return milliseconds(ContinuousClock.now - start)
}

/// The longest the main actor went without running a ticker while five calls ran.
func longestStall(_ work: @escaping () async throws -> Void) async throws -> Double {
    var last = ContinuousClock.now
    var worst = Duration.zero
    let ticker = Task {
        while !Task.isCancelled {
            let now = ContinuousClock.now
            worst = max(worst, now - last)
            last = now
            await Task.yield()
        }
    }
    for _ in 0..<5 { try await work() }
    ticker.cancel()
    return milliseconds(worst)
}

var onMain: [Double] = []
var offMain: [Double] = []
for round in 0..<30 {
    let isolated = try await timed { _ = try await client.request("/items").responseArray(of: Item.self) }
    let free = try await timed { _ = try await client.request("/items").responseArray(of: FreeItem.self) }
    if round >= 5 {  // the first rounds warm the caches
        onMain.append(isolated)
        offMain.append(free)
    }
}
let stallOnMain = try await longestStall { _ = try await client.request("/items").responseArray(of: Item.self) }
let stallOffMain = try await longestStall { _ = try await client.request("/items").responseArray(of: FreeItem.self) }

func summary(_ values: [Double]) -> String {
    let sorted = values.sorted()
    return String(format: "median %.2f ms (%.2f–%.2f)", sorted[sorted.count / 2], sorted.first!, sorted.last!)
}
print("body: \(body.count) bytes")
print(
    "main-actor model, decoded on the main actor: \(summary(onMain)), longest stall \(String(format: "%.2f", stallOnMain)) ms"
)
print(
    "nonisolated model, decoded off it:           \(summary(offMain)), longest stall \(String(format: "%.2f", stallOffMain)) ms"
)
