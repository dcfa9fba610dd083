import Foundation

/// A client's base URL, checked once: its text without trailing slashes, or why it cannot be used; and the URLs of
/// the paths joined to it lately.
final class CheckedBase: Sendable {
    let prefix: String
    let problem: KonexError?
    // Parsing the joined text is the costliest step of building a request, and apps call the same few endpoints again
    // and again. Bounded: when full, it starts over.
    private let joined = Lock<[String: URL]>([:])
    static let joinedLimit = 64

    func joinedURL(for path: String) -> URL? { joined.withLock { $0[path] } }

    var joinedCount: Int { joined.withLock { $0.count } }

    func remember(_ url: URL, for path: String) {
        joined.withLock { known in
            if known.count >= Self.joinedLimit { known.removeAll(keepingCapacity: true) }
            known[path] = url
        }
    }

    init(_ base: URL) {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        prefix = text
        do {
            try DataRequest.checkScheme(base, method: .get)
            problem = nil
        } catch {
            problem = error as? KonexError
        }
    }
}
