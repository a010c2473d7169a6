/* The common case, recognised in a dozen loads: a contiguous frame, captured whole, that is
 * Ethernet with at most two VLAN tags (or raw IP, as TUN devices and raw captures give it), then
 * IPv4 without options or fragmentation or IPv6 without extension headers, then TCP, or UDP on a
 * port no tunnel uses.  Most packets a userspace stack or a capture holds look like this, and for
 * them the general walk (parse.c) and its per-item bookkeeping cost several times the checksums
 * themselves at small sizes.
 *
 * The recogniser only says yes when every header is complete, consistent and inside the frame, so
 * its two items are exactly the ones the general walk would produce; anything else, or anything in
 * doubt, returns 0 and goes the general way.  tests/test_fastpath.c holds the two paths to the same
 * reports and the same written bytes on every capture frame and on mutated ones. */
#ifndef ICS_PACKET_FAST_H
#define ICS_PACKET_FAST_H

#include "../proto/l4.h"
#include "../proto/pseudo.h"
#include "parse.h"

struct ics_fast {
    uint32_t ip;     /* offset of the IP header */
    uint32_t l4;     /* offset of the TCP/UDP header */
    uint32_t l4len;  /* TCP: the IP payload; UDP: its length field */
    uint8_t v6;
    uint8_t layer;   /* INETCSUM_LAYER_TCP or _UDP */
};

/* Whether f[0..caplen) is the common case; *fr describes it when it is. */
static inline __attribute__((always_inline)) int ics_fast_recognise(const uint8_t *f, size_t caplen,
                                                                    size_t wirelen, enum inetcsum_link link,
                                                                    struct ics_fast *fr)
{
    if ((wirelen != 0 && wirelen != caplen) || caplen < 28 || caplen > UINT32_MAX)
        return 0; /* truncated captures are the general walk's */
    size_t off = 0;
    unsigned version;
    if (link == INETCSUM_LINK_ETHERNET) {
        if (caplen < 14 + 28)
            return 0;
        uint32_t type = ics_be16(f + 12);
        off = 14;
        for (int tags = 0; tags < 2 && (type == 0x8100 || type == 0x88A8); tags++) {
            type = ics_be16(f + off + 2);
            off += 4;
        }
        if (type == 0x0800)
            version = 4;
        else if (type == 0x86DD)
            version = 6;
        else
            return 0;
        if (caplen - off < 28)
            return 0;
    } else if (link == INETCSUM_LINK_RAW || link == INETCSUM_LINK_IPV4 || link == INETCSUM_LINK_IPV6) {
        version = f[0] >> 4;
        if ((link == INETCSUM_LINK_IPV4 && version != 4) || (link == INETCSUM_LINK_IPV6 && version != 6))
            return 0;
    } else {
        return 0;
    }

    /* Here caplen - off >= 28: an IPv4 header and a UDP header's worth. */
    const uint8_t *ip = f + off;
    size_t room = caplen - off, payload;
    unsigned proto, hl;
    if (version == 4) {
        size_t tot = ics_be16(ip + 2);
        if (ip[0] != 0x45 || (ics_be16(ip + 6) & 0x3FFF) || tot > room || tot < 28)
            return 0; /* options, a fragment, or a length the general walk must judge */
        hl = 20;
        payload = tot - 20;
        proto = ip[9];
    } else {
        if (room < 48 || (ip[0] >> 4) != 6)
            return 0;
        payload = ics_be16(ip + 4);
        if (payload < 8 || payload > room - 40)
            return 0; /* a jumbogram, nothing, or longer than the frame */
        hl = 40;
        proto = ip[6];
    }
    const uint8_t *l4 = ip + hl;
    if (proto == 6) {
        if (payload < 20)
            return 0;
        fr->layer = INETCSUM_LAYER_TCP;
        fr->l4len = (uint32_t)payload;
    } else if (proto == 17) {
        size_t ulen = ics_be16(l4 + 4);
        if (ulen < 8 || ulen > payload || ics_udp_may_tunnel(ics_be16(l4), ics_be16(l4 + 2)))
            return 0;
        fr->layer = INETCSUM_LAYER_UDP;
        fr->l4len = (uint32_t)ulen;
    } else {
        return 0;
    }
    fr->ip = (uint32_t)off;
    fr->l4 = (uint32_t)(off + hl);
    fr->v6 = version == 6;
    return 1;
}

/* The IPv4 header's verdict (20 bytes, no options). */
static inline __attribute__((always_inline)) struct inetcsum_verdict ics_fast_ipv4_verdict(const uint8_t *ip,
                                                                                          unsigned flags)
{
    uint64_t s = (uint64_t)ics_load32(ip) + ics_load32(ip + 4) + ics_load32(ip + 8) + ics_load32(ip + 12) +
                 ics_load32(ip + 16);
    return ics_inet_verdict(INETCSUM_LAYER_IPV4, ics_load16(ip + 10), ics_reduce64(s), 0, flags);
}

/* The pseudo-header sum of the TCP/UDP message. */
static inline __attribute__((always_inline)) uint32_t ics_fast_pseudo(const uint8_t *f, const struct ics_fast *fr)
{
    const uint8_t *ip = f + fr->ip;
    uint8_t proto = fr->layer == INETCSUM_LAYER_TCP ? 6 : 17;
    return fr->v6 ? ics_pseudo_ipv6(ip + 8, ip + 24, proto, fr->l4len, 0)
                  : ics_pseudo_ipv4(ip + 12, ip + 16, proto, fr->l4len, 0);
}

/* The TCP/UDP verdict; layer is a constant where it is inlined, which folds its rules away. */
static inline __attribute__((always_inline)) struct inetcsum_verdict
ics_fast_l4_verdict_of(enum inetcsum_layer layer, const uint8_t *f, const struct ics_fast *fr, uint32_t pseudo,
                       unsigned flags)
{
    const uint8_t *l4 = f + fr->l4;
    return ics_inet_verdict(layer, ics_load16(l4 + ics_l4_rules[layer].field), inetcsum_partial(l4, fr->l4len, 0),
                            pseudo, flags | (fr->v6 ? INETCSUM_OVER_IPV6 : 0));
}

static inline __attribute__((always_inline)) struct inetcsum_verdict
ics_fast_l4_verdict(const uint8_t *f, const struct ics_fast *fr, uint32_t pseudo, unsigned flags)
{
    if (fr->layer == INETCSUM_LAYER_TCP)
        return ics_fast_l4_verdict_of(INETCSUM_LAYER_TCP, f, fr, pseudo, flags);
    return ics_fast_l4_verdict_of(INETCSUM_LAYER_UDP, f, fr, pseudo, flags);
}

static inline void ics_fast_report(struct inetcsum_check *c, unsigned layer, uint32_t off, uint32_t len,
                                   const struct inetcsum_verdict *vd, unsigned flags)
{
    c->layer = (uint8_t)layer;
    c->depth = 0;
    c->status = (uint8_t)vd->status;
    c->flags = (uint8_t)flags;
    c->offset = off;
    c->length = len;
    c->stored = vd->stored;
    c->expected = vd->expected;
}

#endif
