import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Wall and CPU time of one run.
struct Sample {
    var wall: Double  // seconds
    var cpu: Double  // seconds of process CPU
    var instructions: UInt64? = nil  // user-space, all threads; nil where the kernel cannot count
}

func processCPU() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
        getrusage(RUSAGE_SELF, &usage)
    #endif
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(
        usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func measure(_ body: () async throws -> Void) async rethrows -> Sample {
    // Opened outside the timed span: a counter per thread costs a few system calls.
    let counter = InstructionCounter.start()
    let counted = counter?.total()
    let cpu = processCPU()
    let start = ContinuousClock.now
    try await body()
    let wall = (ContinuousClock.now - start) / .seconds(1)
    let used = processCPU() - cpu
    let instructions = counter.flatMap { counter in counted.map { counter.total() - $0 } }
    return Sample(wall: wall, cpu: used, instructions: instructions)
}

/// Resident memory in bytes, and the peak so far (Linux: /proc/self/status).
func memory() -> (resident: Int, peak: Int) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
    func field(_ name: String) -> Int {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name) }) else { return 0 }
        return (Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0) * 1_024
    }
    return (field("VmRSS:"), field("VmHWM:"))
}

extension Array where Element == Double {
    var median: Double {
        let sorted = self.sorted()
        guard !sorted.isEmpty else { return .nan }
        return sorted.count % 2 == 1
            ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// The medians of the lower and the upper half: the middle half of the values lies between them.
    var quartiles: (lower: Double, upper: Double) {
        let sorted = self.sorted()
        guard sorted.count > 1 else { return (median, median) }
        return (Array(sorted[..<(sorted.count / 2)]).median, Array(sorted[((sorted.count + 1) / 2)...]).median)
    }
}

/// Runs `a` and `b` alternately (A B A B …) so both see the same machine conditions.
func interleaved(rounds: Int, _ a: () async throws -> Sample, _ b: () async throws -> Sample) async rethrows -> (
    [Sample], [Sample]
) {
    var first: [Sample] = []
    var second: [Sample] = []
    for round in 0..<rounds {
        if round % 2 == 0 {
            first.append(try await a())
            second.append(try await b())
        } else {
            second.append(try await b())
            first.append(try await a())
        }
    }
    return (first, second)
}

/// Calls `call` `count` times with at most `width` calls in flight, a new one starting as each ends.
func runInFlight(_ count: Int, width: Int, _ call: @escaping @Sendable () async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        var started = 0
        for _ in 0..<min(width, count) {
            group.addTask { try await call() }
            started += 1
        }
        while try await group.next() != nil {
            if started < count {
                group.addTask { try await call() }
                started += 1
            }
        }
    }
}

/// CPU time by thread name (Linux: `/proc/self/task/*/schedstat`, nanoseconds on the CPU, and `comm`), summed over the
/// threads of one name; empty where there is no `/proc`. Threads that end between two readings are not in the second.
func cpuByThreadName() -> [String: Double] {
    let tasks = "/proc/self/task"
    guard let ids = try? FileManager.default.contentsOfDirectory(atPath: tasks) else { return [:] }
    var byName: [String: Double] = [:]
    for id in ids {
        guard let stat = try? String(contentsOfFile: "\(tasks)/\(id)/schedstat", encoding: .utf8),
            let nanoseconds = stat.split(separator: " ").first.flatMap({ Double($0) }),
            let comm = try? String(contentsOfFile: "\(tasks)/\(id)/comm", encoding: .utf8)
        else { continue }
        byName[comm.trimmingCharacters(in: .whitespacesAndNewlines), default: 0] += nanoseconds / 1e9
    }
    return byName
}
