import Foundation
import Konex
import KonexTesting
import Testing

extension MemoryHeavy {
    /// KonexTesting's transports against the transport contract, wrapping a live `URLSessionTransport`: a fixture
    /// transport passing every unmatched request through, and a recorder writing each exchange to a HAR. Each keeps
    /// what the transport it wraps does (a stream stays a stream, a download a download), so each meets the contract
    /// as the live transport does, with the same declared limits.
    @Suite(.enabled(if: Server.isAvailable, Server.skipReason)) struct TestingTransportsContractTests {
        func check(_ transport: any Transport, _ label: String, names: Set<String>? = nil) async throws {
            let server = try #require(Server.url, Server.skipReason)
            let contract = TransportContract(
                transport: transport, server: server,
                knownLimits: URLSessionTransportContractTests.linuxLimits,
                notRun: URLSessionTransportContractTests.linuxNotRun)
            let outcomes = await contract.run(names)
            #expect(outcomes.count == (names?.count ?? TransportContract.checks.count))
            for outcome in outcomes {
                print("\(label) contract: \(outcome)")
                #expect(outcome.isAcceptable, "\(outcome)")
            }
        }

        @Test func aFixtureTransportPassingEverythingThroughMeetsTheContract() async throws {
            let empty = FileManager.default.temporaryDirectory.appendingPathComponent("konex-empty-\(UUID())")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: empty) }
            let fixtures = try FixtureTransport(
                directory: FixtureDirectory(empty), passthrough: URLSessionTransport(configuration: .ephemeral))
            try await check(fixtures, "FixtureTransport(passthrough:)")
            #expect(fixtures.mock.requestCount > 300)  // every request was tried against the fixtures first
        }

        @Test func aRecordingTransportMeetsTheContractAndRecordsEveryExchange() async throws {
            let har = FileManager.default.temporaryDirectory.appendingPathComponent("konex-contract-\(UUID()).har")
            defer { try? FileManager.default.removeItem(at: har) }
            let recorder = try RecordingTransport(
                live: URLSessionTransport(configuration: .ephemeral), fixture: har, mode: .all, environment: [:])
            // The two checks of 16 and 64 MiB bodies are left out: a HAR holds bodies as text, and the recorder
            // writes the whole archive after each exchange, so every later check would rewrite 100 MB.
            let names = Set(TransportContract.checks.map(\.name)).subtracting([
                "response bodies of 16 MiB and 64 MiB arrive whole and in order",
                "request bodies of 16 MiB and 64 MiB arrive whole",
            ])
            try await check(recorder, "RecordingTransport", names: names)
            let recorded = try HAR.load(from: har).log.entries
            #expect(recorded.count > 300)
            #expect(recorded.contains { $0.request.url.contains("/stream/20") && $0._konex?.chunks != nil })
        }
    }
}
