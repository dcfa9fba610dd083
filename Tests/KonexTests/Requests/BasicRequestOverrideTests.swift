import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// Item 9: every `KonexRequest` requirement can be overridden in a `KonexBasicRequest` subclass, and is used.
@Suite struct BasicRequestOverrideTests {
    final class Seen: Sendable {
        let names = Lock<[String]>([])
        func add(_ name: String) { names.withLock { $0.append(name) } }
    }

    struct Plugin: KonexPlugin {
        let seen: Seen
        func didSendRequest(_ request: TransportRequest) async { seen.add("plugin") }
    }
    struct Processor: KonexResponseProcessor {
        let seen: Seen
        func process(_ data: Data, response: ResponseHead) throws -> Data {
            seen.add("processor")
            return data
        }
    }
    struct Validator: KonexResponseValidator {
        let seen: Seen
        func validate(_ response: ResponseHead, data: Data) throws { seen.add("validator") }
    }
    struct Adapter: RequestAdapter {
        let seen: Seen
        func adapt(_ request: consuming TransportRequest) async throws -> TransportRequest {
            seen.add("adapter")
            return request
        }
    }
    struct Retrier: RequestRetrier {
        let seen: Seen
        func shouldRetry(_ request: TransportRequest, dueTo error: KonexError, attempt: Int, elapsed: Duration) async
            -> RetryDecision
        {
            seen.add("retrier")
            return .doNotRetry
        }
    }
    struct Interceptor: TransportInterceptor {
        let seen: Seen
        func intercept(_ request: TransportRequest, next: TransportNext) async throws -> TransportReply {
            seen.add("interceptor")
            return try await next(request)
        }
    }

    final class Everything: KonexBasicRequest, @unchecked Sendable {
        let seen: Seen
        init(seen: Seen) { self.seen = seen }
        override var path: String { "/things" }
        override var method: HTTPMethod { .put }
        override var parameters: Parameters? { ["q": "1"] }
        override var headers: [String: String]? { ["X-Basic": "yes"] }
        override var body: RequestBody? { .json(["a": 1]) }
        override var timeout: Duration? { .seconds(7) }
        override var requestPlugins: [any KonexPlugin] { [Plugin(seen: seen)] }
        override var requestResponseProcessors: [any KonexResponseProcessor] { [Processor(seen: seen)] }
        override var requestResponseValidators: [any KonexResponseValidator] { [Validator(seen: seen)] }
        override var requestAdapters: [any RequestAdapter] { [Adapter(seen: seen)] }
        override var requestRetriers: [any RequestRetrier] { [Retrier(seen: seen)] }
        override var requestInterceptors: [any TransportInterceptor] { [Interceptor(seen: seen)] }
    }

    @Test func everyRequirementOverriddenInASubclassIsUsed() async throws {
        let seen = Seen()
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.put("/v1/things"), .status(500))
        let client = KonexClient(baseURL: api, transport: mock)
        _ = try? await client.request(Everything(seen: seen)).validate().responseData()
        let sent = try #require(mock.requests.first?.request)
        #expect(sent.httpMethod == "PUT")
        #expect(sent.url?.query == "q=1")
        #expect(sent.value(forHTTPHeaderField: "X-Basic") == "yes")
        #expect(sent.httpBody == Data(#"{"a":1}"#.utf8))
        #expect(sent.timeoutInterval == 7)
        #expect(Set(seen.names.value) == ["adapter", "plugin", "interceptor", "validator", "retrier"])
        // A successful answer runs the processors too.
        mock.stub(.put("/v1/things"), .string("ok"))
        _ = try await client.request(Everything(seen: seen)).responseData()
        #expect(seen.names.value.contains("processor"))
    }
}
