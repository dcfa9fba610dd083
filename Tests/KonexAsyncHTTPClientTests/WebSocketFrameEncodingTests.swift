#if AsyncHTTPClient
    import Foundation
    import NIOCore
    import NIOWebSocket
    import Testing

    @testable import KonexAsyncHTTPClient

    /// The frame encoder that replaced NIO's: RFC 6455 §5.2's header and §5.3's masking, byte for byte, at every
    /// length boundary and at lengths that leave a tail after the eight-byte steps.
    struct WebSocketFrameEncodingTests {
        @Test(arguments: [0, 1, 7, 8, 9, 125, 126, 127, 65_535, 65_536, 100_003])
        func aFrameIsItsHeaderThenItsPayloadMaskedByteByByte(length: Int) throws {
            var generator = SystemRandomNumberGenerator()
            let payload = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let key = WebSocketMaskingKey.random(using: &generator)
            let frame = WebSocketFrame(
                fin: true, rsv1: length % 2 == 1, opcode: .binary, maskKey: key, data: ByteBuffer(bytes: payload))
            let wire = Array(
                WebSocketFrameHandler.encoded(frame, allocator: ByteBufferAllocator()).readableBytesView)
            // FIN, RSV1 when set, the opcode; the mask bit, then the length in 7, 7+16 or 7+64 bits.
            #expect(wire[0] == 0x80 | (length % 2 == 1 ? 0x40 : 0) | 0x2)
            var expected: [UInt8]
            switch length {
            case ..<126: expected = [0x80 | UInt8(length)]
            case ...0xFFFF: expected = [0x80 | 126, UInt8(length >> 8), UInt8(length & 0xFF)]
            default:
                expected = [0x80 | 127] + (0..<8).map { UInt8(truncatingIfNeeded: UInt64(length) >> (56 - 8 * $0)) }
            }
            let keyBytes = (0..<4).map { key[$0] }
            expected += keyBytes
            expected += payload.enumerated().map { $0.element ^ keyBytes[$0.offset % 4] }
            #expect(wire.count == 1 + expected.count)
            #expect(Array(wire.dropFirst()) == expected)
        }

        @Test func aFrameWithoutAKeyGoesUnmasked() {
            let frame = WebSocketFrame(fin: false, opcode: .text, maskKey: nil, data: ByteBuffer(string: "hi"))
            let wire = Array(WebSocketFrameHandler.encoded(frame, allocator: ByteBufferAllocator()).readableBytesView)
            #expect(wire == [0x01, 0x02] + Array("hi".utf8))
        }
    }
#endif
