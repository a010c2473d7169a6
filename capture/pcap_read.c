/* pcap and pcapng reading, one record at a time, raw bytes kept for byte-exact rewriting (capture.h). */
#include "capture.h"

#include "format.h"
#include "inetcsum_packet.h" /* INETCSUM_LINK_TYPE, _FCS_BYTES */

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Longest record accepted: pcapng blocks and pcap frames beyond this are treated as corrupt
 * (Wireshark's own limit is 256 KiB per packet; 16 MiB leaves room for odd blocks). */
#define CAP_MAX_RECORD (16u << 20)
#define CAP_WINDOW (1u << 20) /* the read window; it slides rather than read under 1/16 of it */

static int fail(struct cap_reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(r->err, sizeof r->err, "%s: ", r->name);
    vsnprintf(r->err + n, sizeof r->err - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static uint32_t u32(const struct cap_reader *r, const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return r->swapped ? __builtin_bswap32(v) : v;
}

static uint16_t u16(const struct cap_reader *r, const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return r->swapped ? __builtin_bswap16(v) : v;
}

/* Makes n bytes available at buf[pos]: 1; 0 at a clean end (nothing left and end_ok); -2 when
 * the file ends inside them (the caller decides whether that is a cut record); -1 on a read
 * error. */
static int need(struct cap_reader *r, size_t n, int end_ok)
{
    while (r->end - r->pos < n) {
        if (r->eof) {
            if (r->end == r->pos && end_ok)
                return 0;
            return -2;
        }
        if (r->buf_cap - r->pos < n || r->buf_cap - r->end < r->buf_cap / 16) {
            if (r->before_move)
                r->before_move(r->ctx);
            if (r->spare) { /* the rest goes to the other window; this one may still be written */
                size_t cap = r->buf_cap;
                while (cap < n)
                    cap *= 2;
                if (r->spare_cap < cap) {
                    uint8_t *b = realloc(r->spare, cap);
                    if (!b)
                        return fail(r, "out of memory");
                    r->spare = b;
                    r->spare_cap = cap;
                }
                memcpy(r->spare, r->buf + r->pos, r->end - r->pos);
                uint8_t *old = r->buf;
                const size_t old_cap = r->buf_cap;
                r->buf = r->spare;
                r->buf_cap = r->spare_cap;
                r->spare = old;
                r->spare_cap = old_cap;
                r->end -= r->pos;
                r->pos = 0;
                continue;
            }
            memmove(r->buf, r->buf + r->pos, r->end - r->pos);
            r->end -= r->pos;
            r->pos = 0;
            if (r->buf_cap < n) {
                size_t cap = r->buf_cap;
                while (cap < n)
                    cap *= 2;
                uint8_t *b = realloc(r->buf, cap);
                if (!b)
                    return fail(r, "out of memory");
                r->buf = b;
                r->buf_cap = cap;
            }
        }
        ssize_t got = r->dec ? decoder_read(r->dec, r->buf + r->end, r->buf_cap - r->end)
                             : read(r->fd, r->buf + r->end, r->buf_cap - r->end);
        if (got < 0 && !r->dec && errno == EINTR)
            continue;
        if (got < 0 && r->dec)
            return fail(r, "after frame %llu: %s", (unsigned long long)r->frames, decoder_error(r->dec));
        if (got < 0) {
            r->err_errno = errno;
            return fail(r, "read error after frame %llu: %s", (unsigned long long)r->frames, strerror(errno));
        }
        if (got == 0)
            r->eof = 1;
        r->end += (size_t)got;
    }
    return 1;
}

/* A record of at least n bytes that the file ends inside: noted, and the reading ends there. */
static int cut_here(struct cap_reader *r, size_t n)
{
    r->cut = 1;
    r->cut_offset = r->offset;
    r->cut_have = r->end - r->pos;
    r->cut_need = n;
    return 0;
}

/* The clean end of the records: a cut one when the compressed stream ended early. */
static int at_end(struct cap_reader *r)
{
    return r->dec && decoder_cut(r->dec) ? cut_here(r, 0) : 0;
}

int cap_magic_is_capture(const uint8_t first[4])
{
    uint32_t magic;
    memcpy(&magic, first, 4); /* as it lies: pcap's magic tells the byte order by which way it reads */
    return magic == PCAPNG_SHB || magic == PCAP_MAGIC_US || magic == PCAP_MAGIC_NS || magic == PCAP_MAGIC_US_SWAPPED ||
           magic == PCAP_MAGIC_NS_SWAPPED;
}

void cap_cut_message(const struct cap_reader *r, char *buf, size_t size)
{
    if (r->cut_need == 0) {
        snprintf(buf, size, "%s: the %s stream ends early, after frame %llu (byte %llu of the capture)", r->name,
                 codec_name(r->codec), (unsigned long long)r->frames, (unsigned long long)r->cut_offset);
        return;
    }
    if (r->frames == 0)
        snprintf(buf, size, "%s: cut short inside its first record, which holds %zu of at least %zu bytes, from byte %llu",
                 r->name, r->cut_have, r->cut_need, (unsigned long long)r->cut_offset);
    else
        snprintf(buf, size,
                 "%s: cut short after frame %llu: its last record holds %zu of at least %zu bytes, from byte %llu",
                 r->name, (unsigned long long)r->frames, r->cut_have, r->cut_need, (unsigned long long)r->cut_offset);
}

void cap_cut_written_message(const struct cap_reader *r, const char *out_path, char *buf, size_t size)
{
    char cut[512];
    cap_cut_message(r, cut, sizeof cut);
    if (r->frames == 0)
        snprintf(buf, size, "%s (tcpdump killed, or a copy interrupted?); %s holds no frame, only the capture's header",
                 cut, out_path);
    else
        snprintf(buf, size, "%s (tcpdump killed, or a copy interrupted?); %s holds the %llu frame%s before it", cut,
                 out_path, (unsigned long long)r->frames, r->frames == 1 ? "" : "s");
}

/* The n bytes at buf[pos] become a record: handed out, consumed. */
static uint8_t *take(struct cap_reader *r, size_t n)
{
    uint8_t *p = r->buf + r->pos;
    r->pos += n;
    r->offset += n;
    return p;
}

int cap_open(struct cap_reader *r, int fd, const char *name, size_t window)
{
    memset(r, 0, sizeof *r);
    r->fd = fd;
    r->name = name;
    r->buf_cap = window ? window : CAP_WINDOW;
    r->buf = malloc(r->buf_cap);
    if (!r->buf)
        return fail(r, "out of memory");
    int got = need(r, 6, 1); /* enough to tell a compressed file */
    if (got == 0)
        return fail(r, "empty file: no pcap or pcapng header");
    if (got == -1)
        return -1;
    r->codec = codec_detect(r->buf + r->pos, r->end - r->pos);
    if (r->codec != CODEC_NONE) { /* what was read is the decoder's first input */
        if (!codec_available(r->codec))
            return fail(r, "%s-compressed, and this inetcsum was built without %s support", codec_name(r->codec),
                        codec_name(r->codec));
        if (!(r->dec = decoder_open(r->codec, fd, r->buf + r->pos, r->end - r->pos)))
            return fail(r, "out of memory");
        r->pos = r->end = 0;
        r->eof = 0;
        if ((got = need(r, 4, 1)) == 0)
            return fail(r, decoder_cut(r->dec) ? "the %s stream ends before its first bytes could be decompressed"
                                                : "the %s stream holds nothing", codec_name(r->codec));
        if (got == -1)
            return -1;
    }
    if (got == -2 && r->end - r->pos < 4)
        return fail(r, "%zu bytes: too short for a pcap or pcapng header", r->end - r->pos);
    uint32_t magic;
    memcpy(&magic, r->buf, 4);
    if (!cap_magic_is_capture(r->buf))
        return fail(r, "not a pcap or pcapng file%s", r->codec ? " (once decompressed)" : "");
    if (magic == PCAPNG_SHB) {
        r->format = CAP_PCAPNG;
        return 0;
    }
    r->nanosecond = magic == PCAP_MAGIC_NS || magic == PCAP_MAGIC_NS_SWAPPED;
    r->swapped = magic == PCAP_MAGIC_US_SWAPPED || magic == PCAP_MAGIC_NS_SWAPPED; /* (the other two read as they lie) */
    r->format = CAP_PCAP;
    if ((got = need(r, PCAP_FILE_HLEN, 0)) <= 0) {
        if (got == -2)
            fail(r, "cut short inside the pcap file header (%zu of %d bytes)", r->end - r->pos, PCAP_FILE_HLEN);
        return -1;
    }
    r->snaplen = u32(r, r->buf + PCAP_FILE_SNAPLEN);
    /* The link type is the low 16 bits; the FCS length rides above them when bit 26 says so
     * (bits that are set without it, as fuzzed and damaged files have, are ignored). */
    const uint32_t field = u32(r, r->buf + PCAP_FILE_LINKTYPE);
    r->link = (int)(INETCSUM_LINK_FCS_BYTES(field) ? (unsigned)INETCSUM_LINK_WITH_FCS(field, INETCSUM_LINK_FCS_BYTES(field))
                                                   : INETCSUM_LINK_TYPE(field));
    return 0;
}

static int next_pcap(struct cap_reader *r, struct cap_record *rec)
{
    if (!r->started) { /* the file header, in the window since cap_open */
        r->started = 1;
        *rec = (struct cap_record){.raw = take(r, PCAP_FILE_HLEN), .raw_len = PCAP_FILE_HLEN};
        return 1;
    }
    int got = need(r, PCAP_REC_HLEN, 1);
    if (got == -2)
        return cut_here(r, PCAP_REC_HLEN);
    if (got == 0)
        return at_end(r);
    if (got < 0)
        return got;
    const uint8_t *h = r->buf + r->pos; /* valid until the next need(), which may move the window */
    const uint32_t caplen = u32(r, h + PCAP_REC_CAPLEN), wirelen = u32(r, h + PCAP_REC_WIRELEN);
    const int64_t time_ns =
        (int64_t)u32(r, h) * 1000000000 + (int64_t)u32(r, h + PCAP_REC_USEC) * (r->nanosecond ? 1 : 1000);
    if (caplen > CAP_MAX_RECORD)
        return fail(r, "frame %llu: captured length %u is not plausible", (unsigned long long)r->frames + 1,
                    caplen);
    if ((got = need(r, PCAP_REC_HLEN + (size_t)caplen, 0)) == -2)
        return cut_here(r, PCAP_REC_HLEN + (size_t)caplen);
    if (got <= 0)
        return -1;
    r->frames++;
    uint8_t *raw = take(r, PCAP_REC_HLEN + (size_t)caplen);
    *rec = (struct cap_record){1, raw, PCAP_REC_HLEN + (size_t)caplen, raw + PCAP_REC_HLEN, caplen,
                               wirelen < caplen ? caplen : wirelen, r->link, r->frames, 1, time_ns};
    return 1;
}

/* Grows one per-interface array to cap entries of `size` bytes: 0, or -1 without memory. */
static int grow(void **array, size_t cap, size_t size)
{
    void *p = realloc(*array, cap * size);
    if (!p)
        return -1;
    *array = p;
    return 0;
}

/* An interface description's options (after its 8 fixed bytes): if_tsresol (9) and if_tsoffset
 * (14), the two a timestamp needs. */
static void interface_options(struct cap_reader *r, const uint8_t *o, size_t n, uint8_t *tsresol, int64_t *tsoffset)
{
    while (n >= 4) {
        const uint16_t code = u16(r, o), len = u16(r, o + 2);
        const size_t padded = 4 + (((size_t)len + 3) & ~(size_t)3);
        if (code == PCAPNG_OPT_END || padded > n)
            return;
        if (code == PCAPNG_OPT_IF_TSRESOL && len >= 1)
            *tsresol = o[4];
        if (code == PCAPNG_OPT_IF_TSOFFSET && len >= 8)
            *tsoffset = (int64_t)((uint64_t)u32(r, r->swapped ? o + 8 : o + 4) |
                                  (uint64_t)u32(r, r->swapped ? o + 4 : o + 8) << 32);
        o += padded;
        n -= padded;
    }
}

static int add_interface(struct cap_reader *r, int link, uint32_t snap, uint8_t tsresol, int64_t tsoffset)
{
    if (r->nif == r->if_cap) {
        size_t cap = r->if_cap ? r->if_cap * 2 : 8;
        if (grow((void **)&r->if_link, cap, sizeof *r->if_link) || grow((void **)&r->if_snap, cap, sizeof *r->if_snap) ||
            grow((void **)&r->if_tsresol, cap, sizeof *r->if_tsresol) ||
            grow((void **)&r->if_tsoffset, cap, sizeof *r->if_tsoffset))
            return fail(r, "out of memory");
        r->if_cap = cap;
    }
    r->if_link[r->nif] = link;
    r->if_snap[r->nif] = snap;
    r->if_tsresol[r->nif] = tsresol;
    r->if_tsoffset[r->nif++] = tsoffset;
    return 0;
}

/* A pcapng timestamp (units of the interface's resolution) in nanoseconds. */
static int64_t pcapng_time(const struct cap_reader *r, uint32_t ifid, uint64_t ts)
{
    const uint8_t res = r->if_tsresol[ifid];
    const unsigned n = res & 0x7F;
    int64_t ns;
    if (res & 0x80) { /* 2^-n seconds */
        const unsigned shift = n < 63 ? n : 63;
        ns = (int64_t)(ts >> shift) * 1000000000 + (int64_t)(((__uint128_t)(ts & ((1ull << shift) - 1)) * 1000000000u) >> shift);
    } else { /* 10^-n seconds */
        uint64_t scale = 1;
        for (unsigned i = n; i < 9; i++)
            scale *= 10;
        uint64_t div = 1;
        for (unsigned i = 9; i < n && i < 28; i++)
            div *= 10;
        ns = (int64_t)(ts / div * scale);
    }
    return ns + r->if_tsoffset[ifid] * 1000000000;
}

static int next_pcapng(struct cap_reader *r, struct cap_record *rec)
{
    int got = need(r, PCAPNG_BLOCK_HLEN, 1);
    if (got == -2)
        return cut_here(r, PCAPNG_BLOCK_HLEN);
    if (got == 0)
        return at_end(r);
    if (got < 0)
        return got;
    uint32_t type;
    memcpy(&type, r->buf + r->pos, 4);
    if (type == PCAPNG_SHB) { /* a section header sets the byte order of its section */
        if ((got = need(r, PCAPNG_SHB_BOM + 4, 0)) == -2)
            return cut_here(r, PCAPNG_SHB_BOM + 4);
        if (got <= 0)
            return -1;
        uint32_t bom;
        memcpy(&bom, r->buf + r->pos + PCAPNG_SHB_BOM, 4);
        if (bom != PCAPNG_BYTE_ORDER && bom != PCAPNG_BYTE_ORDER_SWAPPED)
            return fail(r, "pcapng section header with a bad byte-order magic");
        r->swapped = bom == PCAPNG_BYTE_ORDER_SWAPPED;
        r->nif = 0;
    } else {
        type = u32(r, r->buf + r->pos);
    }
    uint32_t len = u32(r, r->buf + r->pos + 4);
    if (len < PCAPNG_BLOCK_MIN || len % 4 || len > CAP_MAX_RECORD || (type == PCAPNG_SHB && len < PCAPNG_SHB_MIN))
        return fail(r, "after frame %llu: the pcapng block at byte %llu claims %u bytes, %s (corrupt file)",
                    (unsigned long long)r->frames, (unsigned long long)r->offset, len,
                    len % 4 ? "not a multiple of 4" : len > CAP_MAX_RECORD ? "more than 16 MiB" : "too few for its kind");
    if ((got = need(r, len, 0)) == -2)
        return cut_here(r, len);
    if (got <= 0)
        return -1;
    uint8_t *raw = take(r, len);
    if (u32(r, raw + len - 4) != len)
        return fail(r, "after frame %llu: the pcapng block at byte %llu says %u bytes at its start and %u at its end "
                    "(corrupt file)", (unsigned long long)r->frames, (unsigned long long)(r->offset - len), len,
                    u32(r, raw + len - 4));
    const uint8_t *b = raw + PCAPNG_BLOCK_HLEN;
    size_t body = len - PCAPNG_BLOCK_MIN;
    *rec = (struct cap_record){.raw = raw, .raw_len = len};
    switch (type) {
    case PCAPNG_IDB:
        if (body < PCAPNG_IDB_OPTIONS)
            return fail(r, "short pcapng interface block");
        {
            uint8_t tsresol = 6;
            int64_t tsoffset = 0;
            interface_options(r, b + PCAPNG_IDB_OPTIONS, body - PCAPNG_IDB_OPTIONS, &tsresol, &tsoffset);
            return add_interface(r, u16(r, b), u32(r, b + PCAPNG_IDB_SNAPLEN), tsresol, tsoffset) ? -1 : 1;
        }
    case PCAPNG_EPB:
    case PCAPNG_OPB: { /* (16-bit interface id and drop count, then as an enhanced packet) */
        if (body < PCAPNG_EPB_BODY_MIN)
            return fail(r, "frame %llu: short pcapng packet block", (unsigned long long)r->frames + 1);
        uint32_t ifid = type == PCAPNG_EPB ? u32(r, b) : u16(r, b), caplen = u32(r, b + PCAPNG_EPB_CAPLEN),
                 wirelen = u32(r, b + PCAPNG_EPB_WIRELEN);
        if (ifid >= r->nif)
            return fail(r, "frame %llu: interface %u was not described", (unsigned long long)r->frames + 1, ifid);
        if (caplen > body - PCAPNG_EPB_BODY_MIN)
            return fail(r, "frame %llu: captured length %u exceeds its block", (unsigned long long)r->frames + 1,
                        caplen);
        r->frames++;
        *rec = (struct cap_record){
            1, raw, len, raw + PCAPNG_EPB_DATA, caplen, wirelen < caplen ? caplen : wirelen, r->if_link[ifid], r->frames,
            1, pcapng_time(r, ifid, (uint64_t)u32(r, b + PCAPNG_EPB_TS_HIGH) << 32 | u32(r, b + PCAPNG_EPB_TS_LOW))};
        return 1;
    }
    case PCAPNG_SPB: { /* the original length; the data is what fits the snap length */
        if (body < 4 || r->nif == 0)
            return fail(r, "frame %llu: bad pcapng simple packet block", (unsigned long long)r->frames + 1);
        uint32_t wirelen = u32(r, b), caplen = wirelen;
        if (r->if_snap[0] && caplen > r->if_snap[0])
            caplen = r->if_snap[0];
        if (caplen > body - 4)
            caplen = (uint32_t)(body - 4);
        r->frames++;
        *rec = (struct cap_record){1, raw, len, raw + PCAPNG_SPB_DATA, caplen, wirelen < caplen ? caplen : wirelen,
                                   r->if_link[0], r->frames, 0, 0};
        return 1;
    }
    default:
        return 1;
    }
}

int cap_next(struct cap_reader *r, struct cap_record *rec)
{
    return r->format == CAP_PCAP ? next_pcap(r, rec) : next_pcapng(r, rec);
}

void cap_close(struct cap_reader *r)
{
    decoder_close(r->dec);
    r->dec = NULL;
    free(r->buf);
    free(r->spare);
    r->spare = NULL;
    free(r->if_link);
    free(r->if_snap);
    free(r->if_tsresol);
    free(r->if_tsoffset);
    r->buf = NULL;
    r->if_link = NULL;
    r->if_snap = NULL;
    r->if_tsresol = NULL;
    r->if_tsoffset = NULL;
}
