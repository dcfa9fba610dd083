import Foundation
import KonexTesting
import Testing

@testable import Konex

/// A 401 challenge over URLSession, from a real socket: FoundationNetworking cancels a declined challenge, and Konex
/// hands the 401 back to the request that got it.
@Suite struct ChallengeTests {
    /// Answers every request with a Basic challenge that echoes the credentials it was sent, a little later each
    /// time, so concurrent requests overlap.
    struct EchoingChallenger: Transport {
        func send(_ request: TransportRequest, context: TransportContext) async throws -> (ResponseHead, ResponseBody) {
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...20)))
            let sent = request.value(forHTTPHeaderField: "Authorization") ?? "none"
            let head = ResponseHead(
                statusCode: 401,
                headerFields: ["WWW-Authenticate": #"Basic realm="konex""#, "X-Echo": sent], url: request.url)
            return (head, ResponseBody(Data()))
        }
    }

    /// Trust pass 3, item 7: concurrent requests to one URL with other credentials never take each other's 401.
    @Test func concurrentChallengesToOneURLGoBackToTheirOwnRequests() async throws {
        let server = try LoopbackServer(answeringWith: EchoingChallenger())
        defer { server.stop() }
        let client = KonexClient(baseURL: server.url, transport: URLSessionTransport(), timeout: .seconds(30))
        try await withThrowingTaskGroup(of: (String, String?).self) { group in
            for user in 0..<24 {
                group.addTask {
                    let credential = "Basic user-\(user)"
                    let response = try await client.request("/private").withAdapter(
                        .header("Authorization", credential)
                    )
                    .response()
                    #expect(response.statusCode == 401)
                    return (credential, response.value(forHTTPHeaderField: "X-Echo"))
                }
            }
            for try await (sent, echoed) in group {
                #expect(echoed == sent, "a request sent \(sent) and got the 401 for \(echoed ?? "nothing")")
            }
        }
    }

    @Test func theKeyHoldsEveryHeaderInAnyOrder() {
        var a = URLRequest(url: URL(string: "http://127.0.0.1/x")!)
        a.setValue("Basic one", forHTTPHeaderField: "Authorization")
        a.setValue("1", forHTTPHeaderField: "X-A")
        var b = URLRequest(url: URL(string: "http://127.0.0.1/x")!)
        b.setValue("1", forHTTPHeaderField: "x-a")
        b.setValue("Basic one", forHTTPHeaderField: "authorization")
        #expect(SessionDelegate.key(a) == SessionDelegate.key(b))
        b.setValue("Basic two", forHTTPHeaderField: "Authorization")
        #expect(SessionDelegate.key(a) != SessionDelegate.key(b))
    }
}
