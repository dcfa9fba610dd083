import Foundation
import Konex
import KonexTesting
import TestSupport
import Testing

/// App code as apps write it: a client buried inside a model, and `KonexClient.shared`; no transport parameter.
struct Profile: Codable, Sendable, Equatable {
    let name: String
}

final class ProfileModel: Sendable {
    private let client = KonexClient(baseURL: URL(string: "https://api.example.com")!)
    func load() async throws -> Profile { try await client.request("/me").validate().responseObject(of: Profile.self) }
    func loadThroughShared() async throws -> Profile {
        try await KonexClient.shared.request("https://api.example.com/me").validate().responseObject(of: Profile.self)
    }
}

/// `KonexClient.withTransport` and `withMock`: every client in the task tree, and nothing outside it.
@Suite struct InterceptionTests {
    static let ada = Profile(name: "Ada")

    @Test func aClientBuriedInAppCodeAndSharedAreBothIntercepted() async throws {
        let mock = MockTransport(clock: ImmediateClock()).stubbing(.get("/me"), .json(Self.ada))
        let model = ProfileModel()
        let (buried, shared, current) = try await withMock(mock) {
            (try await model.load(), try await model.loadThroughShared(), MockTransport.current)
        }
        #expect(buried == Self.ada)
        #expect(shared == Self.ada)
        #expect(current === mock)
        #expect(mock.requestCount == 2)
        #expect(MockTransport.current == nil)
    }

    @Test func concurrentScopesNeverSeeEachOther() async throws {
        let names = (0..<20).map { "user \($0)" }
        let seen = try await withThrowingTaskGroup(of: (String, String).self) { group in
            for name in names {
                group.addTask {
                    let mock = MockTransport(clock: ImmediateClock()).stubbing(.get("/me"), .json(Profile(name: name)))
                    return try await KonexClient.withTransport(mock) {
                        // A child task inherits the scope.
                        let loaded = try await Task { try await ProfileModel().load() }.value
                        return (name, loaded.name)
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(seen.count == 20)
        #expect(seen.allSatisfy { $0.0 == $0.1 })
    }

    @Test func unusedEndpointsFailTheScope() async throws {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/me"), .json(Self.ada))
        mock.stub(.get("/never"), .status(204))
        let error = try await requireThrows(MockConfigurationError.self) {
            try await withMock(mock) { _ = try await ProfileModel().load() }
        }
        #expect(error.description.contains("GET /never"))
    }

    @Test func theScopesClockGovernsRetries() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/me"), .status(503), .json(Self.ada))
        let client = KonexClient(baseURL: URL(string: "https://api.example.com")!, retriers: [RetryPolicy()])
        async let loaded = KonexClient.withTransport(mock, clock: clock) {
            try await client.request("/me").validate().responseObject(of: Profile.self)
        }
        try await clock.waitForSleepers()  // the retry's backoff, on the scope's clock, not the real one
        clock.advance(by: .seconds(60))
        #expect(try await loaded == Self.ada)
    }
}

#if compiler(>=6.1)
    /// The one-line Swift Testing traits.
    @Suite struct TraitTests {
        @Test(.mocked { $0.stub(.get("/me"), .json(Profile(name: "Ada"))) })
        func mockedTraitInterceptsAppCode() async throws {
            #expect(try await ProfileModel().load() == Profile(name: "Ada"))
            #expect(MockTransport.current?.requestCount == 1)
        }

        @Test(.mocked { $0.stub(.get("/me"), .json(Profile(name: "Grace"))) })
        func parallelTestsHaveTheirOwnMocks() async throws {
            #expect(try await ProfileModel().loadThroughShared() == Profile(name: "Grace"))
        }

        @Test(.recorded("../../Fixtures/httpbin/session", mode: .none, verifyingAllUsed: false))
        @MainActor func recordedTraitReplaysWithoutTheNetwork() async throws {
            let model = SlideshowModel()
            await model.load()
            #expect(model.failure == nil)
            #expect(model.title == "Sample Slide Show by Yours Truly")
            #expect(await RecordingTransport.current?.unusedEntries == ["GET /get query exactly page=2"])
        }

        @Test(.mocked(verifyingAllUsed: false) { $0.stub(.get("/unused"), .status(204)) })
        func verificationCanBeTurnedOff() async throws {
            #expect(MockTransport.current?.requestCount == 0)
        }
    }

    /// A suite served by `Fixtures/blog` beside this file's folder, through a client the app builds itself.
    @Suite(.fixtures("../../Fixtures/blog"))
    struct FixtureTraitTests {
        @Test func theBlogClientReadsFixturesWithoutBeingHandedATransport() async throws {
            let blog = BlogClient(client: KonexClient(baseURL: URL(string: "https://blog.example.com")!))
            #expect(try await blog.article(id: 1).title == "Hello, Konex")
            #expect(FixtureTransport.current != nil)
        }
    }
#endif

/// `withMock` and the `.mocked` trait run the clients in their scope on the same clock: the mock's.
@Suite struct ScopeClockTests {
    @Test func withMockRunsClientsOnTheMocksClock() async throws {
        let clock = ManualClock()
        let mock = MockTransport(clock: clock)
        mock.stub(.get("/flaky"), .status(503), .string("ok"))
        let answer = Task {
            try await withMock(mock) {
                let client = KonexClient(baseURL: URL(string: "https://api.test")!)
                return try await client.request("flaky").validate().retry(RetryPolicy(jitter: 0)).responseString()
            }
        }
        try await clock.waitForSleepers(1)  // the retry's wait, on the manual clock rather than the wall clock
        clock.advance(by: .milliseconds(500))
        #expect(try await answer.value == "ok")
    }
}
