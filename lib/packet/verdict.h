/* Internal to the packet layer: one checksum of a parsed frame judged and written, the same way for
 * verify, fill and offload (verify.c, offload.c): where its field is, what it covers, its verdict
 * by its protocol's rule (lib/proto/l4.h), its line in the report.  Inline: applied per checksum. */
#ifndef ICS_PACKET_VERDICT_H
#define ICS_PACKET_VERDICT_H

#include <string.h>

#include "../proto/fcs.h"
#include "../proto/l4.h"
#include "parse.h"

#define ICS_UNSURE (INETCSUM_CHECK_FRAGMENT | INETCSUM_CHECK_TRUNCATED | INETCSUM_CHECK_MALFORMED)

/* The checksum field of an item: where it is and how wide. */
static inline size_t ics_item_field_at(const struct ics_item *it)
{
    return ics_field_at(it->layer, it->off, it->len);
}

/* Whether the field is a 32-bit CRC stored little-endian (SCTP's CRC32c, an FCS's CRC-32). */
static inline int ics_item_is_crc(const struct ics_item *it)
{
    return ics_layers[it->layer].crc;
}

static inline size_t ics_item_field_width(const struct ics_item *it)
{
    return ics_field_width(it->layer);
}

/* The CRC-32 of the bytes an FCS covers. */
static inline uint32_t ics_item_fcs_crc(const struct ics_view *v, const struct ics_item *it)
{
    if (v->base)
        return ics_fcs_crc32(0, v->base + it->off, it->len);
    uint32_t crc = 0;
    uint8_t chunk[ICS_VIEW_MAX_GET];
    for (size_t at = 0; at < it->len;) { /* segments: a chunk at a time (the caller checked the length) */
        const size_t n = it->len - at < sizeof chunk ? it->len - at : sizeof chunk;
        crc = ics_fcs_crc32(crc, ics_view_get(v, it->off + at, n, chunk), n);
        at += n;
    }
    return crc;
}

/* The CRC32c of an SCTP message with its checksum field taken as zero. */
static inline uint32_t ics_item_sctp_crc(const struct ics_view *v, const struct ics_item *it)
{
    static const uint8_t zero[4];
    uint32_t crc = ics_view_crc(v, it->off, ICS_SCTP_CHECK, 0);
    crc = inetcsum_crc32c(zero, 4, crc);
    return ics_view_crc(v, it->off + ICS_SCTP_HLEN, it->len - ICS_SCTP_HLEN, crc);
}

/* The bytes an Internet checksum covers from it->off (UDP-Lite: its coverage), 0 if illegal. */
static inline size_t ics_item_coverage(const struct ics_view *v, const struct ics_item *it)
{
    if (it->layer != INETCSUM_LAYER_UDPLITE)
        return it->len;
    uint8_t sc[ICS_UDP_HLEN];
    const uint8_t *h = ics_view_get(v, it->off, ICS_UDP_HLEN, sc);
    return h ? ics_udplite_coverage(h, it->len) : 0;
}

static inline unsigned ics_item_verdict_flags(const struct ics_item *it, unsigned flags)
{
    return flags | (it->over_ipv6 ? INETCSUM_OVER_IPV6 : 0);
}

/* The verdict on one item of a frame, with the frame as it is now, its Internet sum plus `undo`
 * (fill: what takes the inner fields it wrote back to what they were). */
static inline struct inetcsum_verdict ics_item_judge(const struct ics_view *v, const struct ics_item *it, unsigned flags,
                                     uint32_t undo)
{
    struct inetcsum_verdict vd = {INETCSUM_UNVERIFIABLE, 0, 0};
    uint8_t sc[4];
    const uint8_t *f = ics_view_get(v, ics_item_field_at(it), ics_item_field_width(it), sc);
    if (!f)
        return vd;
    uint16_t mem;
    memcpy(&mem, f, 2);
    uint32_t stored_crc = ics_item_is_crc(it) ? ics_get_le32(f) : 0;
    vd.stored = ics_item_is_crc(it) ? __builtin_bswap32(stored_crc) : ics_net16(mem);
    if (it->len < ics_layers[it->layer].min_len)
        return vd; /* the field lies outside the message */
    if (it->flags & (INETCSUM_CHECK_FRAGMENT | INETCSUM_CHECK_TRUNCATED)) {
        /* A UDP zero needs no data to be judged absent or illegal, even in a truncated quote. */
        if (mem == 0 && (it->layer == INETCSUM_LAYER_UDP || it->layer == INETCSUM_LAYER_UDPLITE)) {
            vd = ics_inet_verdict((enum inetcsum_layer)it->layer, 0, 0, 0, ics_item_verdict_flags(it, flags));
            vd.expected = 0;
        }
        return vd;
    }
    /* A malformed one (longer than its frame) is checked on what is there, never written. */
    if (it->layer == INETCSUM_LAYER_SCTP)
        return ics_sctp_verdict(stored_crc, ics_item_sctp_crc(v, it));
    if (it->layer == INETCSUM_LAYER_FCS) {
        const uint32_t crc = ics_item_fcs_crc(v, it);
        return (struct inetcsum_verdict){stored_crc == crc ? INETCSUM_GOOD : INETCSUM_BAD, vd.stored,
                                         __builtin_bswap32(crc)};
    }
    size_t cov = ics_item_coverage(v, it);
    if (cov == 0) {
        vd.status = INETCSUM_ILLEGAL;
        return vd;
    }
    return ics_inet_verdict((enum inetcsum_layer)it->layer, mem, ics_view_sum(v, it->off, cov, undo), it->pseudo,
                            ics_item_verdict_flags(it, flags));
}

/* Stores a verdict's expected value in the item's field. */
static inline void ics_item_store_expected(const struct ics_view *v, const struct ics_item *it, const struct inetcsum_verdict *vd)
{
    uint8_t b[4];
    ics_put_expected(b, vd->expected, ics_item_field_width(it));
    ics_view_put(v, ics_item_field_at(it), b, ics_item_field_width(it));
}

static inline void ics_report_check(const struct ics_view *v, struct inetcsum_report *r, unsigned i, const struct ics_item *it,
                         const struct inetcsum_verdict *vd, unsigned extra)
{
    struct inetcsum_check *c = &r->checks[i];
    c->layer = it->layer;
    c->depth = it->depth;
    c->status = (uint8_t)vd->status;
    c->flags = (uint8_t)(it->flags | extra);
    c->offset = it->off;
    c->length = (it->layer == INETCSUM_LAYER_UDPLITE && !(it->flags & ICS_UNSURE)) ? (uint32_t)ics_item_coverage(v, it)
                                                                                 : it->len;
    c->stored = vd->stored;
    c->expected = vd->expected;
}

static inline int ics_status_problem(enum inetcsum_status s)
{
    return s == INETCSUM_BAD || s == INETCSUM_PARTIAL || s == INETCSUM_ILLEGAL;
}

/* A frame as one buffer, or as segments. */
static inline struct ics_view ics_view_contiguous(const void *frame, size_t caplen)
{
    struct ics_view v = {(uint8_t *)(uintptr_t)frame, NULL, 0, caplen};
    return v;
}

static inline struct ics_view ics_view_segments(const struct iovec *seg, size_t nseg)
{
    struct ics_view v = {NULL, seg, nseg, 0};
    for (size_t i = 0; i < nseg; i++)
        v.len += seg[i].iov_len;
    return v;
}

#endif
