import Foundation

/// Stored properties of a ``KonexRequest`` that carry a requirement's name with another type, found once per type.
///
/// Swift matches a property requirement by name and type: `let method = "POST"` (a `String`), `let timeout:
/// TimeInterval = 5`, `let headers: [String: String] = […]` (not optional) or `let parameters: [String: Any]` compile
/// beside the requirements' defaults as unrelated properties, and the request would go out as a GET without its
/// headers, parameters or timeout. Such a request is refused with a typed error naming the property and the type to
/// write instead. (A computed property is invisible to reflection: only stored ones are checked, of structs and
/// classes; an enum endpoint's requirements are computed.)
enum EndpointShape {
    /// The requirements a conformer may write as stored properties, with the type each must have.
    private static let requirements: [String: (type: Any.Type, spelled: String)] = [
        "path": (String.self, "String"),
        "method": (HTTPMethod.self, "HTTPMethod"),
        "parameters": (Parameters?.self, "Parameters?"),
        "headers": ([String: String]?.self, "[String: String]?"),
        "body": (RequestBody?.self, "RequestBody?"),
        "timeout": (Duration?.self, "Duration?"),
        "urlTemplate": (String?.self, "String?"),
        "requestPlugins": ([any KonexPlugin].self, "[any KonexPlugin]"),
        "requestResponseProcessors": ([any KonexResponseProcessor].self, "[any KonexResponseProcessor]"),
        "requestResponseValidators": ([any KonexResponseValidator].self, "[any KonexResponseValidator]"),
        "requestAdapters": ([any RequestAdapter].self, "[any RequestAdapter]"),
        "requestRetriers": ([any RequestRetrier].self, "[any RequestRetrier]"),
        "requestInterceptors": ([any TransportInterceptor].self, "[any TransportInterceptor]"),
    ]

    /// What each endpoint type was found to be: `nil` when sound, else why not.
    private static let checked = Lock<[ObjectIdentifier: String?]>([:])

    /// Throws when `endpoint`'s type has a stored property named like a requirement but of another type.
    static func check(_ endpoint: any KonexRequest, method: HTTPMethod) throws {
        let type = ObjectIdentifier(Swift.type(of: endpoint))
        // `client.request("…")`'s own endpoint is sound by construction: no lock and no lookup (400 instructions).
        if type == ObjectIdentifier(PathRequest.self) { return }
        let known = checked.withLock { $0[type] }
        let problem: String?
        if let known {
            problem = known
        } else {
            problem = Self.problem(in: endpoint)
            checked.withLock { $0[type] = .some(problem) }
        }
        if let problem { throw KonexError.invalidRequest(problem, method: method, url: nil) }
    }

    private static func problem(in endpoint: any KonexRequest) -> String? {
        var mirror: Mirror? = Mirror(reflecting: endpoint)
        // Stored properties are a struct's or a class's: the same for every value of the type, so the answer can be
        // kept per type. An enum's children are the payload of the value's case, labelled by the case
        // (`.timeout(seconds:)` reads as a child `timeout`): never requirements, and different for every value.
        guard mirror?.displayStyle == .struct || mirror?.displayStyle == .class else { return nil }
        while let current = mirror {
            for child in current.children {
                guard let label = child.label, let expected = requirements[label] else { continue }
                let found = Swift.type(of: child.value)
                if found != expected.type {
                    return
                        "\(Swift.type(of: endpoint)).\(label) is a stored \(found), but KonexRequest reads `\(label): "
                        + "\(expected.spelled)`: this property is never read. Declare it as `\(expected.spelled)`"
                }
            }
            mirror = current.superclassMirror
        }
        return nil
    }
}
