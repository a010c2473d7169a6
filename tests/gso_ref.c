/* The segmentation rules written out plainly, apart from lib/gso: every byte of every segment
 * checked against the super-packet; IPv4 header and GRE checksums with testutil's reference sum,
 * TCP and UDP ones by the packet layer's verify (tested against tshark on real captures), which
 * also knows which destination their pseudo-header takes. */
#include "gso_ref.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static unsigned be16(const uint8_t *p)
{
    return ((unsigned)p[0] << 8) | p[1];
}

static uint32_t be32(const uint8_t *p)
{
    return ((uint32_t)be16(p) << 16) | be16(p + 2);
}

/* The checksum of msg[0..len) with its field at field_at zeroed, as stored in memory order. */
static uint16_t ref_csum(const uint8_t *msg, size_t len, size_t field_at)
{
    uint8_t *copy = malloc(len ? len : 1);
    memcpy(copy, msg, len);
    copy[field_at] = copy[field_at + 1] = 0;
    uint16_t c = (uint16_t)~ref_sum(copy, len, 0);
    free(copy);
    return c;
}

/* The status verify gives the TCP or UDP checksum at off, or -1 when it found none there. */
static int status_at(const struct inetcsum_report *r, size_t off, unsigned layer)
{
    for (unsigned k = 0; k < r->count; k++)
        if (r->checks[k].offset == off && r->checks[k].layer == layer)
            return r->checks[k].status;
    return -1;
}

/* The status of level lv's TCP or UDP checksum in segment s: from r, verify's report on the whole
 * segment, or where verify did not follow the tunnel to it (one on a port it does not know, named by
 * a virtio-net header's offsets), from a report on the segment from that level's IP header on. */
static int level_status(const uint8_t *s, size_t slen, const struct inetcsum_report *r,
                        const struct inetcsum_gso_level *lv, unsigned layer)
{
    int st = status_at(r, lv->l4_off, layer);
    if (st < 0 && lv->ip_off > 0) {
        struct inetcsum_report inner;
        inetcsum_verify(s + lv->ip_off, slen - lv->ip_off, 0, INETCSUM_LINK_RAW, INETCSUM_UDP6_ZERO_OK, &inner);
        st = status_at(&inner, lv->l4_off - lv->ip_off, layer);
    }
    return st;
}

static uint16_t stored(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

#define FAIL(...)                                      \
    do {                                               \
        snprintf(why, sizeof why, __VA_ARGS__);        \
        return why;                                    \
    } while (0)

const char *gso_ref_check(const uint8_t *pkt, size_t len, enum inetcsum_link link, const struct inetcsum_gso *g,
                          const struct inetcsum_segment *seg, size_t nseg)
{
    static char why[200];
    const size_t hdr = g->hdr_len, pay = len - hdr;
    const size_t step = g->segments > 1 ? g->gso_size : pay;
    if (nseg != g->segments)
        FAIL("%zu segments, expected %u", nseg, g->segments);
    uint8_t *mask = calloc(hdr ? hdr : 1, 1); /* header bytes a rule rewrites */
    const struct inetcsum_gso_level *in = &g->level[g->nlevels - 1];
    for (unsigned j = 0; j < g->nlevels; j++) {
        const struct inetcsum_gso_level *lv = &g->level[j];
        if (lv->ip_version == 4)
            memset(mask + lv->ip_off + 2, 1, 4), memset(mask + lv->ip_off + 10, 1, 2);
        else
            memset(mask + lv->ip_off + 4, 1, 2);
        if (lv->l4 == INETCSUM_GSO_L4_UDP)
            memset(mask + lv->l4_off + 4, 1, 4);
        if (lv->l4 == INETCSUM_GSO_L4_GRE && lv->csum)
            memset(mask + lv->l4_off + 4, 1, 2);
    }
    if (g->proto == INETCSUM_GSO_L4_TCP) {
        memset(mask + in->l4_off + 4, 1, 4);
        mask[in->l4_off + 13] = 1;
        memset(mask + in->l4_off + 16, 1, 2);
    }
    const char *fail = NULL;
    for (size_t i = 0; i < nseg && !fail; i++) {
        const size_t n = i + 1 < nseg ? step : pay - step * i, slen = hdr + n;
        const uint8_t *s = seg[i].data;
        if (seg[i].len != slen) {
            snprintf(why, sizeof why, "segment %zu: %zu bytes, expected %zu", i, seg[i].len, slen);
            fail = why;
            break;
        }
        for (size_t k = 0; k < hdr && !fail; k++)
            if (!mask[k] && s[k] != pkt[k]) {
                snprintf(why, sizeof why, "segment %zu: header byte %zu changed", i, k);
                fail = why;
            }
        if (!fail && memcmp(s + hdr, pkt + hdr + step * i, n) != 0) {
            snprintf(why, sizeof why, "segment %zu: payload differs", i);
            fail = why;
        }
        struct inetcsum_report r;
        inetcsum_verify(s, slen, 0, link, INETCSUM_UDP6_ZERO_OK, &r);
        for (unsigned j = 0; j < g->nlevels && !fail; j++) {
            const struct inetcsum_gso_level *lv = &g->level[j];
            const uint8_t *ip = s + lv->ip_off, *l4 = s + lv->l4_off;
            if (lv->ip_version == 4) {
                const int fixed = (g->flags & INETCSUM_GSO_FIXEDID) || (lv->flags & INETCSUM_GSO_LEVEL_FIXEDID);
                unsigned id = fixed ? be16(pkt + lv->ip_off + 4) : (be16(pkt + lv->ip_off + 4) + i) & 0xFFFF;
                if (be16(ip + 2) != slen - lv->ip_off || be16(ip + 4) != id ||
                    stored(ip + 10) != ref_csum(ip, (size_t)(ip[0] & 15) * 4, 10)) {
                    snprintf(why, sizeof why, "segment %zu: level %u IPv4 length, ID or checksum", i, j);
                    fail = why;
                }
            } else if (be16(ip + 4) != slen - lv->ip_off - 40) {
                snprintf(why, sizeof why, "segment %zu: level %u IPv6 payload length", i, j);
                fail = why;
            }
            if (fail)
                break;
            const size_t l4_len = slen - lv->l4_off;
            if (lv->l4 == INETCSUM_GSO_L4_UDP) {
                const int target = j + 1 == g->nlevels;
                const int had = be16(pkt + lv->l4_off + 6) != 0 || lv->csum; /* or UDP_TUNNEL_CSUM */
                const int ok = target || had ? level_status(s, slen, &r, lv, INETCSUM_LAYER_UDP) == INETCSUM_GOOD
                                             : be16(l4 + 6) == 0; /* a tunnel's "no checksum" stays */
                if (be16(l4 + 4) != l4_len || !ok) {
                    snprintf(why, sizeof why, "segment %zu: level %u UDP length or checksum", i, j);
                    fail = why;
                }
            } else if (lv->l4 == INETCSUM_GSO_L4_GRE && lv->csum) {
                if (stored(l4 + 4) != ref_csum(l4, l4_len, 4)) {
                    snprintf(why, sizeof why, "segment %zu: level %u GRE checksum", i, j);
                    fail = why;
                }
            } else if (lv->l4 == INETCSUM_GSO_L4_TCP) {
                const uint8_t *t0 = pkt + lv->l4_off;
                uint8_t flags = t0[13];
                if (i + 1 < nseg)
                    flags &= (uint8_t)~0x09; /* FIN, PSH: the last segment's */
                if (i > 0)
                    flags &= (uint8_t)~0x80; /* CWR: the first's */
                if (be32(l4 + 4) != (uint32_t)(be32(t0 + 4) + i * step) || l4[13] != flags ||
                    level_status(s, slen, &r, lv, INETCSUM_LAYER_TCP) != INETCSUM_GOOD) {
                    snprintf(why, sizeof why, "segment %zu: TCP sequence, flags or checksum", i);
                    fail = why;
                }
            }
        }
    }
    free(mask);
    return fail;
}
