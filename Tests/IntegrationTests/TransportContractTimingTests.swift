import Foundation
import Konex
import KonexTesting
import Testing

/// The contract's bounds on time are run again before they fail a transport (a loaded machine stalls a sound one for
/// seconds, once), and only those: a transport that is slow every time, or wrong once, still fails.
@Suite struct TransportContractTimingTests {
    static let head = "HEAD keeps its Content-Length and reads no body"

    /// A live transport that answers its first `slowHeads` HEAD requests 3.5 s late (the check allows 3 s), or answers
    /// every HEAD with a wrong status when `wrongHeads` is set; it counts the HEAD requests it sees.
    final class LateHeads: Transport {
        let live = URLSessionTransport(configuration: .ephemeral)
        let slowHeads: Int
        let wrongHeads: Bool
        let heads = Lock(0)

        init(slowHeads: Int = 0, wrongHeads: Bool = false) {
            self.slowHeads = slowHeads
            self.wrongHeads = wrongHeads
        }

        func send(_ request: TransportRequest, context: TransportContext) async throws -> (ResponseHead, ResponseBody) {
            guard request.method == .head else { return try await live.send(request, context: context) }
            let seen = heads.withLock { count in
                count += 1
                return count
            }
            if seen <= slowHeads { try await Task.sleep(for: .milliseconds(3_500)) }
            var request = request
            if wrongHeads { request.url = request.url.deletingLastPathComponent().appendingPathComponent("missing") }
            return try await live.send(request, context: context)
        }
    }

    /// Runs the HEAD check alone (it needs only the run's own fault server, not httpbin).
    func outcome(of transport: LateHeads) async throws -> TransportContract.Outcome {
        let contract = TransportContract(transport: transport, server: URL(string: "http://127.0.0.1:9")!)
        return try #require(await contract.run([Self.head]).first)
    }

    @Test func aCheckLateOnceIsRunAgainAndPasses() async throws {
        let transport = LateHeads(slowHeads: 1)
        let outcome = try await outcome(of: transport)
        #expect(outcome.failure == nil, "\(outcome)")
        #expect(transport.heads.value == 2)
    }

    @Test func aCheckLateEveryTimeFailsAfterThreeAttempts() async throws {
        let transport = LateHeads(slowHeads: .max)
        let outcome = try await outcome(of: transport)
        #expect(outcome.failure?.contains("waited for a body a HEAD never has") == true, "\(outcome)")
        #expect(transport.heads.value == 3)
    }

    @Test func aCheckWrongOnceIsNotRunAgain() async throws {
        let transport = LateHeads(wrongHeads: true)
        let outcome = try await outcome(of: transport)
        #expect(outcome.failure?.contains("status 404") == true, "\(outcome)")
        #expect(transport.heads.value == 1)
    }
}
