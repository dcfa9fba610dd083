import Foundation
import Konex

// Three ways to define endpoints, all against httpbin's routes so the tour also runs live.

/// A struct per endpoint, as Konex always did.
struct GetSlideshow: KonexRequest {
    let path = "/json"
}

/// A class hierarchy, for teams that like a base request.
class TourRequest: KonexBasicRequest, @unchecked Sendable {
    override var headers: [String: String]? { ["Accept": "application/json", "X-Tour": "konex"] }
}

final class SearchRequest: TourRequest, @unchecked Sendable {
    let query: String
    init(query: String) { self.query = query }
    override var path: String { "/get" }
    override var parameters: Parameters? { ["q": .string(query), "tags": ["fast", "small"]] }
}

/// An enum of endpoints, NetworkKit style.
enum HTTPBin: KonexRequest {
    case post(Note)
    case status(Int)
    case delay(seconds: Int)

    var path: String {
        switch self {
        case .post: "/anything"
        case .status(let code): "/status/\(code)"
        case .delay(let seconds): "/delay/\(seconds)"
        }
    }

    var method: HTTPMethod {
        if case .post = self { return .post }
        return .get
    }

    var body: RequestBody? {
        if case .post(let note) = self { return .json(note) }
        return nil
    }
}

struct Note: Codable, Sendable {
    var text: String
}

struct Slideshow: Decodable, Sendable {
    var title: String
    var author: String
}

struct Slide: Decodable, Sendable {
    var title: String
    var type: String
}

struct Echo: Decodable, Sendable {
    var url: String
    var json: Note?
}

struct NotFound: Decodable, Sendable {
    var error: String
}
