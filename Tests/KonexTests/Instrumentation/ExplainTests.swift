import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// `explain()`: the pipeline a request will run, with levels, in the order the pipeline runs it.
@Suite struct ExplainTests {
    struct Timing: KonexPlugin {}
    struct Audit: KonexPlugin {}
    struct Unwrap: KonexResponseProcessor {
        func process(_ data: Data, response: ResponseHead) throws -> Data { data }
    }

    struct GetPosts: KonexRequest {
        let path = "/posts"
        let urlTemplate: String? = "/posts"
        let timeout: Duration? = .seconds(5)
        var requestPlugins: [any KonexPlugin] { [Audit()] }
        var requestResponseProcessors: [any KonexResponseProcessor] { [Unwrap()] }
    }

    func client() -> KonexClient {
        KonexClient(
            baseURL: api, transport: MockTransport(clock: ImmediateClock()), timeout: .seconds(30),
            plugins: [LoggingPlugin()], adapters: [.bearer("s3cr3t-token")], retriers: [RetryPolicy()],
            interceptors: [HTTPCache(storage: .memory(capacity: 1 << 20)), ConcurrencyLimit(perHost: 4)],
            instruments: [RequestEventLog()])
    }

    @Test func everyComponentIsListedInOrderWithItsLevel() {
        let plan = client().request(GetPosts()).withPlugin(Timing()).validate().explain()
        #expect(plan.plugins.map(\.description) == ["LoggingPlugin (client)", "Audit (request)", "Timing (call site)"])
        #expect(plan.interceptors.map(\.name) == ["HTTPCache", "ConcurrencyLimit"])
        #expect(plan.validators == [.init(name: "StatusCodeValidator", level: .callSite)])
        #expect(plan.processors == [.init(name: "Unwrap", level: .request)])
        #expect(plan.retriers.map(\.name) == ["RetryPolicy"])
        #expect(plan.instruments == ["RequestEventLog"])
        #expect(plan.transport == "MockTransport" && !plan.transportIsScoped)
        #expect(plan.timeout?.duration == .seconds(5) && plan.timeout?.level == .request)
        #expect(plan.url == "https://api.test/v1/posts" && plan.endpoint == "GetPosts")
        #expect(plan.notes.isEmpty)
        let text = plan.description
        #expect(text.contains("3. plugins    LoggingPlugin (client) → Audit (request) → Timing (call site)"))
        #expect(text.contains("4. transport  HTTPCache (client) → ConcurrencyLimit (client) → MockTransport"))
    }

    @Test func anExplanationNamesTypesNeverValues() {
        let plan = client().request("me?access_token=leaky").withAdapter(.bearer("another-s3cr3t")).explain()
        #expect(!plan.description.contains("s3cr3t"))
        #expect(!plan.description.contains("leaky"))
        #expect(plan.adapters.map(\.level) == [.client, .callSite])
    }

    @Test func aStreamSaysWhatItSkipsAndWhatItRefuses() {
        let plan = client().request(GetPosts()).explain(.stream)
        #expect(plan.interceptors.count == 2 && plan.processors.isEmpty)
        #expect(plan.notes.contains { $0.contains("passes the interceptors with its body still arriving") })
        #expect(plan.notes.contains { $0.contains("stream() refuses this request") })
        #expect(plan.notes.contains { $0.contains("no validator") })
    }

    @Test func aScopedTransportAndClockAreTheOnesShown() async {
        let mock = MockTransport(clock: ImmediateClock())
        let plan = await KonexClient.withTransport(mock, clock: ManualClock()) { client().request("a").explain() }
        #expect(plan.transportIsScoped && plan.clock == "ManualClock")
        #expect(plan.description.contains("MockTransport (scoped)"))
    }

    @Test func aRequestThatCannotBeBuiltIsExplainedAnyway() {
        let plan = KonexClient(transport: MockTransport()).request("relative/without/base").explain()
        #expect(plan.url == nil)
        #expect(plan.notes.contains { $0.hasPrefix("the request cannot be built") })
    }
}
