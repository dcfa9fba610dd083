import Foundation
import Konex

// A small app-side API client, as an app would write it; BlogAPITests tests it with fixtures only.

struct Article: Codable, Sendable, Equatable {
    var id: Int
    var title: String
    var body: String
}

struct BlogError: Codable, Sendable, Equatable {
    var error: String
}

enum BlogAPI: KonexRequest {
    case articles(page: Int)
    case article(id: Int)
    case publish(title: String, body: String)
    case delete(id: Int)

    var path: String {
        switch self {
        case .articles: "/posts"
        case .article(let id), .delete(let id): "/posts/\(id)"
        case .publish: "/posts"
        }
    }

    var method: HTTPMethod {
        switch self {
        case .articles, .article: .get
        case .publish: .post
        case .delete: .delete
        }
    }

    var parameters: Parameters? {
        if case .articles(let page) = self { return ["page": .int(page)] }
        return nil
    }

    var body: RequestBody? {
        if case .publish(let title, let body) = self { return .json(["title": title, "body": body]) }
        return nil
    }
}

struct BlogClient: Sendable {
    let client: KonexClient

    func articles(page: Int = 1) async throws -> [Article] {
        try await client.request(BlogAPI.articles(page: page)).validate().responseArray(
            of: Article.self, atKeyPath: "data")
    }

    func article(id: Int) async throws -> Article {
        try await client.request(BlogAPI.article(id: id)).validate()
            .responseObject(of: Article.self, errorType: BlogError.self)
    }

    func publish(title: String, body: String) async throws -> Article {
        try await client.request(BlogAPI.publish(title: title, body: body)).validate().responseObject(
            of: Article.self)
    }

    func delete(id: Int) async throws {
        _ = try await client.request(BlogAPI.delete(id: id)).validate().responseObject(of: Empty.self)
    }
}
