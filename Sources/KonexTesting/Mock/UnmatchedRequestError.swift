import Foundation
import Konex

/// No declared endpoint matches a request; lists the nearest endpoints and what differed.
///
/// Its description reads like:
/// ```text
/// No mock endpoint matches GET http://mock/users/2?page=1
/// Nearest endpoints:
///   - GET /users/{id} query page=2: query item "page": expected "2", got "1"
///   - POST /users: method: expected POST, got GET; path: expected /users, got /users/2
/// ```
public struct UnmatchedRequestError: Error, Sendable, CustomStringConvertible {
    /// One near miss.
    public struct NearMiss: Sendable {
        /// The endpoint's description.
        public let endpoint: String
        /// What differed.
        public let differences: [String]
    }

    /// The request that matched nothing.
    public let request: TransportRequest
    /// The closest endpoints, best first (at most three).
    public let nearest: [NearMiss]

    public var description: String {
        var text =
            "No mock endpoint matches \(request.httpMethod) \(request.url.absoluteString)"
        if nearest.isEmpty { return text + " (no endpoints are declared)" }
        text += "\nNearest endpoints:"
        for miss in nearest { text += "\n  - \(miss.endpoint): \(miss.differences.joined(separator: "; "))" }
        return text
    }
}
