import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// A transport over another client reports why it got no response in Konex's kinds, and everything that reads
/// failures (retries, `isTimeout`, messages, metric labels) treats them as it treats URLSession's `URLError`s.
@Suite struct TransportFailureTests {
    /// Fails with `failure` a given number of times, then answers 200.
    final class Failing: Transport {
        let failure: TransportFailure
        let failures: Int
        let calls = Lock(0)

        init(_ failure: TransportFailure, times failures: Int) {
            self.failure = failure
            self.failures = failures
        }

        func send(_ request: TransportRequest, context: TransportContext) async throws -> (ResponseHead, ResponseBody) {
            let call = calls.withLock {
                $0 += 1
                return $0
            }
            if call <= failures { throw failure }
            return (ResponseHead(statusCode: 200, url: request.url), ResponseBody(Data("ok".utf8)))
        }
    }

    struct NIOLikeError: Error, CustomStringConvertible {
        var description: String { "read timed out on the channel" }
    }

    @Test func aTimeoutFromAnotherClientIsRetriedReadAndLabelledAsURLSessionsIs() async throws {
        let transport = Failing(TransportFailure(.timedOut, underlying: NIOLikeError()), times: 1)
        let client = KonexClient(transport: transport, clock: ImmediateClock())
        let data = try await client.request("https://api.test/x").retry(RetryPolicy(jitter: 0)).responseData()
        #expect(data == Data("ok".utf8))
        #expect(transport.calls.value == 2)

        let once = Failing(TransportFailure(.timedOut, underlying: NIOLikeError()), times: 1)
        let error = try await requireThrows(KonexError.self) {
            try await KonexClient(transport: once).request("https://api.test/x").responseData()
        }
        #expect(error.stage == .transport)
        #expect(error.isTimeout)
        #expect(error.transportFailure == .timedOut)
        #expect(error.errorType == "timeout")
        #expect(error.message == "timedOut: read timed out on the channel")
    }

    @Test func aKindNoRetryTakesIsNotRetried() async throws {
        let transport = Failing(TransportFailure(.badServerResponse), times: 5)
        let client = KonexClient(transport: transport, clock: ImmediateClock())
        let error = try await requireThrows(KonexError.self) {
            try await client.request("https://api.test/x").retry(RetryPolicy(jitter: 0)).responseData()
        }
        #expect(transport.calls.value == 1)
        #expect(error.transportFailure == .badServerResponse)
        #expect(error.errorType == "badServerResponse")
    }

    @Test(arguments: [
        (URLError.Code.timedOut, TransportFailure.Kind.timedOut),
        (.cannotConnectToHost, .cannotConnectToHost),
        (.dnsLookupFailed, .cannotFindHost),
        (.networkConnectionLost, .networkConnectionLost),
        (.serverCertificateUntrusted, .secureConnectionFailed),
        (.unsupportedURL, .badURL),
        (.cannotParseResponse, .badServerResponse),
        (.fileDoesNotExist, .other),
    ])
    func urlErrorsReadAsTheSameKinds(code: URLError.Code, kind: TransportFailure.Kind) {
        #expect(TransportFailure.Kind(of: URLError(code)) == kind)
        #expect(TransportFailure.Kind(of: TransportFailure(kind)) == kind)
    }

    @Test func everyNamedKindMapsBackToItsURLErrorCode() {
        let kinds: [TransportFailure.Kind] = [
            .timedOut, .cannotConnectToHost, .cannotFindHost, .notConnectedToInternet, .networkConnectionLost,
            .badServerResponse, .secureConnectionFailed, .badURL,
        ]
        for kind in kinds { #expect(TransportFailure.Kind(kind.urlErrorCode) == kind) }
        #expect(TransportFailure.Kind.other.urlErrorCode == .unknown)
        #expect(TransportFailure.Kind(of: CancellationError()) == nil)
    }

    @Test func aHugeUnderlyingErrorIsCutInTheDescription() {
        struct Chatty: Error, CustomStringConvertible {
            var description: String { String(repeating: "x", count: 10_000) }
        }
        let failure = TransportFailure(.other, url: URL(string: "https://api.test/x"), underlying: Chatty())
        #expect(failure.description.count < 600)
        #expect(failure.description.hasPrefix("other (https://api.test/x): xxx"))
    }
}
