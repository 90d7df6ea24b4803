#ifndef STOWAGE_CZLIB_SHIM_H
#define STOWAGE_CZLIB_SHIM_H

#include <zlib.h>

/// `inflateInit2` is a macro Swift cannot import: starts a raw-deflate (`windowBits` -15) or
/// zlib/gzip stream on `stream`.
static inline int stowage_inflate_init2(z_streamp stream, int windowBits) {
    return inflateInit2(stream, windowBits);
}

/// `deflateInit2` is a macro too: starts a raw-deflate (`windowBits` -15) stream at `level`,
/// with zlib's default memory level and strategy.
static inline int stowage_deflate_init2(z_streamp stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
}

#endif
