import Foundation
import Konex
import TestSupport
import Testing

@testable import KonexTesting

/// The HAR files real tools wrote (`../shared/har-corpus`, beside the repository; SOURCES.md says where each came
/// from): every file loads, and every entry with an http(s) URL and a status in 100...599 replays its recorded
/// status, headers and body. The files are read in place, never copied into the project.
@Suite(.enabled(if: HARCorpus.directory != nil, HARCorpus.skipReason))
struct HARCorpusInteropTests {
    @Test(arguments: HARCorpus.files)
    func everyReplayableEntryReplaysAsRecorded(file: String) async throws {
        let url = HARCorpus.directory!.appendingPathComponent(file)
        let (archive, skipped) = try HAR.read(from: url)
        let expected = try #require(HARCorpus.expected[file], "no expectation for \(file)")
        #expect(archive.log.entries.count == expected.replayable, "\(file)")
        #expect(skipped.count == expected.skipped, "\(file): \(skipped)")

        let mock = MockTransport(clock: ImmediateClock())
        for endpoint in try archive.endpoints(allowRepeats: false) { mock.stub(endpoint) }
        for (index, entry) in archive.log.entries.enumerated() {
            var request = URLRequest(url: try #require(URL(string: entry.request.url), "\(file) entry \(index) URL"))
            request.httpMethod = entry.request.method
            let (body, response) = try await mock.data(for: request)
            #expect(response.statusCode == entry.response.status, "\(file) entry \(index)")
            let recorded = entry.response.content
            let expectedBody =
                recorded.encoding == "base64"
                ? Data(base64Encoded: recorded.text ?? "", options: .ignoreUnknownCharacters)!
                : Data((recorded.text ?? "").utf8)
            #expect(body == expectedBody, "\(file) entry \(index): \(body.count) bytes, recorded \(expectedBody.count)")
            for header in entry.response.headers where !header.name.hasPrefix(":") {
                #expect(
                    response.value(forHTTPHeaderField: header.name) != nil,
                    "\(file) entry \(index) header \(header.name)")
            }
        }
    }

    @Test func aViewModelIsTestedAgainstACharlesWrittenHAR() async throws {
        /// App code that builds its own client (no transport parameter).
        struct LandingPage {
            let client = KonexClient(baseURL: URL(string: "https://mitmproxy.org")!)
            func headline() async throws -> String {
                let html = try await client.request("/?=").validate(contentType: ["text/html"]).responseString()
                return html.components(separatedBy: "<title>").dropFirst().first?.components(separatedBy: "<").first
                    ?? ""
            }
        }
        let (archive, _) = try HAR.read(from: HARCorpus.directory!.appendingPathComponent("05-charles-4.6.3.har"))
        #expect(archive.log.creator.name == "Charles Proxy")
        let charles = MockTransport(clock: ImmediateClock())
        for endpoint in try archive.endpoints(allowRepeats: false) { charles.stub(endpoint) }
        let headline = try await KonexClient.withTransport(charles) { try await LandingPage().headline() }
        #expect(headline.contains("mitmproxy"))
        #expect(charles.unusedEndpoints.isEmpty)
    }

    @Test func theMitmproxyPostWithPlusAndEncodedPlusInItsQueryMatches() async throws {
        let url = HARCorpus.directory!.appendingPathComponent("12-mitmproxy-savehar.har")
        let (archive, _) = try HAR.read(from: url)
        let post = try #require(
            archive.log.entries.first { $0.request.method == "POST" && $0.request.url.contains("+") })
        let mock = MockTransport(clock: ImmediateClock())
        for endpoint in try archive.endpoints(allowRepeats: true) { mock.stub(endpoint) }
        // Konex writes a space as %20 and a plus as %2B: the same values a server decodes from `+` and `%2B`.
        let components = try #require(URLComponents(string: post.request.url))
        var rewritten = components
        rewritten.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%20")
        var request = URLRequest(url: try #require(rewritten.url))
        request.httpMethod = "POST"
        #expect(try await mock.data(for: request).1.statusCode == post.response.status)
    }
}

enum HARCorpus {
    static let directory = SharedData.directory("har-corpus")

    static let skipReason: Comment =
        "../shared/har-corpus (the HAR files real tools wrote) is not beside this checkout; the interop test needs it"

    static var files: [String] {
        guard let directory else { return [] }
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter {
            $0.hasSuffix(".har")
        }.sorted()
    }

    /// Per file: entries that replay, and entries skipped (failed requests, non-http URLs), counted by a plain Python
    /// read of the files (`utf-8-sig`, http(s) URL, status in 100...599), not by Konex.
    static let expected: [String: (replayable: Int, skipped: Int)] = [
        "01-webinspector-chrome-h3-base64.har": (2, 1),  // a request that failed offline: status 0
        "02-webinspector-chrome-post-bom.har": (1, 0),
        "03-firefox-111-devtools.har": (14, 0),
        "04-webkit-safari-webinspector.har": (15, 0),
        "05-charles-4.6.3.har": (1, 0),
        "07-fiddler-2.3-pages-null.har": (22, 0),
        "08-fiddler-4.6-ie11.har": (10, 0),
        "09-ie11-network-inspector.har": (19, 0),
        "10-firebug-1.7-multipage-post.har": (9, 0),
        "11-insomnia-2022.1.1.har": (1, 0),
        "12-mitmproxy-savehar.har": (5, 0),
        "13-playwright-1.23-redirects.har": (3, 0),
        "15-pollyjs-2.0-array-header-values.har": (5, 0),
    ]
}
