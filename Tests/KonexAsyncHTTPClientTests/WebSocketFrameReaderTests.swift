#if AsyncHTTPClient
    import Foundation
    import NIOCore
    import NIOWebSocket
    import Testing

    @testable import KonexAsyncHTTPClient

    /// The frame reader that replaced NIO's decoder: every frame of a stream is read whole however the socket cut the
    /// bytes, a header that breaks a rule is refused before its payload arrives, and what SwiftNIO's decoder read, it
    /// reads alike.
    struct WebSocketFrameReaderTests {
        /// Frames of every header form: 7-, 16- and 64-bit lengths, control frames between fragments, RSV bits.
        static func frames() -> [WebSocketFrame] {
            var generator = SystemRandomNumberGenerator()
            func bytes(_ count: Int) -> ByteBuffer {
                ByteBuffer(bytes: (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
            }
            return [
                WebSocketFrame(fin: false, opcode: .binary, data: bytes(0)),
                WebSocketFrame(fin: true, opcode: .ping, data: bytes(125)),
                WebSocketFrame(fin: false, opcode: .continuation, data: bytes(126)),
                WebSocketFrame(fin: true, rsv1: true, opcode: .continuation, data: bytes(65_535)),
                WebSocketFrame(fin: true, rsv2: true, rsv3: true, opcode: .text, data: bytes(65_536)),
                WebSocketFrame(fin: true, opcode: .connectionClose, data: bytes(2)),
                WebSocketFrame(fin: true, opcode: WebSocketOpcode(encodedWebSocketOpcode: 0x3)!, data: bytes(3)),
            ]
        }

        static func wire(_ frames: [WebSocketFrame]) -> [UInt8] {
            frames.flatMap {
                Array(WebSocketFrameHandler.encoded($0, allocator: ByteBufferAllocator()).readableBytesView)
            }
        }

        /// Reads `wire` delivered in pieces of `step` bytes, as the handler does: leftovers kept, the next piece
        /// appended.
        static func read(_ wire: [UInt8], step: Int) throws -> [InboundFrame] {
            var frames: [InboundFrame] = []
            var unread = ByteBuffer()
            var offset = 0
            while offset < wire.count {
                unread.writeBytes(wire[offset..<min(offset + step, wire.count)])
                offset += step
                while let frame = try WebSocketFrameReader.frame(in: &unread, maximumSize: 1 << 20) {
                    frames.append(frame)
                }
            }
            #expect(unread.readableBytes == 0)
            return frames
        }

        @Test(arguments: [1, 2, 3, 7, 64, 1_000, 70_000, 1 << 20])
        func everyFrameIsReadWholeHoweverTheBytesAreCut(step: Int) throws {
            let sent = Self.frames()
            let read = try Self.read(Self.wire(sent), step: step)
            #expect(read.count == sent.count)
            for (frame, original) in zip(read, sent) {
                #expect(frame.fin == original.fin)
                #expect(frame.rsv1 == original.rsv1)
                #expect(frame.otherReservedBits == (original.rsv2 || original.rsv3))
                #expect(frame.opcode == original.opcode)
                #expect(!frame.isMasked)
                #expect(frame.data == original.data)
            }
        }

        @Test func aMaskedFrameIsReadAndMarkedSoTheHandlerRefusesIt() throws {
            var generator = SystemRandomNumberGenerator()
            let masked = WebSocketFrame(
                fin: true, opcode: .text, maskKey: .random(using: &generator), data: ByteBuffer(string: "hello"))
            let read = try Self.read(
                Self.wire([masked, WebSocketFrame(fin: true, opcode: .pong, data: ByteBuffer())]), step: 3)
            #expect(read.map(\.isMasked) == [true, false])
        }

        @Test(
            arguments: [
                // A 64-bit length past the limit, before any payload byte arrived.
                ([0x82, 127, 0, 0, 0, 0, 0, 0x20, 0, 0], WebSocketFrameReader.Refusal.tooLong(0x20_0000)),
                ([0x82, 127, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], .tooLong(Int.max)),
                ([0x82, 126, 0x10, 0x01], .tooLong(4_097)),
                ([0x09, 0x00], .fragmentedControlFrame),  // a ping without FIN
                ([0x89, 126, 0x00, 0x7E], .longControlFrame(126)),
            ] as [([UInt8], WebSocketFrameReader.Refusal)])
        func aHeaderThatBreaksARuleIsRefusedAsItIsRead(header: [UInt8], refusal: WebSocketFrameReader.Refusal) {
            var buffer = ByteBuffer(bytes: header)
            #expect(throws: refusal) { try WebSocketFrameReader.frame(in: &buffer, maximumSize: 4_096) }
        }

        @Test func aPartialHeaderOrPayloadWaitsAndLeavesTheBytesAlone() throws {
            for wire in [[0x82], [0x82, 126, 0x01], [0x82, 127, 0, 0, 0], [0x82, 0x05, 1, 2, 3]] as [[UInt8]] {
                var buffer = ByteBuffer(bytes: wire)
                #expect(try WebSocketFrameReader.frame(in: &buffer, maximumSize: 4_096) == nil)
                #expect(buffer.readableBytes == wire.count)
            }
        }
    }
#endif
