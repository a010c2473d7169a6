/* A super-packet's headers: which ones each segment repeats and which fields change.
 *
 * This walker is separate from the checksum parser (lib/packet/parse.c) on purpose: that one is
 * tolerant (it judges whatever a capture holds, malformed or cut, and follows every tunnel it
 * knows), this one is strict (a packet about to be split into many must have headers that agree
 * with each other exactly, as Linux's GSO code assumes) and follows only what segmentation can
 * rewrite: Ethernet with up to two VLAN tags, IPv4 with options, IPv6 with hop-by-hop, routing and
 * destination options headers, and the tunnels VXLAN, GENEVE, GRE (RFC 2784/2890: checksum, key,
 * sequence) and IP-in-IP / 6in4 / 6in6.  Anything that carries its own length or integrity over
 * the whole packet that segmentation cannot keep (IP fragments, AH, ESP, PPPoE, GTP-U) is refused. */
#include <errno.h>

#include "gso.h"
#include "packet/parse.h"

struct walk {
    const uint8_t *p;
    size_t avail;  /* bytes of p present (the headers at least) */
    size_t total;  /* the packet's length */
    size_t target; /* the segmented header's offset when known (csum_start), else 0 */
    size_t outer_th, inner_nh; /* a UDP tunnel the virtio-net header names, whatever its ports */
    struct inetcsum_gso *g;
};

static unsigned be16(const uint8_t *p)
{
    return ((unsigned)p[0] << 8) | p[1];
}

/* Whether [off, off + n) is present. */
static int have(const struct walk *w, size_t off, size_t n)
{
    return off <= w->avail && n <= w->avail - off;
}

enum { ETH_IPV4 = 0x0800, ETH_IPV6 = 0x86DD, ETH_TEB = 0x6558 /* Ethernet inside GRE, GENEVE */ };

static int level(struct walk *w, size_t off, unsigned ethertype);

/* An Ethernet header at off, with up to two VLAN tags, carrying IP. */
static int ethernet(struct walk *w, size_t off, unsigned *ethertype, size_t *next)
{
    if (!have(w, off, 14))
        return -EINVAL;
    unsigned type = be16(w->p + off + 12);
    off += 14;
    for (int tags = 0; (type == 0x8100 || type == 0x88A8 || type == 0x9100) && tags < 2; tags++) {
        if (!have(w, off, 4))
            return -EINVAL;
        type = be16(w->p + off + 2);
        off += 4;
    }
    if (type != ETH_IPV4 && type != ETH_IPV6)
        return -EPROTONOSUPPORT;
    *ethertype = type;
    *next = off;
    return 0;
}

/* The link-layer header before the first IP header; *ethertype 0 when only the version nibble
 * says which IP it is. */
static int link_layer(struct walk *w, enum inetcsum_link link, unsigned *ethertype, size_t *next)
{
    *ethertype = 0;
    switch (link) {
    case INETCSUM_LINK_ETHERNET:
        return ethernet(w, 0, ethertype, next);
    case INETCSUM_LINK_RAW:
    case INETCSUM_LINK_BSD_RAW:
    case INETCSUM_LINK_OPENBSD_RAW:
        *next = 0;
        return 0;
    case INETCSUM_LINK_IPV4:
        *ethertype = ETH_IPV4;
        *next = 0;
        return 0;
    case INETCSUM_LINK_IPV6:
        *ethertype = ETH_IPV6;
        *next = 0;
        return 0;
    case INETCSUM_LINK_NULL: /* a 4-byte address family; the version nibble decides */
    case INETCSUM_LINK_LOOP:
        *next = 4;
        return have(w, 0, 4) ? 0 : -EINVAL;
    case INETCSUM_LINK_LINUX_SLL: /* 16 bytes, the protocol last */
    case INETCSUM_LINK_LINUX_SLL2: { /* 20 bytes, the protocol first */
        const size_t len = link == INETCSUM_LINK_LINUX_SLL ? 16 : 20;
        if (!have(w, 0, len))
            return -EINVAL;
        *ethertype = be16(w->p + (link == INETCSUM_LINK_LINUX_SLL ? 14 : 0));
        *next = len;
        return *ethertype == ETH_IPV4 || *ethertype == ETH_IPV6 ? 0 : -EPROTONOSUPPORT;
    }
    default:
        return -EPROTONOSUPPORT;
    }
}

/* A tunnel's UDP header at l4 (its ports sport/dport): VXLAN (RFC 7348) or GENEVE (RFC 8926)
 * then the next level.  -EPROTONOSUPPORT when the ports name no tunnel this follows. */
static int udp_tunnel(struct walk *w, size_t l4, unsigned dport)
{
    const size_t hdr = l4 + 8;
    unsigned type = ETH_TEB;
    size_t inner;
    if (dport == 4789) { /* VXLAN: 8 bytes, the I flag set, then Ethernet */
        if (!have(w, hdr, 8) || !(w->p[hdr] & 0x08))
            return -EINVAL;
        inner = hdr + 8;
    } else if (dport == 6081) { /* GENEVE: version 0, options, a protocol type */
        if (!have(w, hdr, 8) || (w->p[hdr] >> 6) != 0)
            return -EINVAL;
        inner = hdr + 8 + (size_t)(w->p[hdr] & 0x3F) * 4;
        type = be16(w->p + hdr + 2);
    } else {
        return -EPROTONOSUPPORT;
    }
    if (type == ETH_TEB && ethernet(w, inner, &type, &inner) != 0)
        return -EINVAL;
    if (type != ETH_IPV4 && type != ETH_IPV6)
        return -EPROTONOSUPPORT;
    return level(w, inner, type);
}

/* GRE (RFC 2784, RFC 2890 key and sequence number) at l4, version 0 without routing. */
static int gre(struct walk *w, struct inetcsum_gso_level *lv, size_t l4)
{
    if (!have(w, l4, 4))
        return -EINVAL;
    const unsigned flags = be16(w->p + l4);
    if ((flags & 7) != 0 || (flags & 0x4000)) /* PPTP's version 1; the routing bit */
        return -EPROTONOSUPPORT;
    size_t next = l4 + 4 + ((flags & 0x8000) ? 4 : 0) + ((flags & 0x2000) ? 4 : 0) + ((flags & 0x1000) ? 4 : 0);
    unsigned type = be16(w->p + l4 + 2);
    lv->l4 = INETCSUM_GSO_L4_GRE;
    lv->csum = (flags & 0x8000) != 0;
    if (type == ETH_TEB) {
        int rc = ethernet(w, next, &type, &next);
        if (rc != 0)
            return rc;
    }
    if (type != ETH_IPV4 && type != ETH_IPV6)
        return -EPROTONOSUPPORT;
    return level(w, next, type);
}

/* Whether an IPv6 next header is an extension header that segmentation leaves as it is. */
static int plain_extension(unsigned nh)
{
    return nh == 0 || nh == 43 || nh == 60; /* hop-by-hop, routing, destination options */
}

/* The IP header at off (ethertype, when not 0, says which version it must be) and what it
 * carries, to the segmented header. */
static int level(struct walk *w, size_t off, unsigned ethertype)
{
    struct inetcsum_gso *g = w->g;
    if (g->nlevels == INETCSUM_GSO_MAX_LEVELS)
        return -EPROTONOSUPPORT;
    if (!have(w, off, 1))
        return -EINVAL;
    const uint8_t *ip = w->p + off;
    const unsigned version = ip[0] >> 4;
    if ((version != 4 && version != 6) || (ethertype && ethertype != (version == 4 ? ETH_IPV4 : ETH_IPV6)))
        return -EINVAL;
    const size_t end = w->total; /* every level's lengths must reach the packet's end exactly */
    size_t l4;
    unsigned proto;
    if (version == 4) {
        const size_t ihl = (size_t)(ip[0] & 15) * 4;
        if (ihl < 20 || !have(w, off, ihl) || be16(ip + 2) != end - off)
            return -EINVAL;
        if (be16(ip + 6) & 0x3FFF) /* MF or a fragment offset */
            return -EPROTONOSUPPORT;
        proto = ip[9];
        l4 = off + ihl;
    } else {
        if (!have(w, off, 40))
            return -EINVAL;
        if (be16(ip + 4) == 0) /* a jumbogram (BIG TCP) */
            return -EPROTONOSUPPORT;
        if (be16(ip + 4) != end - off - 40)
            return -EINVAL;
        proto = ip[6];
        l4 = off + 40;
        while (plain_extension(proto)) {
            if (!have(w, l4, 2) || (proto == 0 && l4 != off + 40))
                return -EINVAL;
            const size_t len = ((size_t)w->p[l4 + 1] + 1) * 8;
            if (!have(w, l4, len))
                return -EINVAL;
            proto = w->p[l4];
            l4 += len;
        }
    }
    if (l4 > end)
        return -EINVAL;
    struct inetcsum_gso_level *lv = &g->level[g->nlevels++];
    *lv = (struct inetcsum_gso_level){.ip_off = (uint16_t)off, .ip_version = (uint8_t)version, .l4_off = (uint16_t)l4};
    switch (proto) {
    case 6: { /* TCP: always the segmented header */
        if (!have(w, l4, 20))
            return -EINVAL;
        const size_t doff = (size_t)(w->p[l4 + 12] >> 4) * 4;
        if (doff < 20 || !have(w, l4, doff) || l4 + doff > end || (w->target && w->target != l4))
            return -EINVAL;
        lv->l4 = INETCSUM_GSO_L4_TCP;
        g->proto = INETCSUM_GSO_L4_TCP;
        g->hdr_len = (uint16_t)(l4 + doff);
        return 0;
    }
    case 17: { /* UDP: a tunnel's, or the segmented one */
        if (!have(w, l4, 8) || be16(w->p + l4 + 4) != end - l4)
            return -EINVAL;
        lv->l4 = INETCSUM_GSO_L4_UDP;
        lv->csum = be16(w->p + l4 + 6) != 0;
        if (w->inner_nh && l4 == w->outer_th) { /* a tunnel by the header's word: VXLAN on 8472 too */
            if (w->inner_nh < l4 + 8)
                return -EINVAL;
            return level(w, w->inner_nh, 0);
        }
        if (!w->target || w->target > l4) {
            const uint8_t kept = g->nlevels;
            int rc = udp_tunnel(w, l4, be16(w->p + l4 + 2));
            if (rc == 0 || w->target) /* with csum_start past it, it must be a tunnel */
                return rc;
            g->nlevels = kept; /* not a tunnel after all: the datagrams themselves */
        }
        if (w->target && w->target != l4)
            return -EINVAL;
        lv->csum = 0;
        g->proto = INETCSUM_GSO_L4_UDP;
        g->hdr_len = (uint16_t)(l4 + 8);
        return 0;
    }
    case 47:
        return gre(w, lv, l4);
    case 4:
    case 41:
        return level(w, l4, proto == 4 ? ETH_IPV4 : ETH_IPV6);
    default: /* ICMP, SCTP, ...; fragments (44), ESP (50), AH (51): not segmented */
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

/* The pseudo-header sums of the levels' TCP and UDP headers, taken from the checksum parser, which
 * knows which destination a pseudo-header uses (an IPv4 source route's or an IPv6 routing
 * header's final one, RFC 791 and RFC 8200 8.1), less the length, which each segment adds.  0, or
 * -EPROTONOSUPPORT when the parser does not see a header the walk found. */
int ics_gso_pseudo(struct inetcsum_gso *g, const uint8_t *p, size_t avail, size_t total, enum inetcsum_link link,
                   size_t inner_nh)
{
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
        const uint32_t len = total - lv->l4_off;
        const uint8_t be_len[2] = {(uint8_t)(len >> 8), (uint8_t)len};
        lv->pseudo = inetcsum_sub(with_len, inetcsum_partial(be_len, 2, 0));
    }
    return 0;
}

int ics_gso_layout(struct inetcsum_gso *g, const uint8_t *p, size_t avail, size_t total, enum inetcsum_link link,
                   const struct ics_gso_marks *marks, int pseudo)
{
    *g = (struct inetcsum_gso){0};
    if (total > 0xFFFF + (size_t)ICS_GSO_MAX_HDR) /* no IP length reaches past this */
        return -EINVAL;
    struct walk w = {p, avail < total ? avail : total, total, 0, 0, 0, g};
    if (marks) {
        w.target = marks->target;
        w.outer_th = marks->outer_th;
        w.inner_nh = marks->inner_nh;
    }
    unsigned ethertype;
    size_t off;
    int rc = link_layer(&w, link, &ethertype, &off);
    if (rc == 0)
        rc = level(&w, off, ethertype);
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
