// zlib for NIOWebSocketTransport's permessage-deflate (RFC 7692). The init macros take the library's version and the
// stream's size, which Swift cannot pass through a macro: these wrappers do.
#ifndef KONEX_ZLIB_SHIM_H
#define KONEX_ZLIB_SHIM_H
#include <zlib.h>

static inline int konex_deflate_init(z_streamp stream, int windowBits) {
    return deflateInit2(stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}

static inline int konex_inflate_init(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}
#endif
