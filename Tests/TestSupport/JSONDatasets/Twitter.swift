/// twitter.json: a page of Twitter's search API, 100 statuses with their users and entities (strings, many of them
/// escaped non-ASCII text, and 64-bit ids).
public struct TwitterSearch: Decodable, Equatable, Sendable {
    public let statuses: [Status]
    public let searchMetadata: SearchMetadata

    enum CodingKeys: String, CodingKey {
        case statuses
        case searchMetadata = "search_metadata"
    }

    public struct SearchMetadata: Decodable, Equatable, Sendable {
        public let completedIn: Double
        public let maxId: Int64
        public let maxIdStr: String
        public let nextResults: String
        public let query: String
        public let refreshUrl: String
        public let count: Int
        public let sinceId: Int64
        public let sinceIdStr: String

        enum CodingKeys: String, CodingKey {
            case completedIn = "completed_in"
            case maxId = "max_id"
            case maxIdStr = "max_id_str"
            case nextResults = "next_results"
            case query
            case refreshUrl = "refresh_url"
            case count
            case sinceId = "since_id"
            case sinceIdStr = "since_id_str"
        }
    }

    public struct Status: Decodable, Equatable, Sendable {
        public let metadata: Metadata
        public let createdAt: String
        public let id: Int64
        public let idStr: String
        public let text: String
        public let source: String
        public let truncated: Bool
        public let inReplyToStatusId: Int64?
        public let inReplyToStatusIdStr: String?
        public let inReplyToUserId: Int64?
        public let inReplyToUserIdStr: String?
        public let inReplyToScreenName: String?
        public let user: User
        public let geo: Point?
        public let coordinates: Point?
        public let place: [String: String]?
        public let contributors: [Int64]?
        public let retweetedStatus: Indirect<Status>?
        public let retweetCount: Int
        public let favoriteCount: Int
        public let entities: Entities
        public let favorited: Bool
        public let retweeted: Bool
        public let possiblySensitive: Bool?
        public let lang: String

        enum CodingKeys: String, CodingKey {
            case metadata
            case createdAt = "created_at"
            case id
            case idStr = "id_str"
            case text, source, truncated
            case inReplyToStatusId = "in_reply_to_status_id"
            case inReplyToStatusIdStr = "in_reply_to_status_id_str"
            case inReplyToUserId = "in_reply_to_user_id"
            case inReplyToUserIdStr = "in_reply_to_user_id_str"
            case inReplyToScreenName = "in_reply_to_screen_name"
            case user, geo, coordinates, place, contributors
            case retweetedStatus = "retweeted_status"
            case retweetCount = "retweet_count"
            case favoriteCount = "favorite_count"
            case entities, favorited, retweeted
            case possiblySensitive = "possibly_sensitive"
            case lang
        }
    }

    public struct Metadata: Decodable, Equatable, Sendable {
        public let resultType: String
        public let isoLanguageCode: String

        enum CodingKeys: String, CodingKey {
            case resultType = "result_type"
            case isoLanguageCode = "iso_language_code"
        }
    }

    public struct Point: Decodable, Equatable, Sendable {
        public let type: String
        public let coordinates: [Double]
    }

    public struct User: Decodable, Equatable, Sendable {
        public let id: Int64
        public let idStr: String
        public let name: String
        public let screenName: String
        public let location: String
        public let description: String
        public let url: String?
        public let entities: UserEntities
        public let protected: Bool
        public let followersCount: Int
        public let friendsCount: Int
        public let listedCount: Int
        public let createdAt: String
        public let favouritesCount: Int
        public let utcOffset: Int?
        public let timeZone: String?
        public let geoEnabled: Bool
        public let verified: Bool
        public let statusesCount: Int
        public let lang: String
        public let contributorsEnabled: Bool
        public let isTranslator: Bool
        public let isTranslationEnabled: Bool
        public let profileBackgroundColor: String
        public let profileBackgroundImageUrl: String
        public let profileBackgroundImageUrlHttps: String
        public let profileBackgroundTile: Bool
        public let profileImageUrl: String
        public let profileImageUrlHttps: String
        public let profileBannerUrl: String?
        public let profileLinkColor: String
        public let profileSidebarBorderColor: String
        public let profileSidebarFillColor: String
        public let profileTextColor: String
        public let profileUseBackgroundImage: Bool
        public let defaultProfile: Bool
        public let defaultProfileImage: Bool
        public let following: Bool
        public let followRequestSent: Bool
        public let notifications: Bool

        enum CodingKeys: String, CodingKey {
            case id
            case idStr = "id_str"
            case name
            case screenName = "screen_name"
            case location, description, url, entities
            case protected
            case followersCount = "followers_count"
            case friendsCount = "friends_count"
            case listedCount = "listed_count"
            case createdAt = "created_at"
            case favouritesCount = "favourites_count"
            case utcOffset = "utc_offset"
            case timeZone = "time_zone"
            case geoEnabled = "geo_enabled"
            case verified
            case statusesCount = "statuses_count"
            case lang
            case contributorsEnabled = "contributors_enabled"
            case isTranslator = "is_translator"
            case isTranslationEnabled = "is_translation_enabled"
            case profileBackgroundColor = "profile_background_color"
            case profileBackgroundImageUrl = "profile_background_image_url"
            case profileBackgroundImageUrlHttps = "profile_background_image_url_https"
            case profileBackgroundTile = "profile_background_tile"
            case profileImageUrl = "profile_image_url"
            case profileImageUrlHttps = "profile_image_url_https"
            case profileBannerUrl = "profile_banner_url"
            case profileLinkColor = "profile_link_color"
            case profileSidebarBorderColor = "profile_sidebar_border_color"
            case profileSidebarFillColor = "profile_sidebar_fill_color"
            case profileTextColor = "profile_text_color"
            case profileUseBackgroundImage = "profile_use_background_image"
            case defaultProfile = "default_profile"
            case defaultProfileImage = "default_profile_image"
            case following
            case followRequestSent = "follow_request_sent"
            case notifications
        }
    }

    public struct UserEntities: Decodable, Equatable, Sendable {
        public let url: URLs?
        public let description: URLs
    }

    public struct URLs: Decodable, Equatable, Sendable {
        public let urls: [Link]
    }

    public struct Link: Decodable, Equatable, Sendable {
        public let url: String
        public let expandedUrl: String
        public let displayUrl: String
        public let indices: [Int]

        enum CodingKeys: String, CodingKey {
            case url
            case expandedUrl = "expanded_url"
            case displayUrl = "display_url"
            case indices
        }
    }

    public struct Entities: Decodable, Equatable, Sendable {
        public let hashtags: [Hashtag]
        public let symbols: [Hashtag]
        public let urls: [Link]
        public let userMentions: [Mention]
        public let media: [Media]?

        enum CodingKeys: String, CodingKey {
            case hashtags, symbols, urls
            case userMentions = "user_mentions"
            case media
        }
    }

    public struct Hashtag: Decodable, Equatable, Sendable {
        public let text: String
        public let indices: [Int]
    }

    public struct Mention: Decodable, Equatable, Sendable {
        public let screenName: String
        public let name: String
        public let id: Int64
        public let idStr: String
        public let indices: [Int]

        enum CodingKeys: String, CodingKey {
            case screenName = "screen_name"
            case name, id
            case idStr = "id_str"
            case indices
        }
    }

    public struct Media: Decodable, Equatable, Sendable {
        public let id: Int64
        public let idStr: String
        public let indices: [Int]
        public let mediaUrl: String
        public let mediaUrlHttps: String
        public let url: String
        public let displayUrl: String
        public let expandedUrl: String
        public let type: String
        public let sizes: Sizes
        public let sourceStatusId: Int64?
        public let sourceStatusIdStr: String?

        enum CodingKeys: String, CodingKey {
            case id
            case idStr = "id_str"
            case indices
            case mediaUrl = "media_url"
            case mediaUrlHttps = "media_url_https"
            case url
            case displayUrl = "display_url"
            case expandedUrl = "expanded_url"
            case type, sizes
            case sourceStatusId = "source_status_id"
            case sourceStatusIdStr = "source_status_id_str"
        }
    }

    public struct Sizes: Decodable, Equatable, Sendable {
        public let medium: Size
        public let small: Size
        public let thumb: Size
        public let large: Size
    }

    public struct Size: Decodable, Equatable, Sendable {
        public let w: Int
        public let h: Int
        public let resize: String
    }
}
