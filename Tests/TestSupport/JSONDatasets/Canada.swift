/// canada.json: a GeoJSON feature collection, Canada's outline in 2.2 MB of coordinates (numbers, almost all of them
/// fractions written with 15 to 17 digits).
public struct FeatureCollection: Decodable, Equatable, Sendable {
    public let type: String
    public let features: [Feature]

    public struct Feature: Decodable, Equatable, Sendable {
        public let type: String
        public let properties: [String: String]
        public let geometry: Geometry
    }

    public struct Geometry: Decodable, Equatable, Sendable {
        public let type: String
        public let coordinates: [[[Double]]]
    }
}
