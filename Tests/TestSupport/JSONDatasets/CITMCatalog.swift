/// citm_catalog.json: a concert hall's catalogue: names by id in dictionaries, events, and performances with their
/// prices and seat categories (integers, mostly).
public struct CITMCatalog: Decodable, Equatable, Sendable {
    public let areaNames: [String: String]
    public let audienceSubCategoryNames: [String: String]
    public let blockNames: [String: String]
    public let events: [String: Event]
    public let performances: [Performance]
    public let seatCategoryNames: [String: String]
    public let subTopicNames: [String: String]
    public let subjectNames: [String: String]
    public let topicNames: [String: String]
    public let topicSubTopics: [String: [Int]]
    public let venueNames: [String: String]

    public struct Event: Decodable, Equatable, Sendable {
        public let description: String?
        public let id: Int
        public let logo: String?
        public let name: String
        public let subTopicIds: [Int]
        public let subjectCode: String?
        public let subtitle: String?
        public let topicIds: [Int]
    }

    public struct Performance: Decodable, Equatable, Sendable {
        public let eventId: Int
        public let id: Int
        public let logo: String?
        public let name: String?
        public let prices: [Price]
        public let seatCategories: [SeatCategory]
        public let seatMapImage: String?
        public let start: Int
        public let venueCode: String
    }

    public struct Price: Decodable, Equatable, Sendable {
        public let amount: Int
        public let audienceSubCategoryId: Int
        public let seatCategoryId: Int
    }

    public struct SeatCategory: Decodable, Equatable, Sendable {
        public let areas: [Area]
        public let seatCategoryId: Int
    }

    public struct Area: Decodable, Equatable, Sendable {
        public let areaId: Int
        public let blockIds: [Int]
    }
}
