import Foundation
import Konex
import KonexTesting
import TestSupport
import Testing

/// The example app client, tested entirely with fixtures in Fixtures/blog (no network, no real waiting).
@Suite struct BlogAPITests {
    let fixtures = FixtureDirectory(besides: #filePath, named: "../Fixtures/blog")

    func blog(clock: ImmediateClock = ImmediateClock()) throws -> (BlogClient, FixtureTransport) {
        let transport = try FixtureTransport(directory: fixtures, clock: clock)
        return (BlogClient(client: .mocked(transport, clock: clock)), transport)
    }

    @Test func listsArticlesFromTheEnvelope() async throws {
        let (blog, transport) = try blog()
        let articles = try await blog.articles(page: 2)
        #expect(articles.map(\.title) == ["Second page", "Still here"])
        #expect(transport.mock.requests.last?.queryItems.first?.value == "2")
    }

    @Test func readsOneArticle() async throws {
        #expect(try await blog().0.article(id: 1).title == "Hello, Konex")
    }

    @Test func missingArticleCarriesTheServersError() async throws {
        let error = try await requireThrows(KonexError.self) { try await blog().0.article(id: 404) }
        #expect(error.statusCode == 404)
        #expect(error.errorBody(as: BlogError.self) == BlogError(error: "no such article"))
    }

    @Test func publishesWithTheRecordedDelay() async throws {
        let clock = ImmediateClock()
        let (blog, transport) = try blog(clock: clock)
        let article = try await blog.publish(title: "New", body: "Text")
        #expect(article.id == 3)
        #expect(clock.now.offset == .milliseconds(800))
        #expect(
            try transport.mock.requests.last?.decodedBody(as: [String: String].self) == [
                "title": "New", "body": "Text",
            ])
    }

    @Test func deletesWithNoContent() async throws {
        let (blog, transport) = try blog()
        try await blog.delete(id: 1)
        let sent = try #require(transport.mock.requests.last)
        #expect(sent.method == .delete)
        #expect(sent.url?.path == "/posts/1")
        // The fixture answers 204 with no body, which `delete` accepts; a missing article would throw.
        await expectThrows(KonexError.self) { try await blog.delete(id: 404) }
    }
}
