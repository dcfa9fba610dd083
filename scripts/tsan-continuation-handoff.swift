// A program with no data race that the thread sanitizer reports as one (Swift 6.3.1, Linux): an object made in a
// detached task is handed over through a CheckedContinuation, and read after the await. The continuation orders the
// read after the write; the sanitizer does not see that order. RequestCoalescer hands its shared reply over the same
// way, and a sanitizer run of the test suite once reported a ResponseHead read that way (issue 55, item 11c).
//
//   swiftc -parse-as-library -sanitize=thread -O scripts/tsan-continuation-handoff.swift -o /tmp/handoff && /tmp/handoff
//
// prints "WARNING: ThreadSanitizer: data race", reading `box.value` against `Box.init`.
final class Box: @unchecked Sendable {
    var value: Int
    init(_ value: Int) { self.value = value }
}

func handOver() async -> Int {
    let box: Box = await withCheckedContinuation { continuation in
        Task.detached { continuation.resume(returning: Box(42)) }
    }
    return box.value
}

@main struct Handoff {
    static func main() async {
        var total = 0
        for _ in 0..<2_000 { total &+= await handOver() }
        print("read", total, "(42 each)")
    }
}
