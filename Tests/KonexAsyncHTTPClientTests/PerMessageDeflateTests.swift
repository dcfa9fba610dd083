#if AsyncHTTPClient
    import Foundation
    import Konex
    import NIOCore
    import Testing

    @testable import KonexAsyncHTTPClient

    /// A reproducible generator (SplitMix64), so a failing random case fails again.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// permessage-deflate (RFC 7692): the answer a client accepts, and the zlib streams behind it.
    struct PerMessageDeflateTests {
        let allocator = ByteBufferAllocator()

        @Test func theAnswerSetsWindowAndContextTakeover() throws {
            let agreed = try #require(
                try PerMessageDeflate(
                    answer: ["permessage-deflate; server_no_context_takeover; client_max_window_bits=10"],
                    offered: WebSocketCompressionOffer()))
            #expect(agreed.serverNoContextTakeover && !agreed.clientNoContextTakeover)
            #expect(agreed.clientWindowBits == 10)
            // zlib's raw deflate has no 8-bit window: 9 stands in.
            #expect(
                try PerMessageDeflate(
                    answer: ["permessage-deflate; client_max_window_bits=8"], offered: WebSocketCompressionOffer())?
                    .clientWindowBits == 9)
            #expect(try PerMessageDeflate(answer: [], offered: WebSocketCompressionOffer()) == nil)
        }

        @Test func whatTheClientOfferedHoldsWhateverTheAnswerSays() throws {
            let offer = WebSocketCompressionOffer(clientNoContextTakeover: true, clientMaxWindowBits: 10)
            #expect(offer.headerValue == "permessage-deflate; client_no_context_takeover; client_max_window_bits=10")
            #expect(WebSocketCompressionOffer().headerValue == "permessage-deflate; client_max_window_bits")
            #expect(
                WebSocketCompressionOffer(serverNoContextTakeover: true, clientMaxWindowBits: 99).headerValue
                    == "permessage-deflate; server_no_context_takeover; client_max_window_bits")
            // A bare acceptance: the promised fresh windows and the smaller window are kept.
            let agreed = try #require(try PerMessageDeflate(answer: ["permessage-deflate"], offered: offer))
            #expect(agreed.clientNoContextTakeover && agreed.clientWindowBits == 10)
            #expect(
                try PerMessageDeflate(answer: ["permessage-deflate; client_max_window_bits=9"], offered: offer)?
                    .clientWindowBits == 9)
            // A server may lower the client's window, never raise it past the offer (RFC 7692 §7.1.2.2).
            let failure = #expect(throws: WebSocketFailure.self) {
                _ = try PerMessageDeflate(answer: ["permessage-deflate; client_max_window_bits=11"], offered: offer)
            }
            #expect(failure?.kind == .protocolViolation)
            var options = WebSocketOptions()
            options.compression = true
            #expect(options.compressionOffer == WebSocketCompressionOffer())
            options.compressionOffer = offer
            options.compression = true  // stays the offer it was
            #expect(options.compressionOffer == offer)
            options.compression = false
            #expect(options.compressionOffer == nil)
        }

        @Test(arguments: [
            ["permessage-deflate"],  // agreed, but never offered (checked with offered: false below)
            ["x-webkit-deflate-frame"],
            ["permessage-deflate, permessage-deflate"],
            ["permessage-deflate; client_max_window_bits=16"],
            ["permessage-deflate; server_max_window_bits"],
            ["permessage-deflate; server_no_context_takeover; server_no_context_takeover"],
            ["permessage-deflate; unknown_parameter"],
            // Found by the random test below: each of these trapped before (an empty piece).
            [";"], ["permessage-deflate;"], ["permessage-deflate; =10"], ["permessage-deflate; ;"],
        ])
        func anAnswerTheClientDidNotOfferFailsTheHandshake(_ answer: [String]) {
            let offered = answer != ["permessage-deflate"] ? WebSocketCompressionOffer() : nil
            let failure = #expect(throws: WebSocketFailure.self) {
                _ = try PerMessageDeflate(answer: answer, offered: offered)
            }
            #expect(failure?.kind == .protocolViolation)
        }

        @Test func messagesSurviveTheRoundTripAndShareTheWindow() {
            let compressor = ZlibStream(.compress, windowBits: 15)
            let decompressor = ZlibStream(.decompress, windowBits: 15)
            let text = String(repeating: #"{"user":"konex","room":"swift"},"#, count: 1_000)
            var sizes: [Int] = []
            for _ in 0..<3 {
                let compressed = compressor.compress(ByteBuffer(string: text), allocator: allocator)!
                sizes.append(compressed.readableBytes)
                guard
                    case .message(let inflated) = decompressor.decompress(
                        compressed, limit: 1 << 20, allocator: allocator)
                else {
                    Issue.record("did not inflate")
                    return
                }
                #expect(String(buffer: inflated) == text)
            }
            #expect(sizes[0] < text.utf8.count / 20)
            #expect(sizes[1] < sizes[0])  // context takeover: the second copy refers to the first
            let empty = compressor.compress(ByteBuffer(), allocator: allocator)!
            guard case .message(let nothing) = decompressor.decompress(empty, limit: 10, allocator: allocator) else {
                Issue.record("an empty message did not inflate")
                return
            }
            #expect(nothing.readableBytes == 0)
        }

        @Test func aBombStopsAtTheLimitWithoutInflatingTheRest() {
            let compressor = ZlibStream(.compress, windowBits: 15)
            let zeros = ByteBuffer(repeating: 0, count: 64 << 20)
            let bomb = compressor.compress(zeros, allocator: allocator)!
            #expect(bomb.readableBytes < 128 << 10)  // 64 MiB of zeros in well under 128 KiB
            let decompressor = ZlibStream(.decompress, windowBits: 15)
            guard case .tooBig = decompressor.decompress(bomb, limit: 1 << 20, allocator: allocator) else {
                Issue.record("a 64 MiB message passed a 1 MiB limit")
                return
            }
        }

        @Test func randomAnswersAndRandomBytesNeverCrashAndStayWithinTheLimit() {
            var generator = SeededGenerator(seed: 0x6B6F_6E65_78)
            let pieces = [
                "permessage-deflate", "server_no_context_takeover", "client_no_context_takeover",
                "server_max_window_bits", "client_max_window_bits", "=", "9", "15", "16", "-1", "\"10\"", ";", ",", " ",
                "x-webkit-deflate-frame", "",
            ]
            for _ in 0..<5_000 {
                let answer = (0..<Int.random(in: 0...8, using: &generator)).map { _ in
                    pieces.randomElement(using: &generator)!
                }.joined()
                if let agreed = try? PerMessageDeflate(answer: [answer], offered: WebSocketCompressionOffer()) {
                    #expect((9...15).contains(agreed.clientWindowBits))
                }
            }
            for _ in 0..<2_000 {
                let decompressor = ZlibStream(.decompress, windowBits: 15)
                let bytes = (0..<Int.random(in: 0...64, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
                if case .message(let inflated) = decompressor.decompress(
                    ByteBuffer(bytes: bytes), limit: 1_024, allocator: allocator)
                {
                    #expect(inflated.readableBytes <= 1_024)
                }
            }
        }

        @Test func theUTF8CheckAgreesWithTheStandardLibraryOnRandomBytes() {
            var generator = SeededGenerator(seed: 0x7574_6638)
            // Mostly bytes from the multi-byte ranges, where the mistakes would be; U+FFFD (EF BF BD) included.
            let alphabet: [UInt8] = [
                0x41, 0x7F, 0x80, 0xBF, 0xC0, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xBB, 0xBD, 0xF0, 0xF4, 0xF5, 0xFF,
            ]
            for _ in 0..<20_000 {
                let bytes = (0..<Int.random(in: 0...12, using: &generator)).map { _ in
                    alphabet.randomElement(using: &generator)!
                }
                var iterator = bytes.makeIterator()
                var decoder = UTF8()
                var valid = true
                decoding: while true {
                    switch decoder.decode(&iterator) {
                    case .scalarValue: continue
                    case .emptyInput: break decoding
                    case .error:
                        valid = false
                        break decoding
                    }
                }
                let checked = ByteBuffer(bytes: bytes).validUTF8String
                #expect((checked != nil) == valid, "\(bytes)")
                if valid { #expect(checked.map { Array($0.utf8) } == bytes) }
            }
        }

        @Test func bytesThatAreNotDeflateAreInvalid() {
            let decompressor = ZlibStream(.decompress, windowBits: 15)
            guard
                case .invalid = decompressor.decompress(
                    ByteBuffer(bytes: [0xFF, 0xFF, 0xFF, 0xFF, 0x12]), limit: 1 << 20, allocator: allocator)
            else {
                Issue.record("garbage inflated")
                return
            }
        }
    }
#endif
