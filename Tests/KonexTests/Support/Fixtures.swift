import Foundation
import KonexTesting

@testable import Konex

struct Post: Codable, Sendable, Equatable {
    var id: Int
    var title: String
}

struct APIError: Codable, Sendable, Equatable {
    var code: String
    var message: String
}

let api = URL(string: "https://api.test/v1")!

/// A mock with an immediate clock and a client on `https://api.test/v1`.
func makeClient(_ configure: (MockTransport) -> Void = { _ in }) -> (KonexClient, MockTransport) {
    let mock = MockTransport(clock: ImmediateClock())
    configure(mock)
    return (KonexClient.mocked(mock, baseURL: api), mock)
}

/// Records the order in which components ran.
final class Trace: Sendable {
    private let events = Lock<[String]>([])
    func add(_ event: String) { events.withLock { $0.append(event) } }
    var all: [String] { events.value }
}

/// A plugin, validator, processor and adapter in one, each logging `name` to a trace.
struct Tracer: KonexPlugin, KonexResponseValidator, KonexResponseProcessor, RequestAdapter {
    let name: String
    let trace: Trace
    func didSendRequest(_ request: TransportRequest) async { trace.add("send:\(name)") }
    func didReceiveResponse(_ result: Result<ReceivedResponse, KonexError>, for request: TransportRequest) async {
        trace.add("receive:\(name)")
    }
    func validate(_ response: ResponseHead, data: Data) throws { trace.add("validate:\(name)") }
    func process(_ data: Data, response: ResponseHead) throws -> Data {
        trace.add("process:\(name)")
        return data
    }
    func adapt(_ request: TransportRequest) async throws -> TransportRequest {
        trace.add("adapt:\(name)")
        var request = request
        request.addValue(name, forHTTPHeaderField: "X-Adapted")
        return request
    }
}

/// A plugin that keeps what `read` takes from each answer that came back (copies share what they saw).
struct AnswerWatch<Value: Sendable>: KonexPlugin {
    private let values = Lock<[Value]>([])
    let read: @Sendable (ReceivedResponse) -> Value

    /// What was read, in the order the answers came.
    var seen: [Value] { values.value }

    func didReceiveResponse(_ result: Result<ReceivedResponse, KonexError>, for request: TransportRequest) async {
        if case .success(let answer) = result { values.withLock { $0.append(read(answer)) } }
    }
}

struct TracedRequest: KonexRequest {
    let trace: Trace
    let path = "/posts/1"
    var requestPlugins: [any KonexPlugin] { [Tracer(name: "request", trace: trace)] }
    var requestResponseValidators: [any KonexResponseValidator] { [Tracer(name: "request", trace: trace)] }
    var requestResponseProcessors: [any KonexResponseProcessor] { [Tracer(name: "request", trace: trace)] }
    var requestAdapters: [any RequestAdapter] { [Tracer(name: "request", trace: trace)] }
}
