import Foundation
import KonexTesting
import TestSupport
import Testing

@testable import Konex

/// A request written the 2017 way is never silently read as something else: a stored property whose type differs from
/// the requirement's is refused with a typed error naming the type to write.
@Suite struct EarlierSignatureTests {
    func client() -> (KonexClient, MockTransport) {
        let mock = MockTransport(clock: ImmediateClock())
        mock.stub(.get("/v1/posts"), .json([Post(id: 1, title: "one")]))
        return (KonexClient(baseURL: api, transport: mock), mock)
    }

    /// 2017-style requests whose stored properties have another type than the requirement: they would compile as
    /// unrelated properties, and the request would go out as a GET without them.
    struct StringMethod: KonexRequest {
        let path = "/posts"
        let method = "POST"
    }

    struct PlainHeaders: KonexRequest {
        let path = "/posts"
        let headers: [String: String] = ["X-Client": "2017"]
    }

    struct SecondsTimeout: KonexRequest {
        let path = "/posts"
        let timeout: TimeInterval = 5
    }

    struct AnyParameters: KonexRequest, @unchecked Sendable {
        let path = "/posts"
        let parameters: [String: Any] = ["page": 2]
    }

    struct Sound: KonexRequest {
        let path = "/posts"
        let method: HTTPMethod = .get
        let headers: [String: String]? = ["X-Client": "2026"]
        let timeout: Duration? = .seconds(5)
    }

    @Test func aStoredPropertyOfAnotherTypeIsRefusedNamingTheTypeToWrite() async throws {
        let (client, mock) = client()
        let cases: [(any KonexRequest, String)] = [
            (StringMethod(), "StringMethod.method is a stored String, but KonexRequest reads `method: HTTPMethod`"),
            (PlainHeaders(), "`headers: [String: String]?`"),
            (SecondsTimeout(), "SecondsTimeout.timeout is a stored Double"),
            (AnyParameters(), "`parameters: Parameters?`"),
        ]
        for (endpoint, expected) in cases {
            for _ in 0..<2 {  // found on the first request, remembered for the next
                let error = try await requireThrows(KonexError.self) {
                    try await client.request(endpoint).responseData()
                }
                #expect(error.stage == .invalidRequest)
                #expect(error.message.contains(expected), "\(error.message)")
            }
        }
        #expect(mock.requests.isEmpty, "nothing was sent")
        _ = try await client.request(Sound()).responseData()
        #expect(mock.requests.last?.header("X-Client") == "2026")
    }
}
