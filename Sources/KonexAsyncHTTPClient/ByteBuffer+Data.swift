#if AsyncHTTPClient
    import Foundation
    import NIOCore

    extension ByteBuffer {
        // `Data(readableBytesView)` and `append(contentsOf: readableBytesView)` first ask at run time whether the view
        // is `ContiguousBytes` (a dynamic cast and a conformance lookup: about 1,100 instructions a call, paid on
        // every body). These copy the same bytes with one `memcpy` and no cast.

        /// The readable bytes, copied into a new `Data`.
        var readableData: Data {
            withUnsafeReadableBytes { raw in raw.baseAddress.map { Data(bytes: $0, count: raw.count) } ?? Data() }
        }

        /// Appends the readable bytes to `data`.
        func appendReadableBytes(to data: inout Data) {
            withUnsafeReadableBytes { raw in
                guard let base = raw.baseAddress else { return }
                data.append(base.assumingMemoryBound(to: UInt8.self), count: raw.count)
            }
        }
    }
#endif
