import Foundation
import Testing

@testable import Konex

/// Text checked piece by piece: refused at the first piece after which no bytes could make it UTF-8, and never
/// before.
struct UTF8StreamTests {
    /// Whether `bytes` is well-formed UTF-8, by the standard library's decoder.
    static func isValid(_ bytes: [UInt8]) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// Whether some bytes after `bytes` could make it UTF-8: it is, or it is followed by the start of a sequence.
    static func canStillBeValid(_ bytes: [UInt8]) -> Bool {
        (0...min(3, bytes.count)).contains { cut in
            isValid(Array(bytes.dropLast(cut)))
                && (cut == 0 || UTF8Validation.isUnfinishedSequence(Array(bytes.suffix(cut)), at: 0))
        }
    }

    @Test func randomTextInRandomPiecesIsRefusedAtTheFirstPieceThatCannotBeUTF8() {
        var generator = SystemRandomNumberGenerator()
        var seed = UInt64.random(in: 0...UInt64.max, using: &generator)
        func next() -> UInt64 {  // SplitMix64, seeded once and printed on failure
            seed &+= 0x9E37_79B9_7F4A_7C15
            var z = seed
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let start = seed
        // The multi-byte ranges' edges, where mistakes would be, with ASCII and whole characters between.
        let alphabet: [[UInt8]] = [
            [0x41], [0x7F], [0x80], [0xBF], [0xC0], [0xC2], [0xDF], [0xE0], [0xA0], [0x9F], [0xED], [0xEF], [0xF0],
            [0x90], [0x8F], [0xF4], [0xF5], [0xFF], Array("κό".utf8), Array("𝄞".utf8), Array("plain ASCII, 17 b".utf8),
        ]
        for _ in 0..<20_000 {
            let pieces = (0..<Int(next() % 5)).map { _ in
                (0..<Int(next() % 5)).flatMap { _ in alphabet[Int(next() % UInt64(alphabet.count))] }
            }
            var stream = UTF8Validation.Stream()
            var sofar: [UInt8] = []
            for piece in pieces {
                sofar += piece
                let accepted = piece.withUnsafeBytes { stream.append($0) }
                #expect(accepted == Self.canStillBeValid(sofar), "seed \(start): \(pieces)")
                if !accepted { break }
            }
            if Self.canStillBeValid(sofar) {
                #expect(stream.isComplete == Self.isValid(sofar), "seed \(start): \(pieces)")
            }
        }
    }

    @Test func aCharacterCutAcrossThreePiecesIsFinishedByTheLast() {
        var stream = UTF8Validation.Stream()
        let clef = Array("𝄞".utf8)  // F0 9D 84 9E
        var steps: [(accepted: Bool, complete: Bool)] = []
        for piece in [clef[0..<1], clef[1..<2], [], clef[2..<4] + Array("ok".utf8)] as [ArraySlice<UInt8>] {
            let accepted = piece.withUnsafeBytes { stream.append($0) }
            steps.append((accepted, stream.isComplete))
        }
        #expect(steps.map(\.accepted) == [true, true, true, true])
        #expect(steps.map(\.complete) == [false, false, false, true])
        // Autobahn 6.4.1's second piece: F4 90 80 80 is past U+10FFFF, refused at its second byte.
        var past = UTF8Validation.Stream()
        let first = Array("κόσμε".utf8).withUnsafeBytes { past.append($0) }
        let second = [0xF4, 0x90 as UInt8].withUnsafeBytes { past.append($0) }
        #expect(first && !second)
    }
}
