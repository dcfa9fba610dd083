import Foundation
import KonexTesting
import Testing

@testable import Konex

/// The key-path scanner against a full parse: for every document, valid or corrupted, it returns exactly what
/// `JSONSerialization` plus a path walk returns, or it throws; it never returns a value from a document the full
/// parse refuses.
///
/// Each run draws a new seed (printed with any failure); set `KONEX_PROPERTY_SEED` to replay one.
@Suite struct KeyPathDifferentialTests {
    static let documentsPerRun = 1_500

    @Test func scannerAgreesWithAFullParseOnValidAndCorruptedDocuments() throws {
        let seed =
            ProcessInfo.processInfo.environment["KONEX_PROPERTY_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 1...UInt64.max)
        var generator = JSONTextGenerator(random: SeededGenerator(seed: seed))
        var tally = Tally()
        for index in 0..<Self.documentsPerRun {
            let (text, path) = generator.document()
            let valid = Data(text.utf8)
            let context = "seed \(seed) (KONEX_PROPERTY_SEED=\(seed) replays it), document \(index), path \(path)"
            try check(valid, path: path, corrupted: false, context: context, tally: &tally)
            let corrupted = corrupt(valid, using: &generator.random)
            try check(corrupted, path: path, corrupted: true, context: context, tally: &tally)
        }
        #expect(tally.validAgreed == Self.documentsPerRun, "seed \(seed)")
        #expect(tally.corruptedChecked == Self.documentsPerRun, "seed \(seed)")
        // A corruption that leaves valid JSON (a changed digit, a byte in a string) is common; a run where none did,
        // or where none was refused, would not be testing both sides.
        #expect(tally.corruptedRefused > Self.documentsPerRun / 2, "seed \(seed)")
        #expect(tally.corruptedAccepted > 0, "seed \(seed)")
    }

    struct Tally {
        var validAgreed = 0
        var corruptedChecked = 0
        var corruptedRefused = 0
        var corruptedAccepted = 0
    }

    private func check(_ data: Data, path: String, corrupted: Bool, context: String, tally: inout Tally) throws {
        let oracle = Oracle.value(at: path, in: data)
        let scanned: Result<Data, JSONScanner.Failure>
        do {
            scanned = .success(data[try JSONScanner.range(of: JSONKeyPath(path), in: data)])
        } catch let failure as JSONScanner.Failure {
            scanned = .failure(failure)
        }
        let document = String(decoding: data, as: UTF8.self)
        switch (oracle, scanned) {
        case (.some(let expected), .success(let slice)):
            let got = try JSONSerialization.jsonObject(with: slice, options: .fragmentsAllowed)
            #expect(Oracle.canonical(got) == Oracle.canonical(expected), "\(context): \(document)")
            if corrupted { tally.corruptedAccepted += 1 } else { tally.validAgreed += 1 }
        case (.none, .success(let slice)):
            Issue.record(
                "\(context): the scanner returned \(String(decoding: slice, as: UTF8.self)) from a document a full parse refuses or that has no such path: \(document)"
            )
        case (.some, .failure(let failure)):
            // The one strictness beyond Foundation on Linux, documented in JSONScanner: no trailing commas.
            #expect(
                corrupted && failure.description.contains("trailing comma"),
                "\(context): refused a document a full parse accepts (\(failure)): \(document)")
            if corrupted { tally.corruptedRefused += 1 }
        case (.none, .failure):
            if corrupted { tally.corruptedRefused += 1 } else { Issue.record("\(context): no value for a valid path") }
        }
        if corrupted { tally.corruptedChecked += 1 }
    }

    /// One random corruption of the kinds truncated or tampered responses show.
    private func corrupt(_ data: Data, using random: inout SeededGenerator) -> Data {
        var bytes = Array(data)
        let index = Int.random(in: 0..<bytes.count, using: &random)
        let noise: [UInt8] = Array("\"{}[],:\\ 0-.eaé".utf8) + [0x00, 0xFF, 0x0A]
        switch Int.random(in: 0..<6, using: &random) {
        case 0: bytes.remove(at: index)
        case 1: bytes.insert(noise.randomElement(using: &random)!, at: index)
        case 2: bytes[index] = noise.randomElement(using: &random)!
        case 3 where index + 1 < bytes.count: bytes.swapAt(index, index + 1)
        case 4: bytes.removeSubrange(index...)
        default: bytes += Array([",", "}", "x", "\"", " 1", "]", "\0"].randomElement(using: &random)!.utf8)
        }
        return Data(bytes)
    }
}

/// The reference: a full parse by `JSONSerialization`, then the path walked over what it built.
enum Oracle {
    static func value(at path: String, in data: Data) -> Any? {
        guard var value = try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed) else { return nil }
        for component in path.split(separator: ".").map(String.init) {
            if let index = Int(component), index >= 0 {
                guard let array = value as? [Any], index < array.count else { return nil }
                value = array[index]
            } else {
                guard let object = value as? [String: Any], let member = object[component] else { return nil }
                value = member
            }
        }
        return value
    }

    /// Values compared as sorted JSON text, so `2.0` and `2` and key order do not matter.
    static func canonical(_ value: Any) -> Data? {
        try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
    }
}
