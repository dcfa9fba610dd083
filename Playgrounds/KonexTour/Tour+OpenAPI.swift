import Foundation
import Konex
import KonexTesting

#if OpenAPI
    import KonexOpenAPI
    import PostsAPI
#endif

extension Tour {
    /// Step 16: the client swift-openapi-generator made from Playgrounds/OpenAPIExample/openapi.yaml, on Konex: each
    /// operation a call named by its operationId, mocked by that name with a delay, a documented 404 a response.
    func openAPIDemo() async throws {
        #if OpenAPI
            let mock = MockTransport()
            mock.stub(.get("/v1/posts/2"), .json(["error": "no such post"], status: 404))
            mock.stub(
                .operation("getPost"),
                .json(["id": 1, "title": "Hello from a mock"] as JSON).delayed(by: .milliseconds(300)))
            let konex = KonexClient(transport: mock)
            konex.plugins = [LoggingPlugin { print("  \($0.split(separator: "\n").first ?? "")") }]
            let api = Client(serverURL: try Servers.Server1.url(), transport: konex.openAPITransport)
            let started = ContinuousClock.now
            let post = try await api.getPost(path: .init(id: 1)).ok.body.json
            print("  getPost → \"\(post.title)\" after \(Int((ContinuousClock.now - started) / .milliseconds(1))) ms")
            let missing = try await api.getPost(path: .init(id: 2)).notFound.body.json
            print("  getPost(2) → 404 \"\(missing.error)\", a response the generated code documents, not a throw")
        #else
            print("(needs the OpenAPI trait: swift run --traits OpenAPI konex-tour)")
        #endif
    }
}
