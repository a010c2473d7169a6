/* gzip, zstd and xz through zlib, libzstd and liblzma (compress.h). */
#include "compress.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef ICS_HAVE_ZLIB
#include <zlib.h>
#endif
#ifdef ICS_HAVE_ZSTD
#include <zstd.h>
#endif
#ifdef ICS_HAVE_LZMA
#include <lzma.h>
#endif

#define IN_CHUNK (256u << 10)

enum codec codec_detect(const uint8_t *p, size_t n)
{
    if (n >= 2 && p[0] == 0x1F && p[1] == 0x8B)
        return CODEC_GZIP;
    if (n >= 4 && p[0] == 0x28 && p[1] == 0xB5 && p[2] == 0x2F && p[3] == 0xFD)
        return CODEC_ZSTD;
    if (n >= 6 && memcmp(p, "\xFD" "7zXZ\0", 6) == 0)
        return CODEC_XZ;
    return CODEC_NONE;
}

static int ends_with(const char *s, const char *end)
{
    size_t n = strlen(s), m = strlen(end);
    return n > m && strcmp(s + n - m, end) == 0;
}

size_t codec_suffix_length(const char *name)
{
    static const char *const suffixes[] = {".gz", ".zst", ".xz"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
        if (ends_with(name, suffixes[i]))
            return strlen(suffixes[i]);
    return 0;
}

enum codec codec_for_name(const char *name)
{
    if (ends_with(name, ".gz"))
        return CODEC_GZIP;
    if (ends_with(name, ".zst"))
        return CODEC_ZSTD;
    if (ends_with(name, ".xz"))
        return CODEC_XZ;
    return CODEC_NONE;
}

int codec_available(enum codec c)
{
    switch (c) {
    case CODEC_NONE:
        return 1;
    case CODEC_GZIP:
#ifdef ICS_HAVE_ZLIB
        return 1;
#else
        return 0;
#endif
    case CODEC_ZSTD:
#ifdef ICS_HAVE_ZSTD
        return 1;
#else
        return 0;
#endif
    case CODEC_XZ:
#ifdef ICS_HAVE_LZMA
        return 1;
#else
        return 0;
#endif
    }
    return 0;
}

const char *codec_name(enum codec c)
{
    static const char *const names[] = {"plain", "gzip", "zstd", "xz"};
    return names[c];
}

struct decoder {
    enum codec codec;
    int fd, eof, done, cut;
    uint8_t *in;
    size_t in_pos, in_len;
#ifdef ICS_HAVE_ZLIB
    z_stream z;
#endif
#ifdef ICS_HAVE_ZSTD
    ZSTD_DStream *zstd;
#endif
    size_t zstd_hint; /* 0: a frame just ended */
#ifdef ICS_HAVE_LZMA
    lzma_stream x;
#endif
    char err[160];
};

/* Reads more compressed input when all of it was used: 1, 0 at the file's end, -1 on an error. */
__attribute__((unused)) static int refill(struct decoder *d)
{
    if (d->in_pos < d->in_len)
        return 1;
    if (d->eof)
        return 0;
    for (;;) {
        ssize_t got = read(d->fd, d->in, IN_CHUNK);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            snprintf(d->err, sizeof d->err, "read error: %s", strerror(errno));
            return -1;
        }
        d->in_pos = 0;
        d->in_len = (size_t)got;
        if (got == 0)
            d->eof = 1;
        return got > 0;
    }
}

struct decoder *decoder_open(enum codec c, int fd, const uint8_t *pre, size_t npre)
{
    struct decoder *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->codec = c;
    d->fd = fd;
    d->in = malloc(npre > IN_CHUNK ? npre : IN_CHUNK);
    if (!d->in) {
        free(d);
        return NULL;
    }
    memcpy(d->in, pre, npre);
    d->in_len = npre;
    int ok = 0;
    switch (c) {
#ifdef ICS_HAVE_ZLIB
    case CODEC_GZIP: /* 15 + 32: a gzip or zlib header, detected */
        ok = inflateInit2(&d->z, 15 + 32) == Z_OK;
        break;
#endif
#ifdef ICS_HAVE_ZSTD
    case CODEC_ZSTD:
        ok = (d->zstd = ZSTD_createDStream()) != NULL && !ZSTD_isError(ZSTD_initDStream(d->zstd));
        d->zstd_hint = 1;
        break;
#endif
#ifdef ICS_HAVE_LZMA
    case CODEC_XZ: {
        lzma_stream init = LZMA_STREAM_INIT;
        d->x = init;
        ok = lzma_stream_decoder(&d->x, UINT64_MAX, LZMA_CONCATENATED) == LZMA_OK;
        break;
    }
#endif
    default:
        break;
    }
    if (!ok) {
        decoder_close(d);
        return NULL;
    }
    return d;
}

#ifdef ICS_HAVE_ZLIB
/* gzip: members one after another (what `cat a.gz b.gz` makes) are one stream, as gzip -d reads them. */
static ssize_t read_gzip(struct decoder *d, uint8_t *out, size_t n)
{
    d->z.next_out = out;
    d->z.avail_out = (uInt)n;
    while (d->z.avail_out == n) {
        int more = refill(d);
        if (more < 0)
            return -1;
        if (!more) {
            d->cut = !d->done;
            return 0;
        }
        d->z.next_in = d->in + d->in_pos;
        d->z.avail_in = (uInt)(d->in_len - d->in_pos);
        d->done = 0;
        int rc = inflate(&d->z, Z_NO_FLUSH);
        d->in_pos = d->in_len - d->z.avail_in;
        if (rc == Z_STREAM_END) {
            d->done = 1;
            inflateReset(&d->z);
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            snprintf(d->err, sizeof d->err, "gzip data corrupt (%s)", d->z.msg ? d->z.msg : "zlib error");
            return -1;
        }
    }
    return (ssize_t)(n - d->z.avail_out);
}

#endif

#ifdef ICS_HAVE_ZSTD
static ssize_t read_zstd(struct decoder *d, uint8_t *out, size_t n)
{
    ZSTD_outBuffer o = {out, n, 0};
    while (o.pos == 0) {
        int more = refill(d);
        if (more < 0)
            return -1;
        if (!more) {
            d->cut = d->zstd_hint != 0;
            return 0;
        }
        ZSTD_inBuffer i = {d->in, d->in_len, d->in_pos};
        size_t rc = ZSTD_decompressStream(d->zstd, &o, &i);
        d->in_pos = i.pos;
        if (ZSTD_isError(rc)) {
            snprintf(d->err, sizeof d->err, "zstd data corrupt (%s)", ZSTD_getErrorName(rc));
            return -1;
        }
        d->zstd_hint = rc;
    }
    return (ssize_t)o.pos;
}

#endif

#ifdef ICS_HAVE_LZMA
static ssize_t read_xz(struct decoder *d, uint8_t *out, size_t n)
{
    d->x.next_out = out;
    d->x.avail_out = n;
    while (d->x.avail_out == n && !d->done) {
        int more = refill(d);
        if (more < 0)
            return -1;
        d->x.next_in = d->in + d->in_pos;
        d->x.avail_in = d->in_len - d->in_pos;
        lzma_ret rc = lzma_code(&d->x, more ? LZMA_RUN : LZMA_FINISH);
        d->in_pos = d->in_len - d->x.avail_in;
        if (rc == LZMA_STREAM_END) {
            d->done = 1;
        } else if (!more && rc == LZMA_BUF_ERROR) {
            d->cut = 1;
            break;
        } else if (rc != LZMA_OK) {
            snprintf(d->err, sizeof d->err, "xz data corrupt (liblzma error %d)", (int)rc);
            return -1;
        }
    }
    return (ssize_t)(n - d->x.avail_out);
}

#endif

ssize_t decoder_read(struct decoder *d, uint8_t *out, size_t n)
{
    (void)out; /* unused when no codec is built in */
    if (n == 0)
        return 0;
    switch (d->codec) {
#ifdef ICS_HAVE_ZLIB
    case CODEC_GZIP:
        return read_gzip(d, out, n);
#endif
#ifdef ICS_HAVE_ZSTD
    case CODEC_ZSTD:
        return read_zstd(d, out, n);
#endif
#ifdef ICS_HAVE_LZMA
    case CODEC_XZ:
        return read_xz(d, out, n);
#endif
    default:
        break;
    }
    return -1;
}

int decoder_cut(const struct decoder *d)
{
    return d->cut;
}

const char *decoder_error(const struct decoder *d)
{
    return d->err;
}

void decoder_close(struct decoder *d)
{
    if (!d)
        return;
#ifdef ICS_HAVE_ZLIB
    if (d->codec == CODEC_GZIP)
        inflateEnd(&d->z);
#endif
#ifdef ICS_HAVE_ZSTD
    if (d->zstd)
        ZSTD_freeDStream(d->zstd);
#endif
#ifdef ICS_HAVE_LZMA
    if (d->codec == CODEC_XZ)
        lzma_end(&d->x);
#endif
    free(d->in);
    free(d);
}

/* Writes all of buf: 0 or -1. */
__attribute__((unused)) static int write_all(int fd, const uint8_t *buf, size_t n)
{
    while (n) {
        ssize_t w = write(fd, buf, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The codecs' encoders, one step each: in[0..n) (last: the end of the data) into out. */
struct encoder {
    enum codec codec;
#ifdef ICS_HAVE_ZLIB
    z_stream z;
#endif
#ifdef ICS_HAVE_ZSTD
    ZSTD_CCtx *zc;
#endif
#ifdef ICS_HAVE_LZMA
    lzma_stream x;
#endif
};

static int encoder_init(struct encoder *e, enum codec c)
{
    memset(e, 0, sizeof *e);
    e->codec = c;
    switch (c) {
#ifdef ICS_HAVE_ZLIB
    case CODEC_GZIP: /* 15 + 16: a gzip header and trailer */
        return deflateInit2(&e->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK ? 0 : -1;
#endif
#ifdef ICS_HAVE_ZSTD
    case CODEC_ZSTD:
        return (e->zc = ZSTD_createCCtx()) ? 0 : -1;
#endif
#ifdef ICS_HAVE_LZMA
    case CODEC_XZ: {
        lzma_stream init = LZMA_STREAM_INIT;
        e->x = init;
        return lzma_easy_encoder(&e->x, 6, LZMA_CHECK_CRC64) == LZMA_OK ? 0 : -1;
    }
#endif
    default:
        return -1;
    }
}

static void encoder_end(struct encoder *e)
{
    (void)e;
#ifdef ICS_HAVE_ZLIB
    if (e->codec == CODEC_GZIP)
        deflateEnd(&e->z);
#endif
#ifdef ICS_HAVE_ZSTD
    if (e->codec == CODEC_ZSTD)
        ZSTD_freeCCtx(e->zc);
#endif
#ifdef ICS_HAVE_LZMA
    if (e->codec == CODEC_XZ)
        lzma_end(&e->x);
#endif
}

/* Compresses src[0..n) and writes what comes out: 0, -1 with errno set (EIO: the codec failed). */
static int encode(struct encoder *e, const uint8_t *src, size_t n, int last, uint8_t *dst, size_t cap, int out)
{
    (void)src, (void)n, (void)last, (void)dst, (void)cap, (void)out; /* unused when no codec is built in */
    switch (e->codec) {
#ifdef ICS_HAVE_ZLIB
    case CODEC_GZIP: {
        e->z.next_in = (Bytef *)(uintptr_t)src;
        e->z.avail_in = (uInt)n;
        int zr;
        do {
            e->z.next_out = dst;
            e->z.avail_out = (uInt)cap;
            zr = deflate(&e->z, last ? Z_FINISH : Z_NO_FLUSH);
            if (zr == Z_STREAM_ERROR)
                break;
            if (write_all(out, dst, cap - e->z.avail_out))
                return -1;
        } while (e->z.avail_out == 0 || (last && zr != Z_STREAM_END));
        if (zr != Z_STREAM_ERROR)
            return 0;
        break;
    }
#endif
#ifdef ICS_HAVE_ZSTD
    case CODEC_ZSTD: {
        ZSTD_inBuffer i = {src, n, 0};
        size_t left;
        do {
            ZSTD_outBuffer o = {dst, cap, 0};
            left = ZSTD_compressStream2(e->zc, &o, &i, last ? ZSTD_e_end : ZSTD_e_continue);
            if (ZSTD_isError(left))
                break;
            if (write_all(out, dst, o.pos))
                return -1;
        } while (last ? left != 0 : i.pos < i.size);
        if (!ZSTD_isError(left))
            return 0;
        break;
    }
#endif
#ifdef ICS_HAVE_LZMA
    case CODEC_XZ: {
        e->x.next_in = src;
        e->x.avail_in = n;
        lzma_ret xr;
        do {
            e->x.next_out = dst;
            e->x.avail_out = cap;
            xr = lzma_code(&e->x, last ? LZMA_FINISH : LZMA_RUN);
            if (xr != LZMA_OK && xr != LZMA_STREAM_END)
                break;
            if (write_all(out, dst, cap - e->x.avail_out))
                return -1;
        } while (e->x.avail_out == 0 || (last && xr != LZMA_STREAM_END));
        if (xr == LZMA_OK || xr == LZMA_STREAM_END)
            return 0;
        break;
    }
#endif
    default:
        break;
    }
    errno = EIO;
    return -1;
}

int compress_fd(enum codec c, int in, off_t len, int out)
{
    enum { CHUNK = 1 << 18 };
    struct encoder e;
    if (encoder_init(&e, c) != 0) {
        encoder_end(&e);
        errno = c == CODEC_NONE || codec_available(c) ? ENOMEM : ENOTSUP;
        return -1;
    }
    uint8_t *src = malloc(CHUNK), *dst = malloc(CHUNK);
    int rc = src && dst ? 0 : -1;
    for (off_t pos = 0; rc == 0;) {
        size_t n = len - pos < (off_t)CHUNK ? (size_t)(len - pos) : CHUNK;
        if (n && pread(in, src, n, pos) != (ssize_t)n) {
            if (errno == 0)
                errno = EIO;
            rc = -1;
            break;
        }
        pos += (off_t)n;
        rc = encode(&e, src, n, pos == len, dst, CHUNK, out);
        if (pos == len)
            break;
    }
    encoder_end(&e);
    free(src);
    free(dst);
    return rc;
}
