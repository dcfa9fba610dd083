import Foundation
import Konex
import KonexTesting
import Testing

/// Where the fault-injecting proxy is: scripts/test starts scripts/chaos_proxy.py in front of httpbin.
enum Chaos {
    static let url = ProcessInfo.processInfo.environment["KONEX_CHAOS_URL"].flatMap(URL.init(string:))
    static let seed = ProcessInfo.processInfo.environment["KONEX_CHAOS_SEED"] ?? "?"
    static let requests = ProcessInfo.processInfo.environment["KONEX_SOAK_REQUESTS"].flatMap(Int.init) ?? 1_500
    static let inFlight = 32
    static let skipReason: Comment = "KONEX_CHAOS_URL is not set: run scripts/test, which starts the chaos proxy"
}

@Suite struct ChaosPrerequisites {
    @Test func chaosProxyIsConfiguredWhenRequired() {
        if Server.isRequired { #expect(Chaos.url != nil, "scripts/test must export KONEX_CHAOS_URL") }
    }
}

/// A bounded load through a proxy that injects faults at random (seeded): every request ends with a value or a
/// typed error whose stage matches the fault, no damaged body is ever a success, only idempotent requests are
/// retried, and nothing grows.
/// The suites that measure or move a lot of memory, one at a time: the soak checks that its RSS stays bounded, which
/// a 64 MiB contract check running beside it would blur.
@Suite(.serialized) enum MemoryHeavy {}

extension MemoryHeavy {
    @Suite(.enabled(if: Chaos.url != nil && Server.isAvailable, Chaos.skipReason))
    struct ChaosSoakTests {
        enum Outcome: Sendable {
            case success
            case failure(KonexError.Stage, status: Int?, timeout: Bool)
        }

        struct Echo: Decodable, Sendable { let json: [String: Int]? }

        @Test func everyRequestEndsWithAValueOrATypedErrorThatMatchesItsFault() async throws {
            let expected = try await Server.client().request("/json").validate().responseData()
            let transport = Live.transport()
            let client = KonexClient(
                baseURL: Chaos.url!, transport: transport, timeout: .seconds(2),
                retriers: [RetryPolicy(maximumAttempts: 3, deadline: .seconds(20), baseDelay: .milliseconds(5))])
            let before = Resources.now()
            let started = ContinuousClock.now
            let total = Chaos.requests
            let run = UUID().uuidString.prefix(8)  // the proxy's log outlives a run: ids must not repeat
            let outcomes = try await withThrowingTaskGroup(of: (Int, Outcome, Bool).self) { group in
                var results: [Int: (Outcome, Bool)] = [:]
                var next = 0
                func add(_ index: Int) {
                    group.addTask {
                        let isPost = index % 5 == 0
                        let request =
                            isPost
                            ? client.request(Post(n: index)) : client.request("/json")
                        do {
                            let response = try await request.withAdapter(.header("X-Chaos-Id", "\(run)-\(index)"))
                                .validate()
                                .response()
                            let intact =
                                isPost
                                ? (try? JSONDecoder().decode(Echo.self, from: response.data))?.json?["n"] == index
                                : response.data == expected
                            return (index, .success, intact)
                        } catch let error as KonexError {
                            return (
                                index, .failure(error.stage, status: error.statusCode, timeout: error.isTimeout), true
                            )
                        }
                    }
                }
                while next < min(Chaos.inFlight, total) {
                    add(next)
                    next += 1
                }
                while let (index, outcome, intact) = try await group.next() {
                    results[index] = (outcome, intact)
                    if next < total {
                        add(next)
                        next += 1
                    }
                }
                return results
            }
            let elapsed = ContinuousClock.now - started
            (transport as? URLSessionTransport)?.session.invalidateAndCancel()
            let log = try await Server.client().request(Chaos.url!.appendingPathComponent("__chaos/log"))
                .responseObject(of: [String: [String]].self)

            var table: [String: [String: Int]] = [:]
            for index in 0..<total {
                let (outcome, intact) = try #require(outcomes[index], "request \(index) never ended")
                // A request the proxy never saw failed while connecting: a fault of the network, not an injected one.
                let faults = log["\(run)-\(index)"] ?? []
                let last = faults.last ?? "no request reached the proxy"
                let isPost = index % 5 == 0
                let label: String
                switch outcome {
                case .success:
                    label = "success"
                    #expect(
                        intact, "request \(index) succeeded with a damaged body after \(faults) (seed \(Chaos.seed))")
                    #expect(["none", "latency", "duplicate_header"].contains(last), "r\(index): \(faults)")
                case .failure(let stage, let status, let timeout):
                    label = status.map { "\(stage) \($0)" } ?? (timeout ? "\(stage) (timeout)" : "\(stage)")
                    switch last {
                    case "status_503":
                        // The 503 itself, or (on a loaded machine) its answer arriving after the request's timeout.
                        #expect(
                            (stage == .validation && status == 503) || (stage == .transport && timeout),
                            "r\(index): \(faults) → \(label)")
                    case "reset_head", "reset_body", "truncated", "no request reached the proxy":
                        #expect(stage == .transport, "r\(index): \(faults) → \(label)")
                    case "stall": #expect(stage == .transport && timeout, "r\(index): \(faults) → \(label)")
                    default:
                        // A good answer can still come too late on a loaded machine: then only a timeout is right.
                        #expect(stage == .transport && timeout, "r\(index): \(faults) → \(label) (seed \(Chaos.seed))")
                    }
                }
                table[last, default: [:]][label, default: 0] += 1
                // Retries: never for a POST; for the rest, the policy's three attempts. libcurl also resends on its own
                // when a reused keep-alive connection turns out to be dead before any answer, at most once per reset
                // (the proxy counts that resend as an attempt; a run saw reset_head, stall, 503, reset_head, none).
                let resends = faults.filter { $0 == "reset_head" }.count
                if isPost { #expect(faults.count <= 1 + resends, "POST \(index) was retried: \(faults)") }
                #expect(faults.count <= 3 + resends, "\(index): \(faults)")
            }
            try await Task.sleep(for: .milliseconds(500))  // let the invalidated session's sockets close
            let after = Resources.now()
            print(
                Resources.report(table, total: total, elapsed: elapsed, before: before, after: after, seed: Chaos.seed))
            #expect(elapsed < .seconds(60), "the soak must stay bounded")
            #expect(after.descriptors - before.descriptors <= 16, "file descriptors grew: \(before) → \(after)")
            // The thread sanitizer's allocator holds freed memory in quarantine: resident size says nothing under it.
            if ProcessInfo.processInfo.environment["KONEX_SANITIZER"] == nil {
                #expect(after.residentMB - before.residentMB < 64, "memory grew: \(before) → \(after)")
            }
        }

        struct Post: KonexRequest {
            let n: Int
            let path = "/post"
            let method: HTTPMethod = .post
            var body: RequestBody? { .json(["n": .int(n)] as JSON) }
        }
    }
}

/// Open file descriptors and resident memory of this process (Linux: /proc/self).
struct Resources: CustomStringConvertible {
    let descriptors: Int
    let residentMB: Double

    static func now() -> Resources {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
        return Resources(descriptors: descriptors, residentMB: kilobytes / 1_024)
    }

    var description: String { String(format: "%d fds, %.1f MB RSS", descriptors, residentMB) }

    static func report(
        _ table: [String: [String: Int]], total: Int, elapsed: Duration, before: Resources, after: Resources,
        seed: String
    ) -> String {
        let outcomes = Set(table.values.flatMap(\.keys)).sorted()
        var lines = [
            "chaos soak: \(total) requests, \(Chaos.inFlight) in flight, \(elapsed) (seed \(seed)); \(before) → \(after)"
        ]
        lines.append(
            "last fault".padding(toLength: 18, withPad: " ", startingAt: 0)
                + outcomes.map { $0.padding(toLength: 16, withPad: " ", startingAt: 0) }.joined())
        for fault in table.keys.sorted() {
            lines.append(
                fault.padding(toLength: 18, withPad: " ", startingAt: 0)
                    + outcomes.map { "\(table[fault]?[$0] ?? 0)".padding(toLength: 16, withPad: " ", startingAt: 0) }
                    .joined())
        }
        return lines.joined(separator: "\n")
    }
}
