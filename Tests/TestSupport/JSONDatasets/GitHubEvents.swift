/// github_events.json: 30 events of GitHub's public timeline (pushes, issues, comments, forks, wiki edits): nested
/// objects of URLs, most of them optional by event type.
public struct GitHubEvent: Decodable, Equatable, Sendable {
    public let id: String
    public let type: String
    public let actor: Actor
    public let repo: Repository
    public let payload: Payload
    public let `public`: Bool
    public let createdAt: String
    public let org: Actor?

    enum CodingKeys: String, CodingKey {
        case id, type, actor, repo, payload, `public`
        case createdAt = "created_at"
        case org
    }

    public struct Actor: Decodable, Equatable, Sendable {
        public let id: Int
        public let login: String
        public let gravatarId: String
        public let url: String
        public let avatarUrl: String

        enum CodingKeys: String, CodingKey {
            case id, login
            case gravatarId = "gravatar_id"
            case url
            case avatarUrl = "avatar_url"
        }
    }

    public struct Repository: Decodable, Equatable, Sendable {
        public let id: Int
        public let name: String
        public let url: String
    }

    /// What the event carries; which fields are there depends on its type.
    public struct Payload: Decodable, Equatable, Sendable {
        public let ref: String?
        public let refType: String?
        public let masterBranch: String?
        public let description: String?
        public let pushId: Int?
        public let size: Int?
        public let distinctSize: Int?
        public let head: String?
        public let before: String?
        public let commits: [Commit]?
        public let action: String?
        public let pages: [Page]?
        public let issue: Issue?
        public let comment: Comment?
        public let forkee: Fork?

        enum CodingKeys: String, CodingKey {
            case ref
            case refType = "ref_type"
            case masterBranch = "master_branch"
            case description
            case pushId = "push_id"
            case size
            case distinctSize = "distinct_size"
            case head, before, commits, action, pages, issue, comment, forkee
        }
    }

    public struct Commit: Decodable, Equatable, Sendable {
        public let sha: String
        public let url: String
        public let message: String
        public let author: Author
        public let distinct: Bool

        public struct Author: Decodable, Equatable, Sendable {
            public let name: String
            public let email: String
        }
    }

    public struct Page: Decodable, Equatable, Sendable {
        public let sha: String
        public let htmlUrl: String
        public let action: String
        public let summary: String?
        public let pageName: String
        public let title: String

        enum CodingKeys: String, CodingKey {
            case sha
            case htmlUrl = "html_url"
            case action, summary
            case pageName = "page_name"
            case title
        }
    }

    public struct User: Decodable, Equatable, Sendable {
        public let login: String
        public let id: Int
        public let avatarUrl: String
        public let gravatarId: String
        public let url: String
        public let type: String
        public let followersUrl: String
        public let followingUrl: String
        public let gistsUrl: String
        public let starredUrl: String
        public let subscriptionsUrl: String
        public let organizationsUrl: String
        public let reposUrl: String
        public let eventsUrl: String
        public let receivedEventsUrl: String

        enum CodingKeys: String, CodingKey {
            case login, id
            case avatarUrl = "avatar_url"
            case gravatarId = "gravatar_id"
            case url, type
            case followersUrl = "followers_url"
            case followingUrl = "following_url"
            case gistsUrl = "gists_url"
            case starredUrl = "starred_url"
            case subscriptionsUrl = "subscriptions_url"
            case organizationsUrl = "organizations_url"
            case reposUrl = "repos_url"
            case eventsUrl = "events_url"
            case receivedEventsUrl = "received_events_url"
        }
    }

    public struct Issue: Decodable, Equatable, Sendable {
        public let id: Int
        public let number: Int
        public let title: String
        public let body: String
        public let state: String
        public let user: User
        public let assignee: User?
        public let labels: [Label]
        public let milestone: Label?
        public let comments: Int
        public let pullRequest: PullRequestLinks
        public let createdAt: String
        public let updatedAt: String
        public let closedAt: String?
        public let url: String
        public let htmlUrl: String
        public let labelsUrl: String
        public let commentsUrl: String
        public let eventsUrl: String

        enum CodingKeys: String, CodingKey {
            case id, number, title, body, state, user, assignee, labels, milestone, comments
            case pullRequest = "pull_request"
            case createdAt = "created_at"
            case updatedAt = "updated_at"
            case closedAt = "closed_at"
            case url
            case htmlUrl = "html_url"
            case labelsUrl = "labels_url"
            case commentsUrl = "comments_url"
            case eventsUrl = "events_url"
        }
    }

    public struct Label: Decodable, Equatable, Sendable {
        public let name: String
        public let url: String
        public let color: String
    }

    public struct PullRequestLinks: Decodable, Equatable, Sendable {
        public let htmlUrl: String?
        public let patchUrl: String?
        public let diffUrl: String?

        enum CodingKeys: String, CodingKey {
            case htmlUrl = "html_url"
            case patchUrl = "patch_url"
            case diffUrl = "diff_url"
        }
    }

    public struct Comment: Decodable, Equatable, Sendable {
        public let id: Int
        public let body: String
        public let user: User
        public let url: String
        public let issueUrl: String
        public let createdAt: String
        public let updatedAt: String

        enum CodingKeys: String, CodingKey {
            case id, body, user, url
            case issueUrl = "issue_url"
            case createdAt = "created_at"
            case updatedAt = "updated_at"
        }
    }

    /// A fork's repository: its own fields; the thirty API URL templates it also lists are left out.
    public struct Fork: Decodable, Equatable, Sendable {
        public let id: Int
        public let name: String
        public let fullName: String
        public let owner: User
        public let `private`: Bool
        public let `public`: Bool
        public let fork: Bool
        public let description: String?
        public let homepage: String?
        public let language: String?
        public let mirrorUrl: String?
        public let url: String
        public let htmlUrl: String
        public let cloneUrl: String
        public let gitUrl: String
        public let sshUrl: String
        public let svnUrl: String
        public let size: Int
        public let forks: Int
        public let forksCount: Int
        public let watchers: Int
        public let watchersCount: Int
        public let openIssues: Int
        public let openIssuesCount: Int
        public let hasIssues: Bool
        public let hasWiki: Bool
        public let hasDownloads: Bool
        public let createdAt: String
        public let updatedAt: String
        public let pushedAt: String

        enum CodingKeys: String, CodingKey {
            case id, name
            case fullName = "full_name"
            case owner, `private`, `public`, fork, description, homepage, language
            case mirrorUrl = "mirror_url"
            case url
            case htmlUrl = "html_url"
            case cloneUrl = "clone_url"
            case gitUrl = "git_url"
            case sshUrl = "ssh_url"
            case svnUrl = "svn_url"
            case size, forks
            case forksCount = "forks_count"
            case watchers
            case watchersCount = "watchers_count"
            case openIssues = "open_issues"
            case openIssuesCount = "open_issues_count"
            case hasIssues = "has_issues"
            case hasWiki = "has_wiki"
            case hasDownloads = "has_downloads"
            case createdAt = "created_at"
            case updatedAt = "updated_at"
            case pushedAt = "pushed_at"
        }
    }
}
