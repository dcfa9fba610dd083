/// A dotted path into a JSON document, e.g. `"data.items"` or `"results.0.name"`.
struct JSONKeyPath: Sendable, Hashable {
    enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    let components: [String]
    let parsed: [Component]

    init(_ path: String) {
        components = path.split(separator: ".", omittingEmptySubsequences: true).map(String.init)
        parsed = components.map { component in
            if let index = Int(component), index >= 0 { return .index(index) }
            return .key(component)
        }
    }

    /// `["data", "[3]", "title"]` → `data[3].title`.
    static func render(_ components: [String]) -> String {
        var text = ""
        for component in components {
            if component.hasPrefix("[") || text.isEmpty {
                text += component
            } else {
                text += "." + component
            }
        }
        return text
    }
}
