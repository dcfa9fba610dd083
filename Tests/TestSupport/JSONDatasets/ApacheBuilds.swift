/// apache_builds.json: a Jenkins server's node description and its jobs (short strings, mostly URLs).
public struct JenkinsNode: Decodable, Equatable, Sendable {
    public let assignedLabels: [[String: String]]
    public let mode: String
    public let nodeDescription: String
    public let nodeName: String
    public let numExecutors: Int
    public let description: String
    public let jobs: [Job]
    public let overallLoad: [String: Double]
    public let primaryView: View
    public let quietingDown: Bool
    public let slaveAgentPort: Int
    public let unlabeledLoad: [String: Double]
    public let useCrumbs: Bool
    public let useSecurity: Bool
    public let views: [View]

    public struct Job: Decodable, Equatable, Sendable {
        public let name: String
        public let url: String
        public let color: String
    }

    public struct View: Decodable, Equatable, Sendable {
        public let name: String
        public let url: String
    }
}
