import Foundation

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The system's zlib, found at run time: every platform Konex runs on ships it (libcurl and Foundation link it), and
/// loading it by name keeps Konex free of a package and of a system library target that would need zlib's headers to
/// build.
///
/// Only the deflate side, as RFC 9110's `gzip` (RFC 1952) and `deflate` (the zlib format, RFC 1950) codings. The
/// `z_stream` record is laid out by hand: fourteen machine words on every platform zlib builds for with `long` as
/// wide as a pointer (LP64, and ILP32 such as watchOS's arm64_32).
final class Zlib: Sendable {
    private typealias DeflateInit2 =
        @convention(c) (
            UnsafeMutableRawPointer, Int32, Int32, Int32, Int32, Int32, UnsafePointer<CChar>, Int32
        ) -> Int32
    private typealias Deflate = @convention(c) (UnsafeMutableRawPointer, Int32) -> Int32
    private typealias DeflateEnd = @convention(c) (UnsafeMutableRawPointer) -> Int32
    private typealias Version = @convention(c) () -> UnsafePointer<CChar>

    private let deflateInit2: DeflateInit2
    private let deflateCall: Deflate
    private let deflateEnd: DeflateEnd
    private let version: Version

    /// The library, or `nil` where none can be loaded.
    static let shared: Zlib? = Zlib()

    private init?() {
        #if canImport(Darwin)
            let names = ["/usr/lib/libz.1.dylib", "libz.1.dylib", "libz.dylib"]
        #else
            let names = ["libz.so.1", "libz.so"]
        #endif
        guard let handle = names.lazy.compactMap({ dlopen($0, RTLD_NOW | RTLD_LOCAL) }).first,
            let initialise = dlsym(handle, "deflateInit2_"), let deflate = dlsym(handle, "deflate"),
            let end = dlsym(handle, "deflateEnd"), let version = dlsym(handle, "zlibVersion")
        else { return nil }
        deflateInit2 = unsafeBitCast(initialise, to: DeflateInit2.self)
        deflateCall = unsafeBitCast(deflate, to: Deflate.self)
        deflateEnd = unsafeBitCast(end, to: DeflateEnd.self)
        self.version = unsafeBitCast(version, to: Version.self)
    }

    /// The wire format of a compressed body.
    enum Format {
        /// RFC 1952: a gzip header and trailer around the deflate data.
        case gzip
        /// RFC 1950: the zlib format, which is what HTTP's `deflate` coding means.
        case zlib

        var windowBits: Int32 {
            switch self {
            case .gzip: 15 + 16
            case .zlib: 15
            }
        }
    }

    /// One compression from start to end: bytes in, compressed bytes handed to `output` as they fill a buffer.
    final class Compressor {
        private static let word = MemoryLayout<Int>.size
        private let zlib: Zlib
        private let stream: UnsafeMutableRawPointer
        private let buffer: UnsafeMutableRawBufferPointer
        private var ended = false

        init(_ zlib: Zlib, format: Format, level: Int32 = 6) throws {
            self.zlib = zlib
            stream = .allocate(byteCount: 14 * Self.word, alignment: Self.word)
            stream.initializeMemory(as: UInt8.self, repeating: 0, count: 14 * Self.word)
            buffer = .allocate(byteCount: 1 << 16, alignment: 1)
            let (deflated, memoryLevel, defaultStrategy): (Int32, Int32, Int32) = (8, 8, 0)  // zlib.h's values
            let status = zlib.deflateInit2(
                stream, level, deflated, format.windowBits, memoryLevel, defaultStrategy, zlib.version(),
                Int32(14 * Self.word))
            guard status == 0 else {
                ended = true
                throw ZlibFailure(status: status)
            }
        }

        deinit {
            if !ended { _ = zlib.deflateEnd(stream) }
            stream.deallocate()
            buffer.deallocate()
        }

        /// Compresses `input`, or ends the stream when `finish` (with `input` the last bytes), passing each full
        /// buffer of output to `output`.
        func compress(_ input: UnsafeRawBufferPointer, finish: Bool, output: (UnsafeRawBufferPointer) throws -> Void)
            throws
        {
            let word = Self.word
            stream.storeBytes(of: input.baseAddress, toByteOffset: 0, as: UnsafeRawPointer?.self)
            stream.storeBytes(of: UInt32(input.count), toByteOffset: word, as: UInt32.self)
            while true {
                stream.storeBytes(of: buffer.baseAddress, toByteOffset: 3 * word, as: UnsafeMutableRawPointer?.self)
                stream.storeBytes(of: UInt32(buffer.count), toByteOffset: 4 * word, as: UInt32.self)
                // Z_FINISH is 4 and Z_NO_FLUSH 0; Z_OK 0, Z_STREAM_END 1, Z_BUF_ERROR -5 (no progress possible).
                let status = zlib.deflateCall(stream, finish ? 4 : 0)
                guard status == 0 || status == 1 || status == -5 else { throw ZlibFailure(status: status) }
                let left = Int(stream.load(fromByteOffset: 4 * word, as: UInt32.self))
                let produced = buffer.count - left
                if produced > 0 { try output(UnsafeRawBufferPointer(rebasing: buffer[..<produced])) }
                if finish {
                    if status == 1 { break }  // Z_STREAM_END
                } else if left > 0 {
                    break  // all input taken, and the output buffer was not filled: nothing more to say yet
                }
            }
            if finish {
                _ = zlib.deflateEnd(stream)
                ended = true
            }
        }
    }

    /// A status zlib returned for a call that should not fail.
    struct ZlibFailure: Error, CustomStringConvertible {
        let status: Int32
        var description: String { "zlib's deflate failed with status \(status)" }
    }
}
