/* The shortcut for the commonest IP fragments: the general walk's answer without its walk, for
 * inetcsum_verify and inetcsum_fill and for the capture library's reassembler, which asks for every
 * frame's fragment as it verifies or fills it (lib/packet/verify.c).
 *
 * Taken: behind the links fast.h takes, an IPv4 header without options or an IPv6 header followed
 * directly by its fragment header, that is a fragment (more follow, or not the first), lies whole in
 * a frame captured whole, and in a first fragment carries TCP, UDP, ICMP or ICMPv6 with at least
 * that header's minimum inside.  The frame then holds at most two checksums: the IPv4 header's,
 * judged as anywhere, and a first fragment's message, which covers bytes elsewhere (flagged
 * INETCSUM_CHECK_FRAGMENT: unverifiable, its value reported; a UDP zero judged absent or
 * illegal) and is never written.  Anything else returns 0 and goes the general way.  A fragment
 * frame costs the general walk about 600 instructions (parse, steps, items), a fifth of a capture's
 * verify when a third of its datagrams are fragmented (docs/perf.md).  tests/test_fastpath.c holds
 * it to the general walk and inetcsum_fragment on built, cut and damaged fragments. */
#ifndef ICS_PACKET_FAST_FRAGMENT_H
#define ICS_PACKET_FAST_FRAGMENT_H

#include "fast.h"

struct ics_fast_fragment {
    uint32_t ip;      /* offset of the IP header */
    uint32_t l4;      /* a first fragment's message; 0 in a later one */
    uint32_t l4len;   /* the bytes of it this frame holds (UDP: its length field when that is less) */
    uint8_t v6;
    uint8_t layer;    /* the message's layer in a first fragment */
};

/* Whether f[0..caplen) is such a fragment: *fr and *frag (as inetcsum_fragment would answer 1)
 * describe it when it is. */
static inline __attribute__((always_inline)) int
ics_fast_fragment_recognise(const uint8_t *f, size_t caplen, size_t wirelen, enum inetcsum_link link,
                            struct ics_fast_fragment *fr, struct inetcsum_fragment *frag)
{
    size_t off;
    const unsigned version = ics_fast_ip_start(f, caplen, wirelen, link, ICS_IPV4_HLEN, &off);
    if (!version)
        return 0;
    const uint8_t *ip = f + off;
    const size_t room = caplen - off; /* >= ICS_IPV4_HLEN (a later fragment's data may be 1 byte) */
    size_t l4, end;
    unsigned proto, first;
    if (version == 4) {
        const size_t tot = ics_get16(ip + ICS_IPV4_TOT_LEN);
        const unsigned fo = ics_get16(ip + ICS_IPV4_FRAG_OFF);
        if (ip[ICS_IPV4_VER_IHL] != ICS_IPV4_VER_IHL_PLAIN || !(fo & ICS_IP_FRAGMENTED) || tot > room ||
            tot < ICS_IPV4_HLEN)
            return 0; /* options, not a fragment, or a length the general walk must judge (0: TSO's) */
        memset(frag, 0, sizeof *frag); /* (only now: most frames that come here are no fragment) */
        proto = ip[ICS_IPV4_PROTOCOL];
        first = !(fo & ICS_IP_OFFSET);
        l4 = off + ICS_IPV4_HLEN;
        end = off + tot;
        frag->version = 4;
        frag->more = (fo & ICS_IP_MF) != 0;
        frag->id = ics_get16(ip + ICS_IPV4_ID);
        frag->offset = (fo & ICS_IP_OFFSET) * 8u;
        frag->header_len = ICS_IPV4_HLEN;
        memcpy(frag->src, ip + ICS_IPV4_SADDR, ICS_IPV4_ADDR_LEN);
        memcpy(frag->dst, ip + ICS_IPV4_DADDR, ICS_IPV4_ADDR_LEN);
    } else {
        if (room < ICS_IPV6_HLEN + ICS_FRAG6_HLEN || ics_ip_version(ip) != 6 ||
            ip[ICS_IPV6_NEXTHDR] != ICS_IPPROTO_FRAGMENT)
            return 0;
        const size_t plen = ics_get16(ip + ICS_IPV6_PAYLOAD_LEN);
        const uint8_t *fh = ip + ICS_IPV6_HLEN;
        const unsigned fo = ics_get16(fh + ICS_FRAG6_OFF);
        if (plen < ICS_FRAG6_HLEN || plen > room - ICS_IPV6_HLEN || !(fo & ICS_FRAG6_FRAGMENTED))
            return 0; /* a jumbogram or BIG TCP (0), longer than the frame, or an atomic fragment */
        memset(frag, 0, sizeof *frag);
        proto = fh[ICS_IPV6_OPT_NEXTHDR];
        first = !(fo & ICS_FRAG6_OFFSET);
        l4 = off + ICS_IPV6_HLEN + ICS_FRAG6_HLEN;
        end = off + ICS_IPV6_HLEN + plen;
        frag->version = 6;
        frag->more = (fo & ICS_FRAG6_MF) != 0;
        frag->id = ics_get32(fh + ICS_FRAG6_ID);
        frag->offset = fo & ICS_FRAG6_OFFSET;
        frag->header_len = ICS_IPV6_HLEN;
        frag->nh_offset = (uint32_t)(off + ICS_IPV6_NEXTHDR);
        memcpy(frag->src, ip + ICS_IPV6_SADDR, ICS_IPV6_ADDR_LEN);
        memcpy(frag->dst, ip + ICS_IPV6_DADDR, ICS_IPV6_ADDR_LEN);
    }
    fr->l4 = fr->l4len = 0;
    fr->layer = 0;
    if (first) {
        const size_t len = end - l4;
        switch (ics_follow_ipproto((uint8_t)proto)) {
        case ICS_H_TCP:
            fr->layer = INETCSUM_LAYER_TCP;
            break;
        case ICS_H_UDP:
            fr->layer = INETCSUM_LAYER_UDP;
            break;
        case ICS_H_ICMP:
            fr->layer = INETCSUM_LAYER_ICMP;
            break;
        case ICS_H_ICMPV6:
            fr->layer = INETCSUM_LAYER_ICMPV6;
            break;
        default:
            return 0; /* (extension headers after the fragment header among them) */
        }
        if (len < ics_layers[fr->layer].min_len)
            return 0; /* the walk flags the frame malformed */
        size_t covered = len;
        if (fr->layer == INETCSUM_LAYER_UDP) {
            const size_t ulen = ics_get16(f + l4 + ICS_UDP_LEN);
            if (ulen < ICS_UDP_HLEN)
                return 0; /* malformed */
            if (ulen < len)
                covered = ulen; /* (longer: the whole datagram's, as the walk takes it) */
        }
        fr->l4 = (uint32_t)l4;
        fr->l4len = (uint32_t)covered;
    }
    fr->ip = (uint32_t)off;
    fr->v6 = version == 6;
    frag->proto = (uint8_t)proto;
    frag->ip_offset = (uint32_t)off;
    frag->data_offset = (uint32_t)l4; /* (where a first fragment's message starts) */
    frag->data_len = (uint32_t)(end - frag->data_offset);
    return 1;
}

/* The verdict of a first fragment's message: its stored value only, as for any check flagged
 * INETCSUM_CHECK_FRAGMENT (verdict.h), but a UDP zero judged by its rule. */
static inline struct inetcsum_verdict ics_fast_fragment_l4_verdict(const uint8_t *f,
                                                                   const struct ics_fast_fragment *fr,
                                                                   unsigned flags)
{
    const uint8_t *field = f + fr->l4 + ics_layers[fr->layer].field;
    struct inetcsum_verdict vd = {INETCSUM_UNVERIFIABLE, ics_get16(field), 0};
    if (vd.stored == 0 && fr->layer == INETCSUM_LAYER_UDP) {
        vd = ics_inet_verdict(INETCSUM_LAYER_UDP, 0, 0, 0, flags | (fr->v6 ? INETCSUM_OVER_IPV6 : 0));
        vd.expected = 0;
    }
    return vd;
}

/* verify (fill NULL) or fill (fill: the frame f, to be written) of the fragment's checksums,
 * reported as the general walk reports them; fill writes the IPv4 header's where `layers` and
 * flags want it.  Returns the problems (verify) or the fields written (fill). */
static inline __attribute__((always_inline)) unsigned
ics_fast_fragment_judge(const uint8_t *f, uint8_t *fill, const struct ics_fast_fragment *fr, unsigned flags,
                        uint32_t layers, struct inetcsum_report *report)
{
    struct inetcsum_report unasked;
    if (!report)
        report = &unasked;
    unsigned n = 0, problems = 0, written = 0;
    if (!fr->v6) {
        struct inetcsum_verdict ip = ics_fast_ipv4_verdict(f + fr->ip, flags);
        unsigned extra = 0;
        problems += ics_status_problem(ip.status);
        /* Alone or beside an unwritten message, nothing before it was written: as fill_view
         * decides for a layer chosen, and a layer not chosen is left as it is. */
        if (fill && ((layers >> INETCSUM_LAYER_IPV4) & 1u) && ics_fill_wanted(&ip, flags)) {
            ics_put_expected(fill + fr->ip + ICS_IPV4_CHECK, ip.expected, 2);
            extra = INETCSUM_CHECK_WRITTEN;
            written++;
        }
        ics_fast_report(&report->checks[n++], INETCSUM_LAYER_IPV4, fr->ip, ICS_IPV4_HLEN, &ip, extra);
    }
    if (fr->l4) {
        struct inetcsum_verdict l4 = ics_fast_fragment_l4_verdict(f, fr, flags);
        problems += ics_status_problem(l4.status);
        ics_fast_report(&report->checks[n++], fr->layer, fr->l4, fr->l4len, &l4, INETCSUM_CHECK_FRAGMENT);
    }
    report->flags = INETCSUM_FRAME_FRAGMENT;
    report->count = n;
    report->unfollowed = INETCSUM_FOLLOWED;
    report->malformed = INETCSUM_MALFORMED_UNSAID;
    return fill ? written : problems;
}

#endif
