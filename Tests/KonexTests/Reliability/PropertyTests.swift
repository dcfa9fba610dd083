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

    @Test func retryAfterNeverCrashesOnGarbage() {
        var random = SeededGenerator(seed: 42)
        let now = Date(timeIntervalSince1970: 1_000_000)
        for _ in 0..<2_000 {
            let value = random.string(
                maxLength: 40, alphabet: Array("0123456789 ,:-abcdefghijklmnopqrstuvwxyzGMTMonJan+"))
            if let delay = RetryAfter.parse(value, now: now) { #expect(delay >= .zero) }
        }
        #expect(RetryAfter.parse("99999999999999999999999", now: now) == nil)
    }

    @Test func mediaTypeMatchingNeverCrashes() {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<2_000 {
            let header = random.string(maxLength: 30, alphabet: Array("ab/*;= \t\"XYZjsontext"))
            let pattern = random.string(maxLength: 12, alphabet: Array("ab/*jsontext"))
            let matched = MediaType.matches(header, anyOf: [pattern])
            if matched { #expect(header.contains("/") && pattern.contains("/")) }
            _ = MediaType.charset(of: header)
        }
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

    @Test func keyPathScannerOnRandomBytesThrowsTypedErrors() {
        var random = SeededGenerator(seed: 99)
        for _ in 0..<3_000 {
            let data = Data(random.bytes())
            do {
                let range = try JSONScanner.range(of: JSONKeyPath("a.b"), in: data)
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
