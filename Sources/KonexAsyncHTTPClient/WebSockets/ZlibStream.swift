#if AsyncHTTPClient
    import CKonexZlib
    import NIOCore

    /// One direction's zlib stream, owned by the frame handler on the event loop.
    final class ZlibStream {
        enum Direction { case compress, decompress }

        private var stream = z_stream()
        private let direction: Direction
        private var ready = false
        private let windowBits: Int32

        /// - Parameter windowBits: 9…15; raw deflate (no zlib header), as RFC 7692 wants.
        init(_ direction: Direction, windowBits: Int32) {
            self.direction = direction
            self.windowBits = windowBits
        }

        deinit {
            guard ready else { return }
            switch direction {
            case .compress: deflateEnd(&stream)
            case .decompress: inflateEnd(&stream)
            }
        }

        /// Made on first use: an idle connection holds no window.
        private func start() -> Bool {
            if ready { return true }
            let status =
                switch direction {
                case .compress: konex_deflate_init(&stream, -windowBits)
                case .decompress: konex_inflate_init(&stream, -windowBits)
                }
            ready = status == Z_OK
            return ready
        }

        /// Starts the next message with an empty window (no context takeover).
        func reset() {
            guard ready else { return }
            switch direction {
            case .compress: deflateReset(&stream)
            case .decompress: inflateReset(&stream)
            }
        }

        /// A message's payload compressed, without the final `00 00 FF FF` (RFC 7692 §7.2.1).
        func compress(_ input: ByteBuffer, allocator: ByteBufferAllocator) -> ByteBuffer? {
            guard direction == .compress, start() else { return nil }
            // zlib makes nothing of a flush with no input after a flush; RFC 7692 §7.2.3.6 spells an empty message so.
            if input.readableBytes == 0 { return allocator.buffer(bytes: [0x00]) }
            var output = allocator.buffer(capacity: input.readableBytes / 2 + 64)
            let ok = run(input, flush: Z_SYNC_FLUSH, into: &output, limit: .max)
            guard ok, output.readableBytesView.suffix(4).elementsEqual([0x00, 0x00, 0xFF, 0xFF]) else { return nil }
            output.moveWriterIndex(to: output.writerIndex - 4)
            return output
        }

        /// A message's payload decompressed (the trailer added back); `nil` when it is not valid deflate, and
        /// `.tooBig` as soon as the output passes `limit` (a small message that inflates to gigabytes stops there).
        func decompress(_ input: ByteBuffer, limit: Int, allocator: ByteBufferAllocator) -> Decompressed {
            guard direction == .decompress, start() else { return .invalid }
            var input = input
            input.writeBytes([0x00, 0x00, 0xFF, 0xFF])
            var output = allocator.buffer(capacity: max(0, min(limit, max(256, input.readableBytes * 4))))
            guard run(input, flush: Z_SYNC_FLUSH, into: &output, limit: limit) else { return .invalid }
            return output.readableBytes > limit ? .tooBig : .message(output)
        }

        enum Decompressed {
            case message(ByteBuffer)
            case tooBig
            case invalid
        }

        /// Feeds all of `input` through zlib into `output`, growing it; stops once `output` passes `limit`.
        private func run(_ input: ByteBuffer, flush: Int32, into output: inout ByteBuffer, limit: Int) -> Bool {
            input.withUnsafeReadableBytes { source -> Bool in
                stream.next_in = source.bindMemory(to: Bytef.self).baseAddress.map {
                    UnsafeMutablePointer(mutating: $0)
                }
                stream.avail_in = uInt(source.count)
                defer {
                    stream.next_in = nil
                    stream.avail_in = 0
                }
                while true {
                    if output.readableBytes > limit { return true }
                    let chunk = max(4_096, min(output.readableBytes, 1 << 20))
                    var status: Int32 = Z_OK
                    var spaceLeft = false
                    output.writeWithUnsafeMutableBytes(minimumWritableBytes: chunk) { target in
                        stream.next_out = target.bindMemory(to: Bytef.self).baseAddress
                        stream.avail_out = uInt(target.count)
                        status =
                            direction == .compress ? deflate(&stream, flush) : inflate(&stream, flush)
                        let written = target.count - Int(stream.avail_out)
                        spaceLeft = stream.avail_out > 0
                        stream.next_out = nil
                        return written
                    }
                    switch status {
                    case Z_STREAM_END:
                        // A final block ends the stream (what follows, the trailer we added, is not needed); the
                        // next message starts a new one.
                        reset()
                        return true
                    case Z_OK, Z_BUF_ERROR:
                        // Done once every input byte is in and zlib had room to spare (it has flushed).
                        if stream.avail_in == 0, spaceLeft { return true }
                        // No progress with room to spare: the input cannot go on.
                        if status == Z_BUF_ERROR, spaceLeft { return false }
                    default:
                        return false
                    }
                }
            }
        }
    }
#endif
