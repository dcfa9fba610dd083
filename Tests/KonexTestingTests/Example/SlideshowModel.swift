import Foundation
import Konex

// An app-side view model as apps write it: it builds its own client and takes no transport, so tests intercept it
// with KonexClient.withTransport or a KonexTesting trait (see SlideshowModelTests).

struct Slideshow: Decodable, Sendable, Equatable {
    struct Slide: Decodable, Sendable, Equatable {
        let title: String
    }
    let title: String
    let author: String
    let slides: [Slide]
}

@MainActor
final class SlideshowModel {
    private let client = KonexClient(baseURL: URL(string: "https://httpbin.org")!)
    private(set) var title = ""
    private(set) var slideTitles: [String] = []
    private(set) var failure: String?

    func load() async {
        do {
            let show = try await client.request("/json").validate().responseObject(
                of: Slideshow.self, atKeyPath: "slideshow")
            title = "\(show.title) by \(show.author)"
            slideTitles = show.slides.map(\.title)
        } catch {
            failure = "\(error)"
        }
    }
}
