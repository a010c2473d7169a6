/* The general walk's IP steps (walk.h): IPv4 with its options, IPv6 with its extension headers,
 * each setting the addresses its upper layers' pseudo-headers use, and describing the fragment a
 * frame carries for reassemblers. */
#include "walk.h"

/* IPv4 or IPv6, by the version nibble (raw IP captures, NFLOG of another family). */
ICS_WALK_STEP(ip)
{
    const uint8_t *p = ics_need(w, *off, 1, *end);
    return p ? ics_walk_ip_version(w, p, *off) : ICS_H_STOP;
}

/* The header an IP level's protocol names (the level, w->ip, now the one its upper layers hang
 * from).  IP inside IP is not followed in a first fragment or an ICMP quote. */
static enum ics_hdr upper(struct ics_walker *w, uint8_t proto, size_t at)
{
    const enum ics_hdr h = ics_walk_named(w, ics_follow_ipproto(proto), INETCSUM_UNFOLLOWED_IP_PROTOCOL, proto, at);
    if ((h == ICS_H_IPV4 || h == ICS_H_IPV6) && !ics_walk_beyond(w))
        return ICS_H_STOP;
    return h;
}

/* Claims the next IP depth; 0 when the frame nests too deep. */
static int next_depth(struct ics_walker *w, struct ics_ipctx *ip)
{
    if (w->ips >= INETCSUM_MAX_DEPTH) {
        w->out->flags |= INETCSUM_FRAME_TOO_DEEP;
        return 0;
    }
    ip->depth = (uint8_t)w->ips++;
    w->saw_ip = 1;
    return 1;
}

ICS_WALK_STEP(ipv4)
{
    struct ics_ipctx *ip = &w->ip; /* built in place: its upper layers read it from there */
    memset(ip, 0, sizeof *ip);
    const uint8_t *p = ics_need(w, *off, ICS_IPV4_HLEN, *end);
    if (!p)
        return ICS_H_STOP;
    size_t hl = ics_ipv4_hlen(p), tot = ics_get16(p + ICS_IPV4_TOT_LEN);
    if (ics_ip_version(p) != 4 || hl < ICS_IPV4_HLEN) {
        ics_malformed(w);
        return ICS_H_STOP;
    }
    if (!next_depth(w, ip) || !(p = ics_need(w, *off, hl, *end)))
        return ICS_H_STOP;
    ics_add(w, INETCSUM_LAYER_IPV4, ip, *off, hl, 0, 0);
    if (tot == 0 && !w->quoted) /* TSO and BIG TCP (Linux over 64 KB): the length is the frame's */
        tot = *end - *off;
    if (tot < hl) {
        ics_malformed(w);
        return ICS_H_STOP;
    }
    if (*off + tot > *end && !w->quoted) {
        /* Longer than its frame: what is there is checked (as receivers and Wireshark do) and
         * flagged, never written. */
        w->out->flags |= INETCSUM_FRAME_MALFORMED;
        ip->frag |= INETCSUM_CHECK_MALFORMED;
        tot = *end - *off;
    }
    memcpy(ip->src, p + ICS_IPV4_SADDR, ICS_IPV4_ADDR_LEN);
    memcpy(ip->dst, p + ICS_IPV4_DADDR, ICS_IPV4_ADDR_LEN);
    uint8_t proto = p[ICS_IPV4_PROTOCOL];
    unsigned frag = ics_get16(p + ICS_IPV4_FRAG_OFF);
    /* Options: the last address of a source route is the final destination while the route is not
     * yet complete (pointer within the option, RFC 791). */
    for (size_t i = ICS_IPV4_HLEN; i < hl;) {
        uint8_t t = p[i];
        if (t == ICS_IPOPT_END)
            break;
        if (t == ICS_IPOPT_NOOP) {
            i++;
            continue;
        }
        if (i + 1 >= hl || p[i + 1] < 2 || i + p[i + 1] > hl)
            break;
        uint8_t olen = p[i + 1];
        if ((t == ICS_IPOPT_LSRR || t == ICS_IPOPT_SSRR) && olen >= ICS_IPOPT_ROUTE_MIN_LEN && i + 2 < hl &&
            p[i + 2] <= olen)
            memcpy(ip->dst, p + i + ICS_IPOPT_ROUTE_DATA + ((olen - ICS_IPOPT_ROUTE_DATA) / 4 - 1) * 4,
                   ICS_IPV4_ADDR_LEN);
        i += olen;
    }
    if (frag & ICS_IP_FRAGMENTED) {
        w->out->flags |= INETCSUM_FRAME_FRAGMENT;
        if (w->frag && !w->quoted && !w->frag_found) {
            struct inetcsum_fragment *f = w->frag;
            memset(f, 0, sizeof *f);
            f->version = 4;
            f->depth = ip->depth;
            f->proto = proto;
            f->more = (frag & ICS_IP_MF) != 0;
            f->id = ics_get16(p + ICS_IPV4_ID);
            f->offset = (frag & ICS_IP_OFFSET) * 8;
            f->ip_offset = (uint32_t)*off;
            f->header_len = (uint32_t)hl;
            f->data_offset = (uint32_t)(*off + hl);
            f->data_len = (uint32_t)(tot - hl);
            memcpy(f->src, p + ICS_IPV4_SADDR, ICS_IPV4_ADDR_LEN); /* not a source route's final destination */
            memcpy(f->dst, p + ICS_IPV4_DADDR, ICS_IPV4_ADDR_LEN);
            w->frag_found = (ip->frag & INETCSUM_CHECK_MALFORMED) || *off + tot > w->cap ? -1 : 1;
        }
        if (frag & ICS_IP_OFFSET)
            return ICS_H_STOP; /* a non-first fragment: no upper-layer header here */
        ip->frag = INETCSUM_CHECK_FRAGMENT;
    }
    *end = *off + tot;
    *off += hl;
    return upper(w, proto, *off);
}

/* The Authentication Header over IPv4 (RFC 4302): it signs what follows and hides none of it; the
 * protocol after it hangs from the same IP level, its pseudo-header counting from past the AH. */
ICS_WALK_STEP(ah)
{
    const uint8_t *p = ics_need(w, *off, 2, *end);
    if (!p)
        return ICS_H_STOP;
    const uint8_t nh = p[ICS_IPV6_OPT_NEXTHDR];
    const size_t hl = ics_ipv6_ah_hlen(p);
    if (!ics_have(w, *off, hl, *end))
        return ICS_H_STOP;
    *off += hl;
    return upper(w, nh, *off);
}

/* Options of a hop-by-hop or destination options header at [at, at + len): the jumbo payload
 * length and the home address are the two that change a checksum. */
static int ipv6_options(struct ics_walker *w, struct ics_ipctx *ip, size_t at, size_t len, size_t end, uint32_t *jumbo)
{
    const uint8_t *p;
    for (size_t i = ICS_IPV6_OPTS_FIRST; i < len;) {
        if (!(p = ics_need(w, at + i, 1, end)))
            return 0;
        if (p[0] == ICS_IPV6_TLV_PAD1) {
            i++;
            continue;
        }
        if (!(p = ics_need(w, at + i, 2, end)))
            return 0;
        uint8_t t = p[0], olen = p[1];
        /* (an option running past its header is not read: a jumbo length taken from the bytes
         * after it, the message's own, changed when a fill wrote them; Linux drops such a packet) */
        if (t == ICS_IPV6_TLV_JUMBO && olen == ICS_IPV6_TLV_JUMBO_LEN && jumbo && i + 2 + ICS_IPV6_TLV_JUMBO_LEN <= len &&
            (p = ics_need(w, at + i + 2, ICS_IPV6_TLV_JUMBO_LEN, end)))
            *jumbo = ics_get32(p);
        else if (t == ICS_IPV6_TLV_HAO && i + 2 + ICS_IPV6_TLV_HAO_LEN <= len &&
                 (p = ics_need(w, at + i + 2, ICS_IPV6_TLV_HAO_LEN, end)))
            memcpy(ip->src, p, ICS_IPV6_ADDR_LEN); /* taken even with a wrong length, as Wireshark and Zeek do */
        i += 2 + (size_t)olen; /* one running past the header ends the loop */
    }
    return 1;
}

/* The fragment header at `at` (its 8 bytes at p) of the IPv6 header at ip_off, whose payload ends
 * at pend; nh_at is the byte that names the fragment header. */
static void describe_ipv6_fragment(struct ics_walker *w, const struct ics_ipctx *ip, size_t ip_off, size_t at, size_t nh_at,
                                   size_t pend, const uint8_t *p)
{
    struct inetcsum_fragment *f = w->frag;
    uint8_t fh[ICS_FRAG6_HLEN];
    memcpy(fh, p, ICS_FRAG6_HLEN); /* p may lie in the scratch buffer the next read reuses */
    p = fh;
    const uint8_t *h = ics_need(w, ip_off, ICS_IPV6_HLEN, pend); /* read before, so never flags the frame */
    memset(f, 0, sizeof *f);
    f->version = 6;
    f->depth = ip->depth;
    f->proto = p[ICS_IPV6_OPT_NEXTHDR];
    f->more = (ics_get16(p + ICS_FRAG6_OFF) & ICS_FRAG6_MF) != 0;
    f->id = ics_get32(p + ICS_FRAG6_ID);
    f->offset = ics_get16(p + ICS_FRAG6_OFF) & ICS_FRAG6_OFFSET;
    f->ip_offset = (uint32_t)ip_off;
    f->header_len = (uint32_t)(at - ip_off);
    f->nh_offset = (uint32_t)nh_at;
    f->data_offset = (uint32_t)(at + ICS_FRAG6_HLEN);
    f->data_len = (uint32_t)(pend - at - ICS_FRAG6_HLEN);
    if (h) { /* the header's own addresses: not a routing header's final destination */
        memcpy(f->src, h + ICS_IPV6_SADDR, ICS_IPV6_ADDR_LEN);
        memcpy(f->dst, h + ICS_IPV6_DADDR, ICS_IPV6_ADDR_LEN);
    }
    w->frag_found = !h || (ip->frag & INETCSUM_CHECK_MALFORMED) || pend > w->cap ? -1 : 1;
}

ICS_WALK_STEP(ipv6)
{
    struct ics_ipctx *ip = &w->ip; /* built in place: its upper layers read it from there */
    memset(ip, 0, sizeof *ip);
    const uint8_t *p = ics_need(w, *off, ICS_IPV6_HLEN, *end);
    if (!p)
        return ICS_H_STOP;
    if (ics_ip_version(p) != 6) {
        ics_malformed(w);
        return ICS_H_STOP;
    }
    if (!next_depth(w, ip))
        return ICS_H_STOP;
    ip->v6 = 1;
    memcpy(ip->src, p + ICS_IPV6_SADDR, ICS_IPV6_ADDR_LEN);
    memcpy(ip->dst, p + ICS_IPV6_DADDR, ICS_IPV6_ADDR_LEN);
    uint8_t nh = p[ICS_IPV6_NEXTHDR];
    size_t plen = ics_get16(p + ICS_IPV6_PAYLOAD_LEN), at = *off + ICS_IPV6_HLEN, nh_at = *off + ICS_IPV6_NEXTHDR;
    if (plen == 0 && nh == ICS_IPPROTO_HOPOPTS) { /* a jumbogram's length is in its hop-by-hop header */
        uint32_t jumbo = 0;
        if ((p = ics_need(w, at, 2, *end)))
            ipv6_options(w, ip, at, ics_ipv6_opt_hlen(p), *end, &jumbo);
        plen = jumbo;
    } else if (plen == 0 && !w->quoted) {
        /* BIG TCP as Linux has sent it since 6.3: over 64 KB without the hop-by-hop jumbo option
         * (the length is the packet's own), as the sending host's capture shows it. */
        plen = *end - at;
    }
    size_t pend = at + plen;
    if (pend > *end && !w->quoted) { /* as for IPv4: checked as far as it goes, never written */
        w->out->flags |= INETCSUM_FRAME_MALFORMED;
        ip->frag |= INETCSUM_CHECK_MALFORMED;
        pend = *end;
    }
    for (;;) {
        size_t hl;
        switch (nh) {
        case ICS_IPPROTO_HOPOPTS:
        case ICS_IPPROTO_DSTOPTS:
            if (!(p = ics_need(w, at, 2, pend)))
                return ICS_H_STOP;
            nh = p[ICS_IPV6_OPT_NEXTHDR];
            hl = ics_ipv6_opt_hlen(p);
            if (!ics_have(w, at, hl, pend) || !ipv6_options(w, ip, at, hl, pend, NULL))
                return ICS_H_STOP;
            break;
        case ICS_IPPROTO_ROUTING: { /* the final destination while segments are left */
            if (!(p = ics_need(w, at, ICS_RT_DATA, pend)))
                return ICS_H_STOP;
            nh = p[ICS_IPV6_OPT_NEXTHDR];
            hl = ics_ipv6_opt_hlen(p);
            unsigned type = p[ICS_RT_TYPE], left = p[ICS_RT_SEGLEFT], addrs = p[ICS_IPV6_OPT_LEN] / 2,
                     cmpre = p[ICS_RT_RPL_CMPR] & 15, pad = p[ICS_RT_RPL_PAD] >> 4;
            if (!ics_have(w, at, hl, pend))
                return ICS_H_STOP;
            if (left && addrs) { /* type 0: the last address; type 2 and SRH: the first entry */
                size_t last = at + ICS_RT_DATA + (type == ICS_RT_TYPE0 ? (addrs - 1) * ICS_IPV6_ADDR_LEN : 0);
                if ((type == ICS_RT_TYPE0 || type == ICS_RT_TYPE2 || type == ICS_RT_SRH) &&
                    (p = ics_need(w, last, ICS_IPV6_ADDR_LEN, pend)))
                    memcpy(ip->dst, p, ICS_IPV6_ADDR_LEN);
            }
            if (type == ICS_RT_RPL && left) {
                /* RPL (RFC 6554): addresses with their first CmprI (the last: CmprE) bytes elided,
                 * taken from the destination; the last one ends before Pad bytes of padding. */
                size_t last_len = ICS_IPV6_ADDR_LEN - (size_t)cmpre;
                if (hl - ICS_RT_DATA >= pad + last_len && (p = ics_need(w, at + hl - pad - last_len, last_len, pend)))
                    memcpy(ip->dst + cmpre, p, last_len);
            }
            break;
        }
        case ICS_IPPROTO_FRAGMENT:
            if (!(p = ics_need(w, at, ICS_FRAG6_HLEN, pend)))
                return ICS_H_STOP;
            nh = p[ICS_IPV6_OPT_NEXTHDR];
            hl = ICS_FRAG6_HLEN;
            if (ics_get16(p + ICS_FRAG6_OFF) & ICS_FRAG6_FRAGMENTED) {
                w->out->flags |= INETCSUM_FRAME_FRAGMENT;
                if (w->frag && !w->quoted && !w->frag_found)
                    describe_ipv6_fragment(w, ip, *off, at, nh_at, pend, p);
                if (ics_get16(p + ICS_FRAG6_OFF) & ICS_FRAG6_OFFSET)
                    return ICS_H_STOP;
                ip->frag = INETCSUM_CHECK_FRAGMENT;
            }
            break;
        case ICS_IPPROTO_AH: /* RFC 4302 */
            if (!(p = ics_need(w, at, 2, pend)))
                return ICS_H_STOP;
            nh = p[ICS_IPV6_OPT_NEXTHDR];
            hl = ics_ipv6_ah_hlen(p);
            if (!ics_have(w, at, hl, pend))
                return ICS_H_STOP;
            break;
        default:
            *off = at;
            *end = pend;
            return upper(w, nh, at);
        }
        nh_at = at;
        at += hl;
        if (!ics_walk_count(w))
            return ICS_H_STOP;
    }
}
