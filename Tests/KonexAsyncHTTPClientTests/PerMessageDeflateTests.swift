#if AsyncHTTPClient
    import Foundation
    import Konex
    import NIOCore
    import Testing

    @testable import KonexAsyncHTTPClient

    /// permessage-deflate (RFC 7692): the answer a client accepts, and the zlib streams behind it.
    struct PerMessageDeflateTests {
        let allocator = ByteBufferAllocator()

        @Test func theAnswerSetsWindowAndContextTakeover() throws {
            let agreed = try #require(
                try PerMessageDeflate(
                    answer: ["permessage-deflate; server_no_context_takeover; client_max_window_bits=10"],
                    offered: true))
            #expect(agreed.serverNoContextTakeover && !agreed.clientNoContextTakeover)
            #expect(agreed.clientWindowBits == 10)
            // zlib's raw deflate has no 8-bit window: 9 stands in.
            #expect(
                try PerMessageDeflate(answer: ["permessage-deflate; client_max_window_bits=8"], offered: true)?
                    .clientWindowBits == 9)
            #expect(try PerMessageDeflate(answer: [], offered: true) == nil)
        }

        @Test(arguments: [
            ["permessage-deflate"],  // agreed, but never offered (checked with offered: false below)
            ["x-webkit-deflate-frame"],
            ["permessage-deflate, permessage-deflate"],
            ["permessage-deflate; client_max_window_bits=16"],
            ["permessage-deflate; server_max_window_bits"],
            ["permessage-deflate; server_no_context_takeover; server_no_context_takeover"],
            ["permessage-deflate; unknown_parameter"],
        ])
        func anAnswerTheClientDidNotOfferFailsTheHandshake(_ answer: [String]) {
            let offered = answer != ["permessage-deflate"]
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
