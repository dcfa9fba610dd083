import Foundation
import Konex

/// A declared endpoint: a matcher, the responses to give in order, how often, and an optional scenario step.
///
/// ```swift
/// MockEndpoint(.get("/status"), responses: [.status(503), .json(ok)])   // 503 first, then 200 forever
/// MockEndpoint(.post("/login"), responses: [.status(401)], times: .once)
/// MockEndpoint(.get("/me"), responses: [.json(me)])
///     .inScenario("auth", whenState: "refreshed")                        // only after the refresh
/// ```
public struct MockEndpoint: Sendable, CustomStringConvertible {
    /// Which requests this endpoint answers.
    public var matcher: RequestMatcher
    /// The responses, given in order; the last repeats while ``times`` allows.
    public var responses: [MockResponse]
    /// How many times it answers.
    public var times: Times
    /// A delay for every response of this endpoint.
    public var delay: Delay
    var scenario: (name: String, state: String?, next: String?)?

    /// Creates an endpoint.
    /// - Parameters:
    ///   - matcher: Which requests it answers.
    ///   - responses: What it answers, in order.
    ///   - times: How many times; `.always` by default.
    ///   - delay: A delay for each response; none by default.
    public init(_ matcher: RequestMatcher, responses: [MockResponse], times: Times = .always, delay: Delay = .none) {
        self.matcher = matcher
        self.responses = responses
        self.times = times
        self.delay = delay
    }

    /// Makes the endpoint active only while scenario `name` is in `state` (`nil`: any state), and moves the
    /// scenario to `next` after answering. Scenarios start in state `"started"`.
    public func inScenario(_ name: String, whenState state: String? = nil, willSetStateTo next: String? = nil)
        -> MockEndpoint
    {
        var copy = self
        copy.scenario = (name, state, next)
        return copy
    }

    public var description: String {
        var text = matcher.description
        if let scenario { text += " (scenario \(scenario.name)\(scenario.state.map { " in \"\($0)\"" } ?? ""))" }
        return text
    }
}
