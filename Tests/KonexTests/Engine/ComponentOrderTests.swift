import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

@Suite struct ComponentOrderTests {
    @Test func everyKindRunsClientThenRequestThenCallSiteInPipelineOrder() async throws {
        let trace = Trace()
        let (client, mock) = makeClient { $0.stub(.get("/v1/posts/1"), .json(Post(id: 1, title: "a"))) }
        let clientLevel = Tracer(name: "client", trace: trace)
        client.plugins = [clientLevel]
        client.responseValidators = [clientLevel]
        client.responseProcessors = [clientLevel]
        client.adapters = [clientLevel]
        let call = Tracer(name: "call", trace: trace)
        _ = try await client.request(TracedRequest(trace: trace))
            .withPlugin(call).validate(call).process(call).withAdapter(call)
            .responseObject(of: Post.self)
        #expect(
            trace.all == [
                "adapt:client", "adapt:request", "adapt:call",
                "send:client", "send:request", "send:call",
                "receive:client", "receive:request", "receive:call",
                "validate:client", "validate:request", "validate:call",
                "process:client", "process:request", "process:call",
            ])
        #expect(mock.requests.first?.header("X-Adapted") == "client,request,call")
    }

    @Test func repeatedChainCallsAccumulateInOrder() async throws {
        let trace = Trace()
        let (client, _) = makeClient { $0.stub(.get("/v1/x"), .string("x")) }
        _ = try await client.request("x")
            .withPlugin(Tracer(name: "1", trace: trace)).withPlugin(Tracer(name: "2", trace: trace))
            .responseData()
        #expect(trace.all == ["send:1", "send:2", "receive:1", "receive:2"])
    }

    @Test func chainReturnsCopiesSoBranchesDoNotInterfere() async throws {
        let (client, _) = makeClient { $0.stub(.get("/v1/x"), .status(404)) }
        let base = client.request("x")
        let strict = base.validate()
        _ = try await base.response()
        await #expect(throws: KonexError.self) { try await strict.response() }
    }

    @Test func processorsTransformInOrder() async throws {
        let (client, _) = makeClient { $0.stub(.get("/v1/x"), .string(")]}'\n{\"data\":{\"id\":7,\"title\":\"t\"}}")) }
        let post = try await client.request("x").process(.stripPrefix(")]}'")).process(.keyPath("data"))
            .responseObject(of: Post.self)
        #expect(post == Post(id: 7, title: "t"))
    }

    @Test func validatorsStopAtTheFirstRejection() async throws {
        let trace = Trace()
        let (client, _) = makeClient { $0.stub(.get("/v1/x"), .status(500)) }
        let error = await expectThrows(KonexError.self) {
            try await client.request("x").validate().validate(Tracer(name: "after", trace: trace)).response()
        }
        #expect(error?.stage == .validation)
        #expect(error?.message == "unacceptable status code 500 (expected 200..<300)")
        #expect(trace.all.isEmpty)
    }

    @Test func pluginsSeeTransportFailures() async throws {
        final class Spy: KonexPlugin {
            let failures = Lock<[KonexError.Stage]>([])
            func didReceiveResponse(_ result: Result<ReceivedResponse, KonexError>, for request: TransportRequest)
                async
            {
                if case .failure(let error) = result { failures.withLock { $0.append(error.stage) } }
            }
        }
        let spy = Spy()
        let (client, _) = makeClient { $0.stub(.get("/v1/x"), .fault(.timeout)) }
        _ = try? await client.request("x").withPlugin(spy).response()
        #expect(spy.failures.value == [.transport])
    }

    @Test func adapterFailureIsAnAdaptationError() async throws {
        struct NoToken: Error {}
        let (client, mock) = makeClient { $0.stub(.get("/v1/x"), .status(200)) }
        let error = await expectThrows(KonexError.self) {
            try await client.request("x").withAdapter { _ in throw NoToken() }.response()
        }
        #expect(error?.stage == .adaptation)
        #expect(mock.requestCount == 0)
    }

    @Test func builtInAdaptersSetHeaders() async throws {
        let (client, mock) = makeClient { $0.stub(.get("/v1/x"), .status(200)) }
        _ = try await client.request("x").withAdapter(.bearer("t0k")).withAdapter(.apiKey("k")).response()
        _ = try await client.request("x").withAdapter(.basic(user: "ada", password: "pw")).response()
        #expect(mock.requests[0].header("Authorization") == "Bearer t0k")
        #expect(mock.requests[0].header("X-API-Key") == "k")
        #expect(mock.requests[1].header("Authorization") == "Basic YWRhOnB3")
    }

    @Test func clientDefaultHeadersAreOverriddenByRequestHeaders() async throws {
        struct WithHeader: KonexRequest {
            let path = "/x"
            var headers: [String: String]? { ["accept": "text/plain"] }
        }
        let mock = MockTransport(clock: ImmediateClock()).stubbing(.get("/v1/x"), .status(200))
        let client = KonexClient(
            baseURL: api, headers: ["Accept": "application/json", "X-App": "demo"], transport: mock)
        _ = try await client.request(WithHeader()).response()
        #expect(mock.requests[0].header("Accept") == "text/plain")
        #expect(mock.requests[0].header("X-App") == "demo")
    }

    @Test(arguments: [
        ("application/json; charset=utf-8", ["application/json"], true),
        ("APPLICATION/JSON", ["application/json"], true),
        ("text/html", ["application/json"], false),
        ("text/html", ["text/*"], true),
        ("image/png", ["*/*"], true),
        ("nonsense", ["application/json"], false),
    ])
    func contentTypeValidation(header: String, acceptable: [String], passes: Bool) async throws {
        let (client, _) = makeClient { $0.stub(.get("/v1/x"), .data(Data("{}".utf8), contentType: header)) }
        let result = await Result { try await client.request("x").validate(contentType: acceptable).response() }
        if passes {
            #expect(throws: Never.self) { try result.get() }
        } else {
            let error = try #require(result.failure as? KonexError)
            #expect(error.stage == .validation)
            #expect(error.message.contains("unacceptable Content-Type \"\(header)\""))
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
    var failure: (any Error)? { if case .failure(let error) = self { error } else { nil } }
}
