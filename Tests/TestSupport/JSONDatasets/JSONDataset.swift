import Foundation

/// The documents JSON parsers are usually compared on (`../shared/json-datasets/`), each with a model of its fields
/// written for Konex's decoding benchmark and its equality test: what a decode of the whole document costs, and
/// whether Konex's decoder reads every value as `JSONDecoder` does.
public enum JSONDataset: String, CaseIterable, Sendable {
    case twitter
    case citmCatalog = "citm_catalog"
    case canada
    case githubEvents = "github_events"
    case apacheBuilds = "apache_builds"

    /// The document's bytes, read from `../shared/json-datasets`; `nil` when this checkout has none beside it.
    public func document() throws -> Data? {
        guard let folder = SharedData.directory("json-datasets") else { return nil }
        return try Data(contentsOf: folder.appendingPathComponent("\(rawValue).json"))
    }

    /// The model the document decodes to.
    public var model: any (Decodable & Equatable & Sendable).Type {
        switch self {
        case .twitter: TwitterSearch.self
        case .citmCatalog: CITMCatalog.self
        case .canada: FeatureCollection.self
        case .githubEvents: [GitHubEvent].self
        case .apacheBuilds: JenkinsNode.self
        }
    }
}

/// A value kept behind a reference, so a model can hold one of its own type (a retweet holds the status it repeats).
public final class Indirect<Value: Decodable & Equatable & Sendable>: Decodable, Equatable, Sendable {
    public let value: Value

    public init(from decoder: any Decoder) throws { value = try Value(from: decoder) }

    public static func == (lhs: Indirect, rhs: Indirect) -> Bool { lhs.value == rhs.value }
}
