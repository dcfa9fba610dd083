import Foundation
import KonexTesting
import Testing

@testable import Konex

/// Property-style tests over generated inputs: every parser of outside input either round-trips or throws a typed
/// error, and never crashes.
@Suite struct PropertyTests {
    @Test(arguments: 1...5 as ClosedRange<UInt64>)
    func queryEncodingRoundTripsThroughURLComponents(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<200 {
            var parameters: Parameters = [:]
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                parameters[random.string(maxLength: 8)] = .string(random.string())
            }
            let query = URLEncoding.default.percentEncodedQuery(parameters)
            let url = try #require(URL(string: "https://x.test/p?" + query))
            let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            let decoded = Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
            let expected = parameters.mapValues { $0.stringValue! }
            #expect(decoded == expected, "query: \(query)")
        }
    }

    @Test(arguments: 1...5 as ClosedRange<UInt64>)
    func formBodiesRoundTrip(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        for _ in 0..<100 {
            let key = random.string(maxLength: 6)
            let value = random.string()
            let encoded = URLEncoding.default.percentEncodedQuery([key: .string(value)])
            let pair = encoded.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            #expect(pair.count == 2)
            #expect(String(pair[0]).removingPercentEncoding == key)
            #expect(String(pair[1]).removingPercentEncoding == value)
        }
    }

    @Test func retryAfterReadsSecondsAndDatesAndRefusesGarbage() {
        var random = SeededGenerator(seed: 42)
        let now = Date(timeIntervalSince1970: 1_000_000)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var parsedGarbage = 0
        for _ in 0..<1_000 {
            let seconds = Int64.random(in: 0...86_400, using: &random)
            let padding = String(repeating: " ", count: Int.random(in: 0...2, using: &random))
            #expect(RetryAfter.parse(padding + String(seconds) + padding, now: now) == .seconds(seconds))

            let offset = TimeInterval(Int.random(in: -3_600...3_600, using: &random))
            let date = formatter.string(from: now.addingTimeInterval(offset))
            #expect(RetryAfter.parse(date, now: now) == (offset <= 0 ? .zero : .seconds(offset)), "\(date)")

            // No valid value holds '#' or '!': these must all be refused.
            let garbage = random.string(maxLength: 30, alphabet: Array("0123456789 ,:-abcdefGMTMonJan+#!"))
            if garbage.contains("#") || garbage.contains("!") {
                #expect(RetryAfter.parse(garbage, now: now) == nil, "\(garbage)")
                parsedGarbage += 1
            }
        }
        #expect(parsedGarbage > 300)
        // Valid delay-seconds far beyond any sane wait: read without overflow, clamped to a century, which every
        // policy's maximumRetryAfter declines.
        #expect(RetryAfter.parse("99999999999999999999999", now: now)! >= .seconds(3_000_000_000))
        #expect(RetryAfter.parse("000000000000000000000060", now: now) == .seconds(60))
    }

    /// A plain reference: the part before ";", without spaces, lower-cased, split at its one "/".
    static func referenceMatch(_ header: String, _ pattern: String) -> Bool {
        func parts(_ text: String) -> (String, String)? {
            let main = text.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let halves = main.filter { $0 != " " && $0 != "\t" }.lowercased()
                .split(separator: "/", omittingEmptySubsequences: false)
            guard halves.count == 2, !halves[0].isEmpty, !halves[1].isEmpty else { return nil }
            return (String(halves[0]), String(halves[1]))
        }
        guard let got = parts(header), let wanted = parts(pattern) else { return false }
        return (wanted.0 == "*" || wanted.0 == got.0) && (wanted.1 == "*" || wanted.1 == got.1)
    }

    @Test func mediaTypeMatchingAgreesWithAPlainReference() {
        var random = SeededGenerator(seed: 7)
        var matches = 0
        for _ in 0..<5_000 {
            // Mostly well-formed types in any case, with spaces and parameters; sometimes anything at all.
            let type = ["application", "Text", "TEXT", "a", "*", " text "].randomElement(using: &random)!
            let subtype = ["json", "JSON", "plain", "*", "", "x/y"].randomElement(using: &random)!
            let parameters = ["", "; charset=utf-8", ";q=1/2", " ;"].randomElement(using: &random)!
            let header =
                Int.random(in: 0..<5, using: &random) == 0
                ? random.string(maxLength: 12, alphabet: Array("aB/*; =\tjson"))
                : type + "/" + subtype + parameters
            let pattern = ["application/json", "text/*", "*/*", "text/plain", "json", "a/b", "TEXT/PLAIN", "*/json"]
                .randomElement(using: &random)!
            let matched = MediaType.matches(header, anyOf: [pattern])
            #expect(matched == Self.referenceMatch(header, pattern), "\(header.debugDescription) vs \(pattern)")
            if matched { matches += 1 }
            _ = MediaType.charset(of: header)
        }
        #expect(matches > 500)
    }

    @Test(arguments: 1...5 as ClosedRange<UInt64>)
    func keyPathScannerAgreesWithJSONDecoder(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        for _ in 0..<200 {
            let inner = random.json()
            let key = random.string(maxLength: 5, alphabet: Array("abc\"\\é"))
            if key.contains(".") || key.isEmpty || key == "noise" || key == "more" { continue }
            let document = JSON.object(["noise": random.json(), key: ["items": inner], "more": random.json()])
            let data = try encoder.encode(document)
            let slice = data[try JSONScanner.range(of: JSONKeyPath("\(key).items"), in: data)]
            // Compared as re-encoded bytes: 2.0 and 2 are the same JSON number.
            #expect(try encoder.encode(JSONDecoder().decode(JSON.self, from: slice)) == encoder.encode(inner))
        }
    }

    @Test func keyPathScannerOnRandomBytesAgreesWithAFullParse() {
        var random = SeededGenerator(seed: 99)
        for _ in 0..<3_000 {
            var bytes = random.bytes()
            if Bool.random(using: &random) { bytes = Array(#"{"a":{"b":"#.utf8) + bytes }
            let data = Data(bytes)
            let expected = Oracle.value(at: "a.b", in: data)
            do {
                let range = try JSONScanner.range(of: JSONKeyPath("a.b"), in: data)
                #expect(expected != nil, "a value from bytes a full parse refuses: \(bytes)")
                #expect(range.lowerBound >= data.startIndex && range.upperBound <= data.endIndex)
            } catch {
                #expect(error is JSONScanner.Failure)
            }
        }
    }

    @Test func harLoadingOfMutatedFilesThrowsFixtureErrors() throws {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../KonexTestingTests/Fixtures/har/search.har")
        let original = Array(try Data(contentsOf: source))
        var random = SeededGenerator(seed: 2026)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("konex-fuzz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("x.har")
        for _ in 0..<300 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[index] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.remove(at: index)
                default: bytes.removeSubrange(index..<min(bytes.count, index + Int.random(in: 1...40, using: &random)))
                }
            }
            try Data(bytes).write(to: file)
            do {
                _ = try FixtureTransport(directory: FixtureDirectory(directory))
            } catch {
                #expect(error is FixtureError)
            }
        }
    }
}
