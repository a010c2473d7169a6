/* The common case, recognised in a dozen loads: a contiguous frame, captured whole, that is
 * Ethernet with at most two VLAN tags of any TPID the walker knows (or raw IP, as TUN devices and raw captures give it), then
 * IPv4 without options or fragmentation or IPv6 without extension headers, then TCP, or UDP on a
 * port no tunnel uses.  Most packets a userspace stack or a capture holds look like this, and for
 * them the general walk (parse.c) and its per-item bookkeeping cost several times the checksums
 * themselves at small sizes.
 *
 * It dispatches through the same description of what follows what as the general walk
 * (protocols.h), keeping to the kinds above.  The recogniser only says yes when every header is complete, consistent and inside the frame, so
 * its two items are exactly the ones the general walk would produce; anything else, or anything in
 * doubt, returns 0 and goes the general way (IP fragments: fast_fragment.h first).
 * tests/test_fastpath.c holds the two paths to the same reports and the same written bytes on every
 * capture frame and on mutated ones. */
#ifndef ICS_PACKET_FAST_H
#define ICS_PACKET_FAST_H

#include "../proto/l4.h"
#include "../proto/pseudo.h"
#include "parse.h"
#include "protocols.h"
#include "verdict.h"

/* The shortest IP packet taken: an IPv4 header and a UDP header. */
#define ICS_FAST_MIN_IP (ICS_IPV4_HLEN + ICS_UDP_HLEN)

struct ics_fast {
    uint32_t ip;     /* offset of the IP header */
    uint32_t l4;     /* offset of the TCP/UDP header */
    uint32_t l4len;  /* TCP: the IP payload; UDP: its length field */
    uint8_t v6;
    uint8_t layer;   /* INETCSUM_LAYER_TCP or _UDP */
};

/* Where the IP header of f[0..caplen) starts behind a link the shortcuts take (Ethernet with at most
 * two VLAN tags, or raw IP), with at least `need` (>= 1) bytes from there: its version nibble (4 or
 * 6 behind Ethernet, any behind a raw link: the caller checks), *off its place; 0 for anything
 * else. */
static inline __attribute__((always_inline)) unsigned ics_fast_ip_start(const uint8_t *f, size_t caplen,
                                                                        size_t wirelen, enum inetcsum_link link,
                                                                        size_t need, size_t *off)
{
    if ((wirelen != 0 && wirelen != caplen) || caplen < need || caplen > UINT32_MAX)
        return 0; /* truncated captures are the general walk's */
    unsigned version;
    *off = 0;
    if (link == INETCSUM_LINK_ETHERNET) {
        if (caplen < ICS_ETH_HLEN + need)
            return 0;
        enum ics_hdr h = ics_follow_ethertype(ics_get16(f + ICS_ETH_TYPE));
        size_t at = ICS_ETH_HLEN;
        for (int tags = 0; tags < 2 && h == ICS_H_VLAN; tags++) {
            h = ics_follow_ethertype(ics_get16(f + at + ICS_VLAN_TYPE));
            at += ICS_VLAN_HLEN;
        }
        if (h == ICS_H_IPV4)
            version = 4;
        else if (h == ICS_H_IPV6)
            version = 6;
        else
            return 0;
        if (caplen - at < need)
            return 0;
        *off = at;
    } else if (link == INETCSUM_LINK_RAW || link == INETCSUM_LINK_IPV4 || link == INETCSUM_LINK_IPV6) {
        version = ics_ip_version(f);
        if ((link == INETCSUM_LINK_IPV4 && version != 4) || (link == INETCSUM_LINK_IPV6 && version != 6))
            return 0;
    } else {
        return 0;
    }
    return version;
}

/* Whether f[0..caplen) is the common case; *fr describes it when it is. */
static inline __attribute__((always_inline)) int ics_fast_recognise(const uint8_t *f, size_t caplen,
                                                                    size_t wirelen, enum inetcsum_link link,
                                                                    struct ics_fast *fr)
{
    size_t off;
    const unsigned version = ics_fast_ip_start(f, caplen, wirelen, link, ICS_FAST_MIN_IP, &off);
    if (!version)
        return 0;
    /* Here caplen - off >= ICS_FAST_MIN_IP: an IPv4 header and a UDP header's worth. */
    const uint8_t *ip = f + off;
    size_t room = caplen - off, payload;
    unsigned proto, hl;
    if (version == 4) {
        size_t tot = ics_get16(ip + ICS_IPV4_TOT_LEN);
        if (ip[ICS_IPV4_VER_IHL] != ICS_IPV4_VER_IHL_PLAIN || (ics_get16(ip + ICS_IPV4_FRAG_OFF) & ICS_IP_FRAGMENTED) ||
            tot > room || tot < ICS_FAST_MIN_IP)
            return 0; /* options, a fragment, or a length the general walk must judge */
        hl = ICS_IPV4_HLEN;
        payload = tot - ICS_IPV4_HLEN;
        proto = ip[ICS_IPV4_PROTOCOL];
    } else {
        if (room < ICS_IPV6_HLEN + ICS_UDP_HLEN || ics_ip_version(ip) != 6)
            return 0;
        payload = ics_get16(ip + ICS_IPV6_PAYLOAD_LEN);
        if (payload < ICS_UDP_HLEN || payload > room - ICS_IPV6_HLEN)
            return 0; /* a jumbogram, nothing, or longer than the frame */
        hl = ICS_IPV6_HLEN;
        proto = ip[ICS_IPV6_NEXTHDR];
    }
    const uint8_t *l4 = ip + hl;
    const enum ics_hdr upper = ics_follow_ipproto(proto);
    if (upper == ICS_H_TCP) {
        if (payload < ICS_TCP_HLEN || ics_follow_tcp(ics_get16(l4 + ICS_TCP_SPORT), ics_get16(l4 + ICS_TCP_DPORT)) != ICS_H_STOP)
            return 0; /* (OpenFlow: the general walk's) */
        fr->layer = INETCSUM_LAYER_TCP;
        fr->l4len = (uint32_t)payload;
    } else if (upper == ICS_H_UDP) {
        size_t ulen = ics_get16(l4 + ICS_UDP_LEN);
        if (ulen < ICS_UDP_HLEN || ulen > payload ||
            ics_follow_udp(ics_get16(l4 + ICS_UDP_SPORT), ics_get16(l4 + ICS_UDP_DPORT)) != ICS_H_STOP)
            return 0; /* a tunnel: the general walk's */
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
                 ics_load32(ip + 16); /* the 20 bytes of ICS_IPV4_HLEN as five words */
    return ics_inet_verdict(INETCSUM_LAYER_IPV4, ics_load16(ip + ICS_IPV4_CHECK), ics_reduce64(s), 0, flags);
}

/* The pseudo-header sum of the TCP/UDP message. */
static inline __attribute__((always_inline)) uint32_t ics_fast_pseudo(const uint8_t *f, const struct ics_fast *fr)
{
    const uint8_t *ip = f + fr->ip;
    uint8_t proto = fr->layer == INETCSUM_LAYER_TCP ? ICS_IPPROTO_TCP : ICS_IPPROTO_UDP;
    return fr->v6 ? ics_pseudo_ipv6(ip + ICS_IPV6_SADDR, ip + ICS_IPV6_DADDR, proto, fr->l4len, 0)
                  : ics_pseudo_ipv4(ip + ICS_IPV4_SADDR, ip + ICS_IPV4_DADDR, proto, fr->l4len, 0);
}

/* The TCP/UDP verdict; layer is a constant where it is inlined, which folds its rules away. */
/* sg: NULL for a frame in one buffer (f), else the frame as segments whose first (f) holds every
 * header: the message is summed across them. */
static inline __attribute__((always_inline)) struct inetcsum_verdict
ics_fast_l4_verdict_of(enum inetcsum_layer layer, const uint8_t *f, const struct ics_fast *fr, uint32_t pseudo,
                       unsigned flags, const struct ics_view *sg)
{
    const uint8_t *l4 = f + fr->l4;
    const uint32_t sum = sg ? ics_view_sum_sg(sg, fr->l4, fr->l4len, 0) : inetcsum_partial(l4, fr->l4len, 0);
    return ics_inet_verdict(layer, ics_load16(l4 + ics_layers[layer].field), sum, pseudo,
                            flags | (fr->v6 ? INETCSUM_OVER_IPV6 : 0));
}

static inline __attribute__((always_inline)) struct inetcsum_verdict
ics_fast_l4_verdict(const uint8_t *f, const struct ics_fast *fr, uint32_t pseudo, unsigned flags,
                    const struct ics_view *sg)
{
    if (fr->layer == INETCSUM_LAYER_TCP)
        return ics_fast_l4_verdict_of(INETCSUM_LAYER_TCP, f, fr, pseudo, flags, sg);
    return ics_fast_l4_verdict_of(INETCSUM_LAYER_UDP, f, fr, pseudo, flags, sg);
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

/* The common case without the general walk (fast.h): the same report, the same problems.  sg: as
 * for ics_fast_l4_verdict_of (every header lies in the first segment, f). */
static inline __attribute__((always_inline)) unsigned ics_fast_verify_sg(const uint8_t *f, const struct ics_fast *fr,
                                                                         unsigned flags,
                                                                         struct inetcsum_report *report,
                                                                         const struct ics_view *sg)
{
    struct inetcsum_verdict l4 = ics_fast_l4_verdict(f, fr, ics_fast_pseudo(f, fr), flags, sg);
    unsigned problems = ics_status_problem(l4.status), n = 0;
    if (!fr->v6) {
        struct inetcsum_verdict ip = ics_fast_ipv4_verdict(f + fr->ip, flags);
        problems += ics_status_problem(ip.status);
        ics_fast_report(&report->checks[n++], INETCSUM_LAYER_IPV4, fr->ip, 20, &ip, 0);
    }
    ics_fast_report(&report->checks[n++], fr->layer, fr->l4, fr->l4len, &l4, 0);
    report->flags = 0;
    report->count = n;
    report->unfollowed = INETCSUM_FOLLOWED;
    report->malformed = INETCSUM_MALFORMED_UNSAID;
    return problems;
}

/* (always inlined, as the write's: a third caller, ics_verify_described, once made GCC call it out
 * of line from inetcsum_verify too, 23 instructions a frame) */
static inline __attribute__((always_inline)) unsigned ics_fast_verify(const uint8_t *f, const struct ics_fast *fr,
                                                                      unsigned flags, struct inetcsum_report *report)
{
    return ics_fast_verify_sg(f, fr, flags, report, NULL);
}

/* One common-case checksum for fill (o NULL: written as fill_view decides) or for offload (left
 * alone when not requested, seeded for the device, or computed, as inetcsum_offload treats an item
 * with nothing inside it).  Returns its report flags. */
static inline unsigned ics_fast_write_item(uint8_t *field, struct inetcsum_verdict *vd, unsigned flags, uint32_t kind,
                                       uint32_t pseudo, const struct inetcsum_offload *o, uint32_t *software)
{
    if (!o) {
        if (!ics_fill_wanted(vd, flags))
            return 0;
    } else if (!(o->request & kind)) {
        return 0;
    } else if (o->device & kind) {
        vd->expected = pseudo && !(o->flags & INETCSUM_OFFLOAD_ZERO_SEED) ? ics_net16(ics_fold16(pseudo)) : 0;
        ics_put_expected(field, vd->expected, 2);
        return INETCSUM_CHECK_DEVICE;
    } else {
        *software |= kind;
    }
    ics_put_expected(field, vd->expected, 2);
    return INETCSUM_CHECK_WRITTEN;
}

/* fill or offload on the common case, innermost first as the general loops: returns the fields
 * written (fill) or the kinds computed in software (offload).  Inlined into each caller, where o
 * is NULL or not at compile time.  sg: as for ics_fast_l4_verdict_of (the fields written lie in
 * the first segment, f). */
static inline __attribute__((always_inline)) uint32_t ics_fast_write_sg(uint8_t *f, const struct ics_fast *fr,
                                                                   unsigned flags, const struct inetcsum_offload *o,
                                                                   struct inetcsum_report *report,
                                                                   const struct ics_view *sg)
{
    uint32_t software = 0, pseudo = ics_fast_pseudo(f, fr);
    unsigned n = fr->v6 ? 1 : 2, written = 0;
    uint32_t kind = fr->layer == INETCSUM_LAYER_TCP ? (fr->v6 ? INETCSUM_OFL_TCP6 : INETCSUM_OFL_TCP4)
                                                    : (fr->v6 ? INETCSUM_OFL_UDP6 : INETCSUM_OFL_UDP4);
    /* Offload without a report needs no verdict of an item it leaves alone or to the device: the
     * device's TCP/UDP payload is then never read, only the pseudo-header. */
#define ICS_VERDICT_NEEDED(k) (!o || report || ((o->request & (k)) && !(o->device & (k))))
    struct inetcsum_verdict l4 = {0}, ip = {0};
    if (ICS_VERDICT_NEEDED(kind))
        l4 = ics_fast_l4_verdict(f, fr, pseudo, flags, sg);
    unsigned l4_flags = ics_fast_write_item(f + fr->l4 + ics_layers[fr->layer].field, &l4, flags, kind, pseudo, o,
                                        &software);
    written += l4_flags == INETCSUM_CHECK_WRITTEN;
    if (report)
        ics_fast_report(&report->checks[n - 1], fr->layer, fr->l4, fr->l4len, &l4, l4_flags);
    if (!fr->v6) {
        if (ICS_VERDICT_NEEDED(INETCSUM_OFL_IPV4))
            ip = ics_fast_ipv4_verdict(f + fr->ip, flags);
#undef ICS_VERDICT_NEEDED
        unsigned ip_flags = ics_fast_write_item(f + fr->ip + ICS_IPV4_CHECK, &ip, flags, INETCSUM_OFL_IPV4, 0, o, &software);
        written += ip_flags == INETCSUM_CHECK_WRITTEN;
        if (report)
            ics_fast_report(&report->checks[0], INETCSUM_LAYER_IPV4, fr->ip, ICS_IPV4_HLEN, &ip, ip_flags);
    }
    if (report) {
        report->flags = 0;
        report->count = n;
        report->unfollowed = INETCSUM_FOLLOWED;
        report->malformed = INETCSUM_MALFORMED_UNSAID;
    }
    return o ? software : written;
}

static inline __attribute__((always_inline)) uint32_t ics_fast_write(uint8_t *f, const struct ics_fast *fr,
                                                                unsigned flags, const struct inetcsum_offload *o,
                                                                struct inetcsum_report *report)
{
    return ics_fast_write_sg(f, fr, flags, o, report, NULL);
}

/* The shortcut for a frame held as segments whose first holds every header the shortcut reads and
 * writes (an mbuf chain's usual shape: the headers, then payload in the others), captured whole
 * (wirelen 0 or the segments' length, as for ics_fast_recognise): 1 and *fr when it applies. */
static inline int ics_fast_recognise_sg(const struct ics_view *v, size_t wirelen, enum inetcsum_link link,
                                        struct ics_fast *fr)
{
    /* Every read of the recogniser lies within the first 22 + 40 + 8 bytes (two VLAN tags, IPv6,
     * the first 8 of the L4 header): it reads a copy of them, then the headers it found must lie in
     * the first segment, where the shortcut reads and writes them (a header-only first mbuf
     * holds exactly that). */
    enum { HEAD = 22 + 40 + 8 };
    uint8_t head[HEAD];
    const size_t want = v->len < HEAD ? v->len : HEAD;
    size_t have = 0;
    for (size_t i = 0; i < v->nseg && have < want; i++) {
        const size_t take = v->seg[i].iov_len < want - have ? v->seg[i].iov_len : want - have;
        memcpy(head + have, v->seg[i].iov_base, take);
        have += take;
    }
    if (v->nseg < 2 || !ics_fast_recognise(head, v->len, wirelen, link, fr))
        return 0;
    return (size_t)fr->l4 + (fr->layer == INETCSUM_LAYER_TCP ? ICS_TCP_HLEN : ICS_UDP_HLEN) <= v->seg[0].iov_len;
}

#endif
