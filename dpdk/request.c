/* One packet's software fallback: what its ol_flags ask for and where its l2_len, l3_len, ...
 * place it, held to the bytes; the packet layer's offload (inetcsum_offload_iov) asked for exactly
 * that, with the port's share left prepared for it; the walk's report held to the metadata; the
 * flags of what was done here cleared. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "inetcsum_packet.h"
#include "internal.h"
#include "proto/pseudo.h" /* the library's inline sums: per packet, a call would cost more */
#include "wire/wire.h"

/* mbuf header-length fields are bit-fields: l2_len 7 bits, l3_len 9. */
#define ICS_DPDK_L2_LEN_MAX 127u


int ics_dpdk_refuse(const struct inetcsum_dpdk_tx *tx, unsigned index, int err, const char *fmt, ...)
{
    if (rte_log_can_log(ics_dpdk_logtype, RTE_LOG_DEBUG)) {
        char why[200];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, sizeof why, fmt, ap);
        va_end(ap);
        ICS_DPDK_LOG(DEBUG, "port %u queue %u, packet %u of the burst not sent: %s\n", tx->port, tx->queue, index, why);
    }
    return -err;
}

#define bytes ics_dpdk_read

static const char *l4_request_name(uint64_t f)
{
    switch (f & RTE_MBUF_F_TX_L4_MASK) {
    case RTE_MBUF_F_TX_TCP_CKSUM:
        return "RTE_MBUF_F_TX_TCP_CKSUM";
    case RTE_MBUF_F_TX_UDP_CKSUM:
        return "RTE_MBUF_F_TX_UDP_CKSUM";
    case RTE_MBUF_F_TX_SCTP_CKSUM:
        return "RTE_MBUF_F_TX_SCTP_CKSUM";
    default:
        return "no L4 request";
    }
}

/* The IP protocol an L4 request is about, and the fewest header bytes it has. */
static unsigned l4_protocol(uint64_t f, size_t *min_len)
{
    switch (f & RTE_MBUF_F_TX_L4_MASK) {
    case RTE_MBUF_F_TX_TCP_CKSUM:
        *min_len = ICS_TCP_HLEN;
        return ICS_IPPROTO_TCP;
    case RTE_MBUF_F_TX_UDP_CKSUM:
        *min_len = ICS_UDP_HLEN;
        return ICS_IPPROTO_UDP;
    case RTE_MBUF_F_TX_SCTP_CKSUM:
        *min_len = ICS_SCTP_HLEN;
        return ICS_IPPROTO_SCTP;
    default:
        *min_len = 0;
        return 0;
    }
}

/* The IP header at off that `what` (a field name, for the log) places, of header length hlen:
 * its version, held to the IPV4/IPV6 flags given (v4_flag, v6_flag) and to hlen; with protocol
 * (not 0), the protocol it carries, where the header says it without extension headers.  0 or a
 * refusal. */
static int ip_header(const struct inetcsum_dpdk_tx *tx, const struct rte_mbuf *m, unsigned index, const char *what,
                     size_t off, size_t hlen, int want_v4, int want_v6, unsigned protocol, const char *proto_what)
{
    uint8_t buf[ICS_IPV6_HLEN];
    const uint8_t *h = bytes(m, off, 1, buf);
    if (!h)
        return ics_dpdk_refuse(tx, index, EINVAL, "%s puts the IP header at %zu, past the packet's %u bytes", what, off,
                      m->pkt_len);
    const unsigned version = ics_ip_version(h);
    if (version != 4 && version != 6)
        return ics_dpdk_refuse(tx, index, EINVAL, "%s puts the IP header at %zu, where the version nibble is %u", what, off,
                      version);
    if ((want_v4 && version != 4) || (want_v6 && version != 6))
        return ics_dpdk_refuse(tx, index, EINVAL, "the flags say IPv%d, the header at %zu (%s) is IPv%u", want_v4 ? 4 : 6, off,
                      what, version);
    const size_t need = version == 4 ? ICS_IPV4_HLEN : ICS_IPV6_HLEN;
    h = bytes(m, off, need, buf);
    if (!h)
        return ics_dpdk_refuse(tx, index, EINVAL, "the IPv%u header at %zu (%s) runs past the packet's %u bytes", version, off,
                      what, m->pkt_len);
    if (version == 4 && ics_ipv4_hlen(h) != hlen)
        return ics_dpdk_refuse(tx, index, EINVAL, "the IPv4 header at %zu (%s) is %u bytes, its length field says %zu", off,
                      what, ics_ipv4_hlen(h), hlen);
    if (version == 6 && hlen < ICS_IPV6_HLEN)
        return ics_dpdk_refuse(tx, index, EINVAL, "the IPv6 header at %zu (%s) is 40 bytes at least, its length field says %zu",
                      off, what, hlen);
    if (protocol) {
        /* With IPv6 extension headers the walk finds the protocol, and is held to it after. */
        const int said = version == 4 || hlen == ICS_IPV6_HLEN;
        const unsigned carried = version == 4 ? h[ICS_IPV4_PROTOCOL] : h[ICS_IPV6_NEXTHDR];
        if (said && carried != protocol)
            return ics_dpdk_refuse(tx, index, EINVAL, "%s on an IPv%u header at %zu that carries protocol %u", proto_what,
                          version, off, carried);
    }
    return 0;
}

/* Reads the metadata and checks it against the headers it names. */
static int place(const struct inetcsum_dpdk_tx *tx, const struct rte_mbuf *m, unsigned index, struct ics_dpdk_placement *pl)
{
    const uint64_t f = m->ol_flags;
    *pl = (struct ics_dpdk_placement){.flags = f, .tunnel = (f & RTE_MBUF_F_TX_TUNNEL_MASK) != 0};
    if (pl->tunnel) {
        pl->outer_l3 = m->outer_l2_len;
        pl->outer_l4 = (size_t)m->outer_l2_len + m->outer_l3_len;
        pl->l3 = pl->outer_l4 + m->l2_len;
        pl->depth = 1;
    } else {
        if (f & (RTE_MBUF_F_TX_OUTER_IP_CKSUM | RTE_MBUF_F_TX_OUTER_UDP_CKSUM))
            return ics_dpdk_refuse(tx, index, EINVAL, "an outer checksum request without a RTE_MBUF_F_TX_TUNNEL_* type");
        pl->l3 = m->l2_len;
    }
    pl->l4 = pl->l3 + m->l3_len;

    size_t l4_min;
    const unsigned protocol = l4_protocol(f, &l4_min);
    if (f & (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK)) {
        const char *what = pl->tunnel ? "outer_l2_len + outer_l3_len + l2_len" : "l2_len";
        int rc = ip_header(tx, m, index, what, pl->l3, m->l3_len,
                           (f & (RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM)) != 0, (f & RTE_MBUF_F_TX_IPV6) != 0,
                           protocol, l4_request_name(f));
        if (rc)
            return rc;
        if (protocol && (pl->l4 > m->pkt_len || l4_min > m->pkt_len - pl->l4))
            return ics_dpdk_refuse(tx, index, EINVAL, "%s: the header at l3_len %u beyond the IP header (%zu) runs past the packet's %u bytes",
                          l4_request_name(f), m->l3_len, pl->l4, m->pkt_len);
    }
    if (f & (RTE_MBUF_F_TX_OUTER_IP_CKSUM | RTE_MBUF_F_TX_OUTER_UDP_CKSUM)) {
        int rc = ip_header(tx, m, index, "outer_l2_len", pl->outer_l3, m->outer_l3_len,
                           (f & (RTE_MBUF_F_TX_OUTER_IPV4 | RTE_MBUF_F_TX_OUTER_IP_CKSUM)) != 0,
                           (f & RTE_MBUF_F_TX_OUTER_IPV6) != 0, (f & RTE_MBUF_F_TX_OUTER_UDP_CKSUM) ? ICS_IPPROTO_UDP : 0,
                           "RTE_MBUF_F_TX_OUTER_UDP_CKSUM");
        if (rc)
            return rc;
    }

    /* Without a tunnel flag, l2_len may still reach past an outer IP header to an inner one (the
     * mbuf guide's way of offloading inner checksums on a port that knows no tunnel): that IP
     * header is then one tunnel in.  Ethernet with up to two VLAN tags is read here; another
     * link layer (MPLS, PPPoE) is left to the walk, held to the metadata after. */
    if (!pl->tunnel) {
        uint8_t buf[2];
        size_t at = ICS_ETH_TYPE;
        const uint8_t *t = bytes(m, at, 2, buf);
        uint32_t type = t ? ics_get16(t) : 0;
        for (int tags = 0; t && tags < 2 && ics_ethertype_is_vlan(type); tags++) {
            at += ICS_VLAN_HLEN;
            t = bytes(m, at, 2, buf);
            type = t ? ics_get16(t) : 0;
        }
        const size_t first_ip = at + 2;
        if ((type == ICS_ETH_P_IPV4 || type == ICS_ETH_P_IPV6) && (f & (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK))) {
            if (pl->l3 < first_ip)
                return ics_dpdk_refuse(tx, index, EINVAL, "l2_len %u ends inside the link-layer header (IP starts at %zu)",
                              m->l2_len, first_ip);
            pl->depth = pl->l3 > first_ip;
        }
    }
    return 0;
}

/* The packet layer's checksum kinds of a DPDK L4 request, and of a port's L4 capabilities. */
static uint32_t l4_kinds(uint64_t f)
{
    switch (f & RTE_MBUF_F_TX_L4_MASK) {
    case RTE_MBUF_F_TX_TCP_CKSUM:
        return INETCSUM_OFL_TCP4 | INETCSUM_OFL_TCP6;
    case RTE_MBUF_F_TX_UDP_CKSUM:
        return INETCSUM_OFL_UDP4 | INETCSUM_OFL_UDP6;
    case RTE_MBUF_F_TX_SCTP_CKSUM:
        return INETCSUM_OFL_SCTP4 | INETCSUM_OFL_SCTP6;
    default:
        return 0;
    }
}

uint32_t ics_dpdk_capa_kinds(uint64_t capa)
{
    uint32_t k = 0;
    if (capa & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM)
        k |= INETCSUM_OFL_IPV4;
    if (capa & RTE_ETH_TX_OFFLOAD_TCP_CKSUM)
        k |= INETCSUM_OFL_TCP4 | INETCSUM_OFL_TCP6;
    if (capa & RTE_ETH_TX_OFFLOAD_UDP_CKSUM)
        k |= INETCSUM_OFL_UDP4 | INETCSUM_OFL_UDP6;
    if (capa & RTE_ETH_TX_OFFLOAD_SCTP_CKSUM)
        k |= INETCSUM_OFL_SCTP4 | INETCSUM_OFL_SCTP6;
    return k;
}

/* The check the walk found of `layer` at off and depth, or NULL. */
static const struct inetcsum_check *found(const struct inetcsum_report *r, enum inetcsum_layer layer, size_t off,
                                          unsigned depth)
{
    for (unsigned i = 0; i < r->count; i++)
        if (r->checks[i].layer == layer && r->checks[i].offset == off && r->checks[i].depth == depth &&
            !(r->checks[i].flags & INETCSUM_CHECK_QUOTED))
            return &r->checks[i];
    return NULL;
}

/* Whether the walk found any checksum inside a tunnel. */
static int went_inside(const struct inetcsum_report *r)
{
    for (unsigned i = 0; i < r->count; i++)
        if (r->checks[i].depth > 0 && !(r->checks[i].flags & INETCSUM_CHECK_QUOTED))
            return 1;
    return 0;
}

/* A request held to the walk: the check it asked for was found where the metadata says, and was
 * done (here, or left to the port).  *done: it was done here. */
static int honoured(const struct inetcsum_dpdk_tx *tx, const struct rte_mbuf *m, unsigned index,
                    const struct inetcsum_report *r, enum inetcsum_layer layer, size_t off, unsigned depth,
                    const char *request, int *done)
{
    const struct inetcsum_check *c = found(r, layer, off, depth);
    *done = 0;
    if (!c) {
        char why[120] = "";
        inetcsum_report_why(r, why, sizeof why);
        return ics_dpdk_refuse(tx, index, (r->flags & INETCSUM_FRAME_NOT_FOLLOWED) ? EPROTONOSUPPORT : EINVAL,
                      "%s: no %s header at %zu%s in the packet's headers%s%s", request, inetcsum_layer_name(layer), off,
                      depth ? " one tunnel in" : "", why[0] ? ": " : "", why);
    }
    if (!(c->flags & (INETCSUM_CHECK_WRITTEN | INETCSUM_CHECK_DEVICE))) {
        const char *why = (c->flags & INETCSUM_CHECK_FRAGMENT)    ? "it is in an IP fragment"
                          : (c->flags & INETCSUM_CHECK_TRUNCATED) ? "its length runs past the packet's end"
                          : (c->flags & INETCSUM_CHECK_MALFORMED) ? "its lengths contradict each other"
                                                                  : "it cannot be computed";
        return ics_dpdk_refuse(tx, index, EINVAL, "%s: the %s header at %zu (pkt_len %u): %s", request,
                      inetcsum_layer_name(layer), off, m->pkt_len, why);
    }
    *done = (c->flags & INETCSUM_CHECK_WRITTEN) != 0;
    return 0;
}

static enum inetcsum_layer l4_layer(uint64_t f)
{
    switch (f & RTE_MBUF_F_TX_L4_MASK) {
    case RTE_MBUF_F_TX_TCP_CKSUM:
        return INETCSUM_LAYER_TCP;
    case RTE_MBUF_F_TX_SCTP_CKSUM:
        return INETCSUM_LAYER_SCTP;
    default:
        return INETCSUM_LAYER_UDP;
    }
}

/* The common case, without the walk: the headers in the first segment, no tunnel, Ethernet with
 * up to two VLAN tags, IPv4 without options or fragments or IPv6 without extension headers at
 * l2_len, TCP or UDP at l3_len beyond, lengths that agree (the chain's too).  There the metadata
 * alone places every request, checked here byte by byte, and the two checksums are computed with
 * the library's own sums (test_dpdk holds the bytes to the packet layer's).  Anything else takes
 * the general path, which holds the walk's report to the metadata; nothing is written before the
 * packet is known to be the common case.  Returns 1 when done. */
static inline __attribute__((always_inline)) int common_case(struct inetcsum_dpdk_tx *tx, struct rte_mbuf *m, uint64_t f, uint32_t port)
{
    const uint64_t l4req = f & RTE_MBUF_F_TX_L4_MASK;
    if (l4req == RTE_MBUF_F_TX_SCTP_CKSUM ||
        (f & (RTE_MBUF_F_TX_TUNNEL_MASK | RTE_MBUF_F_TX_OUTER_IP_CKSUM | RTE_MBUF_F_TX_OUTER_UDP_CKSUM)))
        return 0;
    /* The headers in the first segment (a chain's usual shape), read there; the lengths are the
     * packet's. */
    uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
    const size_t len = m->pkt_len, l3 = m->l2_len, l4 = l3 + m->l3_len;
    if (m->data_len < l4 + ICS_TCP_HLEN || m->data_len > len)
        return 0;
    size_t at = ICS_ETH_TYPE;
    uint32_t type = ics_get16(p + at);
    for (int tags = 0; tags < 2 && ics_ethertype_is_vlan(type); tags++) {
        at += ICS_VLAN_HLEN;
        type = ics_get16(p + at);
    }
    if (at + 2 != l3)
        return 0;
    const uint8_t *ip = p + l3;
    size_t payload;
    unsigned protocol;
    if (type == ICS_ETH_P_IPV4 && ip[0] == ICS_IPV4_VER_IHL_PLAIN && m->l3_len == ICS_IPV4_HLEN &&
        !(f & RTE_MBUF_F_TX_IPV6)) {
        const size_t tot = ics_get16(ip + ICS_IPV4_TOT_LEN);
        if ((ics_get16(ip + ICS_IPV4_FRAG_OFF) & ICS_IP_FRAGMENTED) || tot < ICS_IPV4_HLEN || tot > len - l3)
            return 0;
        payload = tot - ICS_IPV4_HLEN;
        protocol = ip[ICS_IPV4_PROTOCOL];
    } else if (type == ICS_ETH_P_IPV6 && ics_ip_version(ip) == 6 && m->l3_len == ICS_IPV6_HLEN &&
               !(f & (RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM))) {
        payload = ics_get16(ip + ICS_IPV6_PAYLOAD_LEN);
        if (payload > len - l4)
            return 0;
        protocol = ip[ICS_IPV6_NEXTHDR];
    } else {
        return 0;
    }
    const size_t ulen = ics_get16(p + l4 + ICS_UDP_LEN); /* (read whatever the request: within data_len) */
    if (l4req == RTE_MBUF_F_TX_TCP_CKSUM && (protocol != ICS_IPPROTO_TCP || payload < ICS_TCP_HLEN))
        return 0;
    if (l4req == RTE_MBUF_F_TX_UDP_CKSUM && (protocol != ICS_IPPROTO_UDP || ulen < ICS_UDP_HLEN || ulen > payload))
        return 0;
    /* Here every request is placed: the IPv4 header at l3 (20 bytes), the TCP or UDP message at l4
     * to the end of the IP packet.  Each is computed as the packet layer computes it (the same
     * bytes: test_dpdk holds the two to each other), or prepared for the port. */
    const int ip_req = (f & RTE_MBUF_F_TX_IP_CKSUM) != 0, l4_owed = l4req && !(l4_kinds(f) & port);
    if (l4req) {
        /* (UDP's message is its own length's, as the walk takes it: bytes after it are not its) */
        const size_t l4_len = l4req == RTE_MBUF_F_TX_UDP_CKSUM ? ulen : payload,
                     field = l4 + (l4req == RTE_MBUF_F_TX_TCP_CKSUM ? ICS_TCP_CHECK : ICS_UDP_CHECK);
        const uint8_t proto = l4req == RTE_MBUF_F_TX_TCP_CKSUM ? ICS_IPPROTO_TCP : ICS_IPPROTO_UDP;
        const uint32_t ph = type == ICS_ETH_P_IPV4
                                ? ics_pseudo_ipv4(ip + ICS_IPV4_SADDR, ip + ICS_IPV4_DADDR, proto, (uint32_t)l4_len, 0)
                                : ics_pseudo_ipv6(ip + ICS_IPV6_SADDR, ip + ICS_IPV6_DADDR, proto, (uint32_t)l4_len, 0);
        uint16_t c;
        if (!l4_owed) {
            c = ics_fold16(ph); /* the port's: seeded with the pseudo-header sum */
        } else {
            if (l4 + l4_len > len)
                return 0;
            /* The message summed as it lies, its old field taken back out by adding its complement
             * (no store before the loads: a field zeroed first stalls the loads that read it back). */
            const uint16_t old = ics_load16(p + field);
            uint32_t sum;
            if (m->nb_segs == 1) {
                if (m->data_len != len)
                    return 0; /* one segment holding less than pkt_len: the general path refuses it */
                sum = l4_len < ICS_SMALL_MIN ? ics_partial_small(p + l4, l4_len, ph) : inetcsum_partial(p + l4, l4_len, ph);
            } else { /* the message from its first segment on, across the rest, in one walk */
                size_t done = m->data_len - l4 < l4_len ? m->data_len - l4 : l4_len, total = m->data_len;
                uint32_t acc = inetcsum_partial(p + l4, done, 0);
                unsigned segs = 1;
                for (const struct rte_mbuf *s = m->next, *next; s; s = next, segs++) {
                    /* The next mbuf's address read, and its first line asked for, before this
                     * one's sum: the walk's loads then overlap the sums instead of following
                     * them (the call is opaque: after it, s->next would be read again). */
                    next = s->next;
                    if (next) {
                        rte_prefetch0(next);
                        rte_prefetch0(&next->next); /* (the second line: the hop after) */
                    }
                    total += s->data_len;
                    const size_t take = s->data_len < l4_len - done ? s->data_len : l4_len - done;
                    if (take) { /* (up to the IP packet's end: an Ethernet pad may follow) */
                        const uint8_t *data = rte_pktmbuf_mtod(s, const uint8_t *);
                        /* (after an even number of bytes the piece is seeded with the sum so far:
                         * no swap, and no second call) */
                        acc = (done & 1) ? inetcsum_block_add(acc, inetcsum_partial(data, take, 0), done)
                                         : inetcsum_partial(data, take, acc);
                        done += take;
                    }
                }
                if (segs != m->nb_segs || total != len || done != l4_len)
                    return 0; /* a chain whose lengths disagree: the general path refuses it */
                sum = ics_add32(acc, ph);
            }
            c = (uint16_t)~ics_fold16(ics_add32(sum, (uint16_t)~old));
            if (proto == ICS_IPPROTO_UDP)
                c = ics_udp_field(c);
        }
        memcpy(p + field, &c, 2);
    }
    if (ip_req) {
        uint16_t c = 0; /* the port's: zeroed */
        if (!(port & INETCSUM_OFL_IPV4)) { /* the 20 bytes as five words, the old field taken out */
            const uint64_t hs = (uint64_t)ics_load32(ip) + ics_load32(ip + 4) + ics_load32(ip + 8) +
                                ics_load32(ip + 12) + ics_load32(ip + 16) + (uint16_t)~ics_load16(ip + ICS_IPV4_CHECK);
            c = (uint16_t)~ics_fold16(ics_reduce64(hs));
            f &= ~RTE_MBUF_F_TX_IP_CKSUM;
            tx->stats.ip_csum++;
        }
        memcpy(p + l3 + ICS_IPV4_CHECK, &c, 2);
    }
    if (l4_owed) {
        f &= ~RTE_MBUF_F_TX_L4_MASK;
        tx->stats.l4_csum++;
    }
    m->ol_flags = f;
    tx->stats.prepared++;
    return 1;
}


int ics_dpdk_insert_vlan(struct inetcsum_dpdk_tx *tx, struct rte_mbuf *m, unsigned index)
{
    if (!ics_dpdk_vlan_owed(tx, m))
        return 0;
    const int qinq = (m->ol_flags & RTE_MBUF_F_TX_QINQ) != 0;
    const unsigned tags = qinq ? 2u * ICS_VLAN_HLEN : ICS_VLAN_HLEN;
    const char *request = qinq ? "RTE_MBUF_F_TX_QINQ" : "RTE_MBUF_F_TX_VLAN";
    /* As DPDK's rte_vlan_insert, but for any chain: its does not take a first segment shorter than
     * the MAC addresses, and reads a chain without checking it. */
    struct iovec *iov;
    unsigned nseg;
    int rc = ics_dpdk_packet_iov(tx, m, index, &iov, &nseg);
    if (rc)
        return rc;
    if (m->pkt_len < ICS_ETH_HLEN)
        return ics_dpdk_refuse(tx, index, EINVAL, "%s on a packet of %u bytes", request, m->pkt_len);
    if (!RTE_MBUF_DIRECT(m) || rte_mbuf_refcnt_read(m) > 1)
        return ics_dpdk_refuse(tx, index, EINVAL, "%s: a shared or indirect mbuf cannot take the tag", request);
    const int tunnel = (m->ol_flags & RTE_MBUF_F_TX_TUNNEL_MASK) != 0;
    if ((tunnel ? m->outer_l2_len : m->l2_len) + tags > ICS_DPDK_L2_LEN_MAX)
        return ics_dpdk_refuse(tx, index, EINVAL, "%s: %s %u cannot grow by the tags' %u bytes", request,
                               tunnel ? "outer_l2_len" : "l2_len", tunnel ? m->outer_l2_len : m->l2_len, tags);
    uint8_t head[ICS_ETH_TYPE + 2 * ICS_VLAN_HLEN];
    const uint8_t *mac = rte_pktmbuf_read(m, 0, ICS_ETH_TYPE, head); /* (a pointer into the mbuf when contiguous) */
    if (mac != head)
        memcpy(head, mac, ICS_ETH_TYPE);
    if (!rte_pktmbuf_prepend(m, (uint16_t)tags))
        return ics_dpdk_refuse(tx, index, ENOSPC, "%s: no headroom for the tags (%u bytes)", request,
                               rte_pktmbuf_headroom(m));
    uint8_t *t = head + ICS_ETH_TYPE; /* each tag: its TPID, then its TCI */
    if (qinq) { /* the service tag first */
        ics_put16(t, ICS_ETH_P_8021AD);
        ics_put16(t + 2, m->vlan_tci_outer);
        t += ICS_VLAN_HLEN;
    }
    ics_put16(t, ICS_ETH_P_8021Q);
    ics_put16(t + 2, m->vlan_tci);
    ics_dpdk_write(m, 0, head, ICS_ETH_TYPE + tags); /* the addresses moved to the new start, the tags after them */
    if (tunnel)
        m->outer_l2_len = (uint8_t)(m->outer_l2_len + tags);
    else
        m->l2_len = (uint8_t)(m->l2_len + tags);
    m->ol_flags &= ~(RTE_MBUF_F_TX_VLAN | RTE_MBUF_F_TX_QINQ);
    tx->stats.vlan_inserted++;
    return 0;
}

/* Every packet but the common case without a tag to insert: the tag, then the walk. */
static __attribute__((noinline)) int prepare_general(struct inetcsum_dpdk_tx *tx, struct rte_mbuf *m, unsigned index)
{
    int vrc = ics_dpdk_vlan_owed(tx, m) ? ics_dpdk_insert_vlan(tx, m, index) : 0;
    if (vrc)
        return vrc;
    uint64_t f = m->ol_flags;
    if (!(f & (ICS_DPDK_CSUM_REQUESTS | ICS_DPDK_SEG_REQUESTS))) { /* the tag was all */
        tx->stats.prepared++;
        return 0;
    }
    if (!(f & ICS_DPDK_SEG_REQUESTS) && common_case(tx, m, f, tx->caps.kinds))
        return 0;
    if (f & ICS_DPDK_SEG_REQUESTS)
        return ics_dpdk_refuse(tx, index, EPROTONOSUPPORT, "%s on a port without it: segmentation in software is not done yet",
                      (f & RTE_MBUF_F_TX_TCP_SEG) ? "RTE_MBUF_F_TX_TCP_SEG" : "RTE_MBUF_F_TX_UDP_SEG");
    /* The chain held to its lengths first: every read after stays inside its data
     * (rte_pktmbuf_read walks off the end of a chain shorter than pkt_len says). */
    struct iovec *iov;
    unsigned nseg;
    int rc = ics_dpdk_packet_iov(tx, m, index, &iov, &nseg);
    if (rc)
        return rc;
    struct ics_dpdk_placement pl;
    if ((rc = place(tx, m, index, &pl)))
        return rc;

    const uint32_t port = tx->caps.kinds;
    uint32_t in_req = l4_kinds(f) | ((f & RTE_MBUF_F_TX_IP_CKSUM) ? INETCSUM_OFL_IPV4 : 0u), in_dev = in_req & port;
    uint32_t out_req = 0, out_dev = 0;
    if (f & RTE_MBUF_F_TX_OUTER_IP_CKSUM) {
        out_req |= INETCSUM_OFL_IPV4;
        out_dev |= (tx->capa & RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM) ? INETCSUM_OFL_IPV4 : 0u;
    }
    if (f & RTE_MBUF_F_TX_OUTER_UDP_CKSUM) {
        out_req |= INETCSUM_OFL_UDP4 | INETCSUM_OFL_UDP6;
        out_dev |= (tx->capa & RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM) ? INETCSUM_OFL_UDP4 | INETCSUM_OFL_UDP6 : 0u;
    }
    /* A port that knows no tunnel takes the packet flattened (the outer headers in l2_len), which
     * the 7-bit l2_len must hold; else the inner checksums are done here too. */
    const int unaware = pl.tunnel && !tx->caps.tunnel_aware;
    const size_t flat_l2 = pl.l3;
    if (unaware && (in_dev == 0 || flat_l2 > ICS_DPDK_L2_LEN_MAX))
        in_dev = 0;

    /* Only the levels the metadata names: what looks like a tunnel inside the inner packet is its
     * payload to a device, and stays as it is. */
    struct inetcsum_offload o = {in_req, in_dev, INETCSUM_OFFLOAD_TWO_LEVELS};
    if (pl.depth) {
        o.request = out_req | INETCSUM_OFL_INNER(in_req);
        o.device = out_dev | INETCSUM_OFL_INNER(in_dev);
    }
    struct inetcsum_report r;
    inetcsum_offload_iov(iov, nseg, INETCSUM_LINK_ETHERNET, &o, &r);

    /* A tunnel the walk does not follow (a UDP port it does not know, a protocol it does not
     * decode): it found nothing inside, where the metadata puts an inner packet.  The metadata
     * alone then places the inner headers, as it does for a device, and every request is
     * computed by it (the outer ones again: the walk summed the inner bytes before their
     * checksums were in).  Inner headers found elsewhere than the metadata says are a
     * contradiction, refused below. */
    if (pl.depth && (f & (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK)) && !went_inside(&r)) {
        if ((rc = ics_dpdk_by_metadata(tx, m, index, &pl, in_dev, out_dev, &f)))
            return rc;
        tx->stats.by_metadata++;
        goto flatten;
    }

    /* Every request held to the walk, and what was done here taken off the flags. */
    const struct {
        uint64_t mask; /* the request's bits */
        enum inetcsum_layer layer;
        size_t off;
        unsigned depth;
        const char *name;
        uint64_t *count;
    } requests[] = {
        {RTE_MBUF_F_TX_IP_CKSUM, INETCSUM_LAYER_IPV4, pl.l3, pl.depth, "RTE_MBUF_F_TX_IP_CKSUM", &tx->stats.ip_csum},
        {RTE_MBUF_F_TX_L4_MASK, l4_layer(f), pl.l4, pl.depth, l4_request_name(f), &tx->stats.l4_csum},
        {RTE_MBUF_F_TX_OUTER_IP_CKSUM, INETCSUM_LAYER_IPV4, pl.outer_l3, 0, "RTE_MBUF_F_TX_OUTER_IP_CKSUM",
         &tx->stats.ip_csum},
        {RTE_MBUF_F_TX_OUTER_UDP_CKSUM, INETCSUM_LAYER_UDP, pl.outer_l4, 0, "RTE_MBUF_F_TX_OUTER_UDP_CKSUM",
         &tx->stats.l4_csum},
    };
    for (unsigned q = 0; q < sizeof requests / sizeof requests[0]; q++) {
        if (!(f & requests[q].mask))
            continue;
        int done;
        rc = honoured(tx, m, index, &r, requests[q].layer, requests[q].off, requests[q].depth, requests[q].name, &done);
        if (rc)
            return rc;
        if (done) { /* (an L4 request cleared is RTE_MBUF_F_TX_L4_NO_CKSUM) */
            f &= ~requests[q].mask;
            ++*requests[q].count;
        }
    }
flatten:
    if (unaware) {
        /* What is left is the port's: the inner requests, on the flattened form; with none left
         * the tunnel's metadata is dropped too (such a port may refuse a tunnel flag). */
        if (f & (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK)) {
            m->l2_len = flat_l2 & ICS_DPDK_L2_LEN_MAX;
            tx->stats.tunnel_flattened++;
        }
        m->outer_l2_len = 0;
        m->outer_l3_len = 0;
        f &= ~(RTE_MBUF_F_TX_TUNNEL_MASK | RTE_MBUF_F_TX_OUTER_IPV4 | RTE_MBUF_F_TX_OUTER_IPV6 |
               RTE_MBUF_F_TX_OUTER_IP_CKSUM | RTE_MBUF_F_TX_OUTER_UDP_CKSUM);
    }
    m->ol_flags = f;
    tx->stats.prepared++;
    return 0;
}

/* The common case first, in a function of its own; the rest is a tail call.  Inlined into the
 * general path, it shared that path's stack frame (1.2 KB, six saved registers) and spilled its
 * own values: with the port's checksum kinds worked out per packet (now tx->caps.kinds), 30 of
 * the 311 instructions a 64-byte TCP/IPv4 packet took (callgrind), 86 -> 74 TSC ticks on the
 * Zen 3 guest (docs/dpdk.md). */
int ics_dpdk_prepare(struct inetcsum_dpdk_tx *tx, struct rte_mbuf *m, unsigned index)
{
    const uint64_t f = m->ol_flags;
    if ((f & ICS_DPDK_CSUM_REQUESTS) && !(f & ICS_DPDK_SEG_REQUESTS) && !ics_dpdk_vlan_owed(tx, m) &&
        common_case(tx, m, f, tx->caps.kinds))
        return 0;
    return prepare_general(tx, m, index);
}
