import Foundation
import Konex
import KonexTesting
import Testing

extension MemoryHeavy {
    /// `URLSessionTransport` against the transport contract (KonexTesting's `TransportContract`) on a real httpbin. What
    /// FoundationNetworking cannot do on Linux is declared by name; a declared limit that starts passing is reported too.
    @Suite(.enabled(if: Server.isAvailable, Server.skipReason)) struct URLSessionTransportContractTests {
        static let linuxLimits: [String: String] = {
            #if canImport(FoundationNetworking)
                [
                    "a sub-second timeout fires at its time":
                        "FoundationNetworking counts timeouts in whole seconds (Konex rounds 0.5 s up to 1 s; unrounded it fires after ~1 ms)",
                    "an unknown Content-Encoding passes through undecoded":
                        "FoundationNetworking fails the request (URLError -1) on a Content-Encoding libcurl does not know",
                    "a 3xx keeps its body":
                        "FoundationNetworking drops the body of a redirect its delegate declines to follow",
                    "a slow reader of a streamed body gets every byte (back pressure)":
                        "FoundationNetworking cannot pause a transfer, so a slow reader overflows the stream's buffer",
                    "a status line without a reason phrase is read":
                        "FoundationNetworking's header parser refuses `HTTP/1.1 200` with no reason phrase (\"Failed writing header\"), which RFC 9112 §4 allows",
                    chunksLimit.name: chunksLimit.reason,
                ]
            #else
                [chunksLimit.name: chunksLimit.reason]
            #endif
        }()

        /// On every platform: `URLSessionTransport` refuses a body of chunks by name.
        static let chunksLimit = (
            name: "a request body streamed while the answer streams back: each chunk echoed before the next goes",
            reason:
                "URLSessionTransport refuses a body of chunks: a URLRequest carries a streamed body only as an InputStream, which FoundationNetworking cannot make from async code"
        )

        /// Checks that trap inside FoundationNetworking on Linux, so they cannot run in a test process.
        static let linuxNotRun: [String: String] = {
            #if canImport(FoundationNetworking)
                [
                    "a status line whose version is not `HTTP` in capitals is an error":
                        "libcurl reads `Http/1.1 200 OK` as a status line, FoundationNetworking's parser does not, and it traps (\"Transfer completed, but there's no response\")",
                    "a chunked body with trailer fields is read whole":
                        "FoundationNetworking traps (\"Transfer completed, but there's no response\") when libcurl hands it the trailer section after the body",
                ]
            #else
                [:]
            #endif
        }()

        @Test func meetsTheContractExceptItsDeclaredLimits() async throws {
            let server = try #require(Server.url, Server.skipReason)
            let contract = TransportContract(
                transport: URLSessionTransport(configuration: .ephemeral), server: server,
                knownLimits: Self.linuxLimits, notRun: Self.linuxNotRun)
            let outcomes = await contract.run()
            #expect(outcomes.count == TransportContract.checks.count)
            for outcome in outcomes {
                print("URLSessionTransport contract: \(outcome)")
                #expect(outcome.isAcceptable, "\(outcome)")
            }
        }
    }
}
