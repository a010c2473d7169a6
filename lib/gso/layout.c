/* A super-packet's headers: which ones each segment repeats and which fields change.
 *
 * The strict walk.  It dispatches through the same description of what follows what as the
 * checksum walk (lib/packet/protocols.h), but keeps to the header kinds segmentation can rewrite,
 * and holds them to more: a packet about to be split into many must have headers that agree with
 * each other exactly, as Linux's GSO code assumes.  Those kinds: Ethernet with up to two VLAN tags,
 * IPv4 with options, IPv6 with hop-by-hop, routing and destination options headers, TCP, UDP, and
 * the tunnels VXLAN, GENEVE, GRE (RFC 2784/2890: checksum, key, sequence) and IP in IP.  Anything
 * that carries its own length or integrity over the whole packet that segmentation cannot keep
 * (IP fragments, AH, ESP, PPPoE, GTP) is refused: -EPROTONOSUPPORT for a kind it does not
 * cross, -EINVAL for headers that contradict each other or run past the packet. */
#include <errno.h>

#include "gso.h"
#include "packet/parse.h"
#include "packet/protocols.h"
#include "proto/pseudo.h"

struct walk {
    const uint8_t *p;
    size_t avail;  /* bytes of p present (the headers at least) */
    size_t total;  /* the packet's length */
    size_t target; /* the segmented header's offset when known (csum_start), else 0 */
    size_t outer_th, inner_nh; /* a UDP tunnel the virtio-net header names, whatever its ports */
    struct inetcsum_gso *g;
};

/* Whether [off, off + n) is present. */
static int have(const struct walk *w, size_t off, size_t n)
{
    return off <= w->avail && n <= w->avail - off;
}

static int is_ip(enum ics_hdr h)
{
    return h == ICS_H_IPV4 || h == ICS_H_IPV6;
}

static int level(struct walk *w, size_t off, enum ics_hdr ip);

/* An Ethernet header at off, with up to two VLAN tags, carrying IP (*ip: which). */
static int ethernet(struct walk *w, size_t off, enum ics_hdr *ip, size_t *next)
{
    if (!have(w, off, ICS_ETH_HLEN))
        return -EINVAL;
    enum ics_hdr h = ics_follow_ethertype(ics_get16(w->p + off + ICS_ETH_TYPE));
    off += ICS_ETH_HLEN;
    for (int tags = 0; h == ICS_H_VLAN && tags < 2; tags++) {
        if (!have(w, off, ICS_VLAN_HLEN))
            return -EINVAL;
        h = ics_follow_ethertype(ics_get16(w->p + off + ICS_VLAN_TYPE));
        off += ICS_VLAN_HLEN;
    }
    if (!is_ip(h))
        return -EPROTONOSUPPORT;
    *ip = h;
    *next = off;
    return 0;
}

/* The link-layer header before the first IP header; *ip ICS_H_IP when only the version nibble
 * says which IP it is. */
static int link_layer(struct walk *w, enum inetcsum_link link, enum ics_hdr *ip, size_t *next)
{
    const enum ics_hdr h = ics_follow_link(link);
    *ip = h;
    *next = 0;
    switch (h) {
    case ICS_H_ETHER:
        return ethernet(w, 0, ip, next);
    case ICS_H_IP:
    case ICS_H_IPV4:
    case ICS_H_IPV6:
        return 0;
    case ICS_H_NULL: /* an address family; the version nibble decides */
    case ICS_H_LOOP:
        *ip = ICS_H_IP;
        *next = ICS_NULL_HLEN;
        return have(w, 0, ICS_NULL_HLEN) ? 0 : -EINVAL;
    case ICS_H_SLL:
    case ICS_H_SLL2: {
        const int sll = h == ICS_H_SLL;
        const size_t len = sll ? ICS_SLL_HLEN : ICS_SLL2_HLEN;
        if (!have(w, 0, len))
            return -EINVAL;
        *ip = ics_follow_ethertype(ics_get16(w->p + (sll ? ICS_SLL_TYPE : ICS_SLL2_TYPE)));
        *next = len;
        return is_ip(*ip) ? 0 : -EPROTONOSUPPORT;
    }
    default:
        return -EPROTONOSUPPORT;
    }
}

int ics_gso_udp_tunnel_port(unsigned sport, unsigned dport)
{
    const enum ics_hdr h = ics_follow_udp(sport, dport);
    return h == ICS_H_VXLAN || h == ICS_H_GENEVE;
}

/* A tunnel's UDP header at l4 with these ports: VXLAN (RFC 7348, the I flag set) or GENEVE (RFC
 * 8926, version 0), then the next level.  -EPROTONOSUPPORT when the ports name no tunnel this
 * crosses. */
static int udp_tunnel(struct walk *w, size_t l4, unsigned sport, unsigned dport)
{
    const size_t hdr = l4 + ICS_UDP_HLEN;
    enum ics_hdr h;
    size_t inner;
    switch (ics_follow_udp(sport, dport)) {
    case ICS_H_VXLAN:
        if (!have(w, hdr, ICS_VXLAN_HLEN) || !(w->p[hdr + ICS_VXLAN_FLAGS] & ICS_VXLAN_I))
            return -EINVAL;
        inner = hdr + ICS_VXLAN_HLEN;
        h = ICS_H_ETHER;
        break;
    case ICS_H_GENEVE:
        if (!have(w, hdr, ICS_GENEVE_HLEN) || ics_geneve_version(w->p + hdr) != 0)
            return -EINVAL;
        inner = hdr + ics_geneve_hlen(w->p + hdr);
        h = ics_follow_ethertype(ics_get16(w->p + hdr + ICS_GENEVE_PROTO));
        break;
    default:
        return -EPROTONOSUPPORT;
    }
    if (h == ICS_H_ETHER && ethernet(w, inner, &h, &inner) != 0)
        return -EINVAL;
    if (!is_ip(h))
        return -EPROTONOSUPPORT;
    return level(w, inner, h);
}

/* GRE (RFC 2784, RFC 2890 key and sequence number) at l4, version 0 without routing. */
static int gre(struct walk *w, struct inetcsum_gso_level *lv, size_t l4)
{
    if (!have(w, l4, ICS_GRE_HLEN))
        return -EINVAL;
    const unsigned flags = ics_get16(w->p + l4 + ICS_GRE_FLAGS);
    if ((flags & ICS_GRE_VERSION_MASK) != 0 || (flags & ICS_GRE_R)) /* PPTP's version 1; routing */
        return -EPROTONOSUPPORT;
    size_t next = l4 + ics_gre_hlen(flags);
    enum ics_hdr h = ics_follow_gre(ics_get16(w->p + l4 + ICS_GRE_PROTO));
    lv->l4 = INETCSUM_GSO_L4_GRE;
    lv->csum = (flags & ICS_GRE_C) != 0;
    if (h == ICS_H_ETHER) {
        int rc = ethernet(w, next, &h, &next);
        if (rc != 0)
            return rc;
    }
    if (!is_ip(h))
        return -EPROTONOSUPPORT;
    return level(w, next, h);
}

/* Whether an IPv6 next header is an extension header that segmentation leaves as it is. */
static int plain_extension(unsigned nh)
{
    return nh == ICS_IPPROTO_HOPOPTS || nh == ICS_IPPROTO_ROUTING || nh == ICS_IPPROTO_DSTOPTS;
}

/* The IP header at off (ip: ICS_H_IPV4 or _IPV6 when the carrier says which, ICS_H_IP when only
 * its version nibble does) and what it carries, to the segmented header. */
static int level(struct walk *w, size_t off, enum ics_hdr ip_hdr)
{
    struct inetcsum_gso *g = w->g;
    if (g->nlevels == INETCSUM_GSO_MAX_LEVELS)
        return -EPROTONOSUPPORT;
    if (!have(w, off, 1))
        return -EINVAL;
    const uint8_t *ip = w->p + off;
    const unsigned version = ics_ip_version(ip);
    if ((version != 4 && version != 6) || (ip_hdr != ICS_H_IP && ip_hdr != ics_follow_ip_version(version)))
        return -EINVAL;
    const size_t end = w->total; /* every level's lengths must reach the packet's end exactly */
    /* An IP length of 0 means the packet's own: at the outermost level for TSO's captures, and at
     * any level for BIG TCP's, which are over 64 KB (a smaller tunnelled packet with one inside is
     * a payload that merely looks like headers). */
    const int zero_len_ok = g->nlevels == 0 || end - off > ICS_IP_MAX_LEN;
    size_t l4;
    unsigned proto;
    if (version == 4) {
        const size_t ihl = ics_ipv4_hlen(ip);
        if (ihl < ICS_IPV4_HLEN || !have(w, off, ihl))
            return -EINVAL;
        /* A total length of 0 is TSO's and BIG TCP's (Linux over 64 KB): the packet's own. */
        const size_t tot = ics_get16(ip + ICS_IPV4_TOT_LEN);
        if (tot != end - off && !(tot == 0 && zero_len_ok))
            return -EINVAL;
        if (ics_get16(ip + ICS_IPV4_FRAG_OFF) & ICS_IP_FRAGMENTED)
            return -EPROTONOSUPPORT;
        proto = ip[ICS_IPV4_PROTOCOL];
        l4 = off + ihl;
    } else {
        if (!have(w, off, ICS_IPV6_HLEN))
            return -EINVAL;
        /* A payload length of 0 without a hop-by-hop header is BIG TCP as Linux sends it since
         * 6.3 (the length is the packet's own); a jumbo option (RFC 2675) is not segmented here:
         * its hop-by-hop header is the caller's to take out first, as ipv6_hopopt_jumbo_remove. */
        const size_t plen = ics_get16(ip + ICS_IPV6_PAYLOAD_LEN);
        if (plen == 0 && ip[ICS_IPV6_NEXTHDR] == ICS_IPPROTO_HOPOPTS)
            return -EPROTONOSUPPORT;
        if (plen != end - off - ICS_IPV6_HLEN && !(plen == 0 && zero_len_ok))
            return -EINVAL;
        proto = ip[ICS_IPV6_NEXTHDR];
        l4 = off + ICS_IPV6_HLEN;
        while (plain_extension(proto)) {
            if (!have(w, l4, 2) || (proto == ICS_IPPROTO_HOPOPTS && l4 != off + ICS_IPV6_HLEN))
                return -EINVAL;
            const size_t len = ics_ipv6_opt_hlen(w->p + l4);
            if (!have(w, l4, len))
                return -EINVAL;
            proto = w->p[l4 + ICS_IPV6_OPT_NEXTHDR];
            l4 += len;
        }
    }
    if (l4 > end)
        return -EINVAL;
    struct inetcsum_gso_level *lv = &g->level[g->nlevels++];
    *lv = (struct inetcsum_gso_level){.ip_off = (uint16_t)off, .ip_version = (uint8_t)version, .l4_off = (uint16_t)l4};
    const enum ics_hdr next = ics_follow_ipproto(proto);
    switch (next) {
    case ICS_H_TCP: { /* always the segmented header */
        if (!have(w, l4, ICS_TCP_HLEN))
            return -EINVAL;
        const size_t doff = ics_tcp_hlen(w->p + l4);
        if (doff < ICS_TCP_HLEN || !have(w, l4, doff) || l4 + doff > end || (w->target && w->target != l4))
            return -EINVAL;
        lv->l4 = INETCSUM_GSO_L4_TCP;
        g->proto = INETCSUM_GSO_L4_TCP;
        g->hdr_len = (uint16_t)(l4 + doff);
        return 0;
    }
    case ICS_H_UDP: { /* a tunnel's, or the segmented one */
        const size_t ulen = have(w, l4, ICS_UDP_HLEN) ? ics_get16(w->p + l4 + ICS_UDP_LEN) : 0;
        if (!have(w, l4, ICS_UDP_HLEN) || (ulen != end - l4 && !(ulen == 0 && end - l4 > ICS_IP_MAX_LEN)))
            return -EINVAL; /* (0: a BIG TCP tunnel's or a jumbogram's, over 64 KB) */
        lv->l4 = INETCSUM_GSO_L4_UDP;
        lv->csum = ics_get16(w->p + l4 + ICS_UDP_CHECK) != 0;
        if (w->inner_nh && l4 == w->outer_th) { /* a tunnel by the header's word: VXLAN on 8472 too */
            if (w->inner_nh < l4 + ICS_UDP_HLEN)
                return -EINVAL;
            return level(w, w->inner_nh, ICS_H_IP);
        }
        if (!w->target || w->target > l4) {
            const uint8_t kept = g->nlevels;
            int rc = udp_tunnel(w, l4, ics_get16(w->p + l4 + ICS_UDP_SPORT), ics_get16(w->p + l4 + ICS_UDP_DPORT));
            if (rc == 0 || w->target) /* with csum_start past it, it must be a tunnel */
                return rc;
            g->nlevels = kept; /* not a tunnel after all: the datagrams themselves */
        }
        if (w->target && w->target != l4)
            return -EINVAL;
        lv->csum = 0;
        g->proto = INETCSUM_GSO_L4_UDP;
        g->hdr_len = (uint16_t)(l4 + ICS_UDP_HLEN);
        return 0;
    }
    case ICS_H_GRE:
        return gre(w, lv, l4);
    case ICS_H_IPV4:
    case ICS_H_IPV6:
        return level(w, l4, next);
    default: /* ICMP, SCTP, ...; fragments, ESP, AH: not segmented */
        return -EPROTONOSUPPORT;
    }
}

/* The pseudo-header sum (with the length) the parser found for the TCP or UDP header of level lv
 * at offset off of what it parsed.  0 or -EPROTONOSUPPORT when it did not find that header. */
static int found_pseudo(const struct ics_parsed *parsed, const struct inetcsum_gso_level *lv, size_t off,
                        uint32_t *sum)
{
    const unsigned layer = lv->l4 == INETCSUM_GSO_L4_TCP ? INETCSUM_LAYER_TCP : INETCSUM_LAYER_UDP;
    for (unsigned k = 0; k < parsed->n; k++)
        if (parsed->item[k].off == off && parsed->item[k].layer == layer) {
            *sum = parsed->item[k].pseudo;
            return 0;
        }
    return -EPROTONOSUPPORT;
}

/* The pseudo-header sum with the length of level lv's TCP or UDP header taken straight from its
 * IP header, where the parser would take it from there too: IPv4 without options (no source route
 * to name another destination), IPv6 with the TCP or UDP header right after its own (no routing
 * header), the length field reaching the packet's end (not TSO's or BIG TCP's 0).  The parser's
 * own sum (ics_walk_pseudo) of the same addresses, protocol and length: the same value.  0, or -1
 * where the parser is needed. */
static int direct_pseudo(const struct inetcsum_gso_level *lv, const uint8_t *p, size_t total, uint32_t *with_len)
{
    const uint8_t *ip = p + lv->ip_off;
    const uint8_t proto = lv->l4 == INETCSUM_GSO_L4_TCP ? ICS_IPPROTO_TCP : ICS_IPPROTO_UDP;
    const uint32_t len = (uint32_t)(total - lv->l4_off);
    if (lv->ip_version == 4) {
        if (ip[ICS_IPV4_VER_IHL] != ICS_IPV4_VER_IHL_PLAIN || ip[ICS_IPV4_PROTOCOL] != proto ||
            ics_get16(ip + ICS_IPV4_TOT_LEN) != total - lv->ip_off)
            return -1;
        *with_len = ics_pseudo_ipv4(ip + ICS_IPV4_SADDR, ip + ICS_IPV4_DADDR, proto, len, 0);
        return 0;
    }
    if ((size_t)lv->l4_off != (size_t)lv->ip_off + ICS_IPV6_HLEN || ip[ICS_IPV6_NEXTHDR] != proto ||
        ics_get16(ip + ICS_IPV6_PAYLOAD_LEN) != total - lv->ip_off - ICS_IPV6_HLEN)
        return -1;
    *with_len = ics_pseudo_ipv6(ip + ICS_IPV6_SADDR, ip + ICS_IPV6_DADDR, proto, len, 0);
    return 0;
}

int ics_gso_force_parser;

/* The pseudo-header sum less the length, from the sum with it. */
static uint32_t without_len(uint32_t with_len, size_t len)
{
    uint8_t be_len[4]; /* the length as the parser summed it: 32 bits (two words), which BIG TCP's need */
    ics_put32(be_len, (uint32_t)len);
    return inetcsum_sub(with_len, inetcsum_partial(be_len, 4, 0));
}

/* The pseudo-header sums of the levels' TCP and UDP headers, less the length, which each segment
 * adds.  Taken straight from the IP headers where they say all (direct_pseudo: every level of the
 * usual packet, and the checksum parser's second walk, about 1,000 instructions for VXLAN, is
 * spared: a coalescer pays it for each train's first packet); else from the parser, which knows
 * which destination a pseudo-header uses (an IPv4 source route's or an IPv6 routing header's final
 * one, RFC 791 and RFC 8200 8.1).  0, or -EPROTONOSUPPORT when the parser does not see a header
 * the walk found. */
int ics_gso_pseudo(struct inetcsum_gso *g, const uint8_t *p, size_t avail, size_t total, enum inetcsum_link link,
                   size_t inner_nh)
{
    uint32_t direct[INETCSUM_GSO_MAX_LEVELS];
    int all_direct = !ics_gso_force_parser;
    for (unsigned k = 0; all_direct && k < g->nlevels; k++) {
        const struct inetcsum_gso_level *lv = &g->level[k];
        if (lv->l4 == INETCSUM_GSO_L4_TCP || lv->l4 == INETCSUM_GSO_L4_UDP)
            all_direct = direct_pseudo(lv, p, total, &direct[k]) == 0;
    }
    if (all_direct) {
        for (unsigned k = 0; k < g->nlevels; k++)
            if (g->level[k].l4 == INETCSUM_GSO_L4_TCP || g->level[k].l4 == INETCSUM_GSO_L4_UDP)
                g->level[k].pseudo = without_len(direct[k], total - g->level[k].l4_off);
        return 0;
    }
    struct ics_view v = {(uint8_t *)(uintptr_t)p, NULL, 0, avail};
    struct ics_parsed parsed;
    ics_parse(&v, total, link, &parsed, NULL);
    for (unsigned j = 0; j < g->nlevels; j++) {
        struct inetcsum_gso_level *lv = &g->level[j];
        if (lv->l4 != INETCSUM_GSO_L4_TCP && lv->l4 != INETCSUM_GSO_L4_UDP)
            continue;
        uint32_t with_len;
        /* Inside a tunnel a virtio-net header names by offset, whatever its ports and options
         * say to the parser, or one the parser does not follow: parsed again from this level's IP
         * header (the pseudo-header depends on nothing before it). */
        const int named = j > 0 && lv->ip_off == inner_nh;
        if (named || found_pseudo(&parsed, lv, lv->l4_off, &with_len) != 0) {
            if (j == 0)
                return -EPROTONOSUPPORT;
            struct ics_view inner = {(uint8_t *)(uintptr_t)p + lv->ip_off, NULL, 0, avail - lv->ip_off};
            struct ics_parsed again;
            ics_parse(&inner, total - lv->ip_off, INETCSUM_LINK_RAW, &again, NULL);
            if (found_pseudo(&again, lv, lv->l4_off - lv->ip_off, &with_len) != 0)
                return -EPROTONOSUPPORT;
        }
        lv->pseudo = without_len(with_len, total - lv->l4_off);
    }
    return 0;
}

int ics_gso_layout(struct inetcsum_gso *g, const uint8_t *p, size_t avail, size_t total, enum inetcsum_link link,
                   const struct ics_gso_marks *marks, int pseudo)
{
    *g = (struct inetcsum_gso){0};
    /* No IP length reaches past 64 KB, but BIG TCP's (a length of 0) reach Linux's GSO bound. */
    if (total > ICS_GSO_MAX_BIG + (size_t)ICS_GSO_MAX_HDR)
        return -EINVAL;
    struct walk w = {p, avail < total ? avail : total, total, 0, 0, 0, g};
    if (marks) {
        w.target = marks->target;
        w.outer_th = marks->outer_th;
        w.inner_nh = marks->inner_nh;
    }
    enum ics_hdr ip;
    size_t off;
    int rc = link_layer(&w, link, &ip, &off);
    if (rc == 0)
        rc = level(&w, off, ip);
    if (rc != 0)
        return rc;
    if (g->hdr_len > ICS_GSO_MAX_HDR)
        return -EPROTONOSUPPORT;
    if (pseudo && (rc = ics_gso_pseudo(g, p, avail < total ? avail : total, total, link, w.inner_nh)) != 0)
        return rc;
    g->link_len = (uint16_t)off;
    g->payload_len = (uint32_t)(total - g->hdr_len);
    return 0;
}

enum ics_hdr ics_gso_ip_at(const uint8_t *p, size_t len, enum inetcsum_link link, size_t *off)
{
    struct inetcsum_gso g;
    struct walk w = {p, len, len, 0, 0, 0, &g};
    enum ics_hdr ip;
    if (link_layer(&w, link, &ip, off) != 0 || !have(&w, *off, 1))
        return ICS_H_STOP;
    if (ip == ICS_H_IP)
        ip = ics_follow_ip_version(ics_ip_version(p + *off));
    const size_t need = ip == ICS_H_IPV4 ? ICS_IPV4_HLEN : ip == ICS_H_IPV6 ? ICS_IPV6_HLEN : 0;
    return need && have(&w, *off, need) ? ip : ICS_H_STOP;
}

size_t ics_gso_ip_end(const uint8_t *p, size_t len, enum inetcsum_link link)
{
    size_t off, end = 0;
    const enum ics_hdr ip = ics_gso_ip_at(p, len, link, &off);
    if (ip == ICS_H_IPV4)
        end = off + ics_get16(p + off + ICS_IPV4_TOT_LEN);
    else if (ip == ICS_H_IPV6 && ics_get16(p + off + ICS_IPV6_PAYLOAD_LEN))
        end = off + ICS_IPV6_HLEN + ics_get16(p + off + ICS_IPV6_PAYLOAD_LEN);
    return end > off && end < len ? end : 0;
}
