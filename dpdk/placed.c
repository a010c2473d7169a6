/* Checksums placed by the metadata alone, as a device places them: for a tunnel the library's walk
 * does not follow (a VXLAN on Linux's old port 8472 as flannel sends it, GENEVE or any UDP
 * encapsulation on a port of its own, RTE_MBUF_F_TX_TUNNEL_UDP), the inner IP header is where
 * outer_l2_len + outer_l3_len + l2_len put it and its upper layer l3_len beyond, as a NIC with
 * tunnel offload takes them.  Each header is held to its own lengths first (the IP version the
 * flags name, the IPv4 header's length, the IP and UDP lengths within the packet, the protocol an
 * L4 request names); then, inside out, the inner upper layer's checksum, the inner IPv4 header's,
 * the outer IPv4 header's and last the tunnel's UDP checksum, which covers the inner checksums at
 * the values they will carry (the port's too: local checksum offload).  What the port does is
 * prepared for it as elsewhere (IPv4 zeroed, TCP/UDP seeded with the pseudo-header sum, SCTP
 * zeroed).  Segmentation still needs the walk. */
#include <errno.h>
#include <string.h>

#include <rte_ethdev.h>

#include "inetcsum_proto.h"
#include "internal.h"
#include "proto/pseudo.h"
#include "wire/wire.h"

/* One IP header at off of hlen bytes, held to its lengths: its version, its addresses (for a
 * pseudo-header), the bytes it carries (payload: what follows the hlen bytes, extension headers
 * counted in hlen) and the protocol its headers name (past IPv6 extension headers).  0 or a
 * refusal. */
struct ip_seen {
    unsigned version, proto;
    size_t payload;
    uint8_t addr[2 * ICS_IPV6_ADDR_LEN]; /* source then destination */
};

static uint32_t pseudo(const struct ip_seen *ip, unsigned proto, size_t len)
{
    return ip->version == 4 ? ics_pseudo_ipv4(ip->addr, ip->addr + ICS_IPV4_ADDR_LEN, (uint8_t)proto, (uint32_t)len, 0)
                            : ics_pseudo_ipv6(ip->addr, ip->addr + ICS_IPV6_ADDR_LEN, (uint8_t)proto, (uint32_t)len, 0);
}

static int ip_at(const struct inetcsum_dpdk_tx *tx, const struct rte_mbuf *m, unsigned index, const char *what,
                 size_t off, size_t hlen, struct ip_seen *ip)
{
    uint8_t buf[ICS_IPV6_HLEN];
    const uint8_t *h = ics_dpdk_read(m, off, ICS_IPV4_HLEN, buf);
    if (!h)
        return ics_dpdk_refuse(tx, index, EINVAL, "%s at %zu runs past the packet's %u bytes", what, off, m->pkt_len);
    ip->version = ics_ip_version(h);
    if (ip->version == 4) {
        const size_t tot = ics_get16(h + ICS_IPV4_TOT_LEN);
        if (ics_ipv4_hlen(h) != hlen || tot < hlen || off + tot > m->pkt_len)
            return ics_dpdk_refuse(tx, index, EINVAL, "%s at %zu: header %u bytes (metadata %zu), total length %zu in %u",
                                   what, off, ics_ipv4_hlen(h), hlen, tot, m->pkt_len);
        if (ics_get16(h + ICS_IPV4_FRAG_OFF) & ICS_IP_FRAGMENTED)
            return ics_dpdk_refuse(tx, index, EINVAL, "%s at %zu is a fragment", what, off);
        ip->payload = tot - hlen;
        ip->proto = h[ICS_IPV4_PROTOCOL];
        memcpy(ip->addr, h + ICS_IPV4_SADDR, 2 * ICS_IPV4_ADDR_LEN);
        return 0;
    }
    if (ip->version != 6 || hlen < ICS_IPV6_HLEN || !(h = ics_dpdk_read(m, off, ICS_IPV6_HLEN, buf)))
        return ics_dpdk_refuse(tx, index, EINVAL, "%s at %zu: version %u, metadata length %zu", what, off, ip->version,
                               hlen);
    const size_t plen = ics_get16(h + ICS_IPV6_PAYLOAD_LEN);
    if (plen < hlen - ICS_IPV6_HLEN || off + ICS_IPV6_HLEN + plen > m->pkt_len)
        return ics_dpdk_refuse(tx, index, EINVAL, "%s at %zu: payload length %zu, headers %zu, packet %u", what, off,
                               plen, hlen, m->pkt_len);
    ip->payload = plen - (hlen - ICS_IPV6_HLEN);
    memcpy(ip->addr, h + ICS_IPV6_SADDR, 2 * ICS_IPV6_ADDR_LEN);
    /* Extension headers to hlen: only those whose length a device reads the same way (hop-by-hop,
     * routing, destination options), so that the protocol named at their end is the one there. */
    unsigned next = h[ICS_IPV6_NEXTHDR];
    size_t at = off + ICS_IPV6_HLEN;
    while (at < off + hlen) {
        uint8_t eb[2];
        const uint8_t *e = ics_dpdk_read(m, at, 2, eb);
        if (!e || (next != ICS_IPPROTO_HOPOPTS && next != ICS_IPPROTO_ROUTING && next != ICS_IPPROTO_DSTOPTS))
            return ics_dpdk_refuse(tx, index, EPROTONOSUPPORT,
                                   "%s at %zu: IPv6 next header %u before the %zu bytes the metadata gives it", what, off,
                                   next, hlen);
        next = e[ICS_IPV6_OPT_NEXTHDR];
        at += ics_ipv6_opt_hlen(e);
    }
    if (at != off + hlen)
        return ics_dpdk_refuse(tx, index, EINVAL, "%s at %zu: its extension headers end at %zu, the metadata says %zu",
                               what, off, at - off, hlen);
    ip->proto = next;
    return 0;
}

/* An IPv4 header's checksum at off (hlen bytes), its field zeroed first.  The value, as stored. */
static uint16_t ipv4_checksum(struct rte_mbuf *m, size_t off, size_t hlen)
{
    static const uint16_t zero;
    ics_dpdk_write(m, off + ICS_IPV4_CHECK, &zero, 2);
    return (uint16_t)~ics_fold16(ics_dpdk_sum(m, off, hlen));
}

/* A field a checksum over it will count at a value other than the one it holds now (the port's to
 * write): the sum's correction, at rel bytes into the covered bytes. */
struct later {
    size_t at; /* packet offset */
    unsigned width;
    uint8_t now[4], final[4];
};

static uint32_t correction(uint32_t sum, const struct later *l, size_t start)
{
    const uint32_t delta = inetcsum_sub(inetcsum_partial(l->final, l->width, 0), inetcsum_partial(l->now, l->width, 0));
    return inetcsum_block_add(sum, delta, l->at - start);
}

int ics_dpdk_by_metadata(struct inetcsum_dpdk_tx *tx, struct rte_mbuf *m, unsigned index,
                         const struct ics_dpdk_placement *pl, uint32_t in_dev, uint32_t out_dev, uint64_t *flags)
{
    uint64_t f = *flags;
    struct later left[3]; /* inner fields the port writes, for the tunnel's UDP checksum */
    unsigned nleft = 0;
    const uint64_t l4req = f & RTE_MBUF_F_TX_L4_MASK;
    if (f & (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK)) {
        struct ip_seen ip;
        int rc = ip_at(tx, m, index, "the inner IP header", pl->l3, pl->l4 - pl->l3, &ip);
        if (rc)
            return rc;
        if (l4req) {
            const int tcp = l4req == RTE_MBUF_F_TX_TCP_CKSUM, udp = l4req == RTE_MBUF_F_TX_UDP_CKSUM;
            const unsigned proto = tcp ? ICS_IPPROTO_TCP : udp ? ICS_IPPROTO_UDP : ICS_IPPROTO_SCTP,
                           field = tcp ? ICS_TCP_CHECK : udp ? ICS_UDP_CHECK : ICS_SCTP_CHECK;
            size_t len = ip.payload;
            uint8_t hb[ICS_UDP_HLEN];
            const uint8_t *h = ics_dpdk_read(m, pl->l4, ICS_UDP_HLEN, hb);
            if (!h || len < (size_t)(tcp ? ICS_TCP_HLEN : udp ? ICS_UDP_HLEN : ICS_SCTP_HLEN) ||
                (udp && (ics_get16(h + ICS_UDP_LEN) < ICS_UDP_HLEN || ics_get16(h + ICS_UDP_LEN) > len)) ||
                ip.proto != proto)
                return ics_dpdk_refuse(tx, index, EINVAL,
                                       "the inner L4 header at %zu: protocol %u carried, %u asked; %zu bytes",
                                       pl->l4, ip.proto, proto, len);
            if (udp)
                len = ics_get16(h + ICS_UDP_LEN);
            const int port = (in_dev & (ip.version == 4 ? (tcp ? INETCSUM_OFL_TCP4 : udp ? INETCSUM_OFL_UDP4 : INETCSUM_OFL_SCTP4)
                                                        : (tcp ? INETCSUM_OFL_TCP6 : udp ? INETCSUM_OFL_UDP6 : INETCSUM_OFL_SCTP6))) != 0;
            struct later *l = &left[nleft];
            l->at = pl->l4 + field;
            l->width = proto == ICS_IPPROTO_SCTP ? 4 : 2;
            memset(l->now, 0, sizeof l->now);
            ics_dpdk_write(m, l->at, l->now, l->width); /* (the field counts as 0 in what covers it) */
            if (proto == ICS_IPPROTO_SCTP) {
                const uint32_t crc = ics_dpdk_crc32c(m, pl->l4, len, 0);
                for (int b = 0; b < 4; b++)
                    l->final[b] = (uint8_t)(crc >> (8 * b)); /* (stored little-endian) */
            } else {
                const uint32_t ph = pseudo(&ip, proto, len);
                uint16_t c = (uint16_t)~ics_fold16(ics_add32(ics_dpdk_sum(m, pl->l4, len), ph));
                if (udp)
                    c = ics_udp_field(c);
                memcpy(l->final, &c, 2);
                if (port) {
                    const uint16_t seed = ics_fold16(ph);
                    memcpy(l->now, &seed, 2);
                }
            }
            ics_dpdk_write(m, l->at, port ? l->now : l->final, l->width);
            if (port) {
                nleft++;
            } else {
                f &= ~RTE_MBUF_F_TX_L4_MASK;
                tx->stats.l4_csum++;
            }
        }
        if (f & RTE_MBUF_F_TX_IP_CKSUM) {
            if (ip.version != 4)
                return ics_dpdk_refuse(tx, index, EINVAL, "RTE_MBUF_F_TX_IP_CKSUM on an IPv6 header at %zu", pl->l3);
            struct later *l = &left[nleft];
            l->at = pl->l3 + ICS_IPV4_CHECK;
            l->width = 2;
            memset(l->now, 0, sizeof l->now);
            const uint16_t c = ipv4_checksum(m, pl->l3, pl->l4 - pl->l3);
            memcpy(l->final, &c, 2);
            if (in_dev & INETCSUM_OFL_IPV4) {
                nleft++; /* (left 0, as ipv4_checksum left it) */
            } else {
                ics_dpdk_write(m, l->at, &c, 2);
                f &= ~RTE_MBUF_F_TX_IP_CKSUM;
                tx->stats.ip_csum++;
            }
        }
    }
    if (f & (RTE_MBUF_F_TX_OUTER_IP_CKSUM | RTE_MBUF_F_TX_OUTER_UDP_CKSUM)) {
        struct ip_seen ip;
        int rc = ip_at(tx, m, index, "the outer IP header", pl->outer_l3, pl->outer_l4 - pl->outer_l3, &ip);
        if (rc)
            return rc;
        if (f & RTE_MBUF_F_TX_OUTER_IP_CKSUM) {
            if (ip.version != 4)
                return ics_dpdk_refuse(tx, index, EINVAL, "RTE_MBUF_F_TX_OUTER_IP_CKSUM on an IPv6 header at %zu",
                                       pl->outer_l3);
            const uint16_t c = ipv4_checksum(m, pl->outer_l3, pl->outer_l4 - pl->outer_l3);
            if (!(out_dev & INETCSUM_OFL_IPV4)) {
                ics_dpdk_write(m, pl->outer_l3 + ICS_IPV4_CHECK, &c, 2);
                f &= ~RTE_MBUF_F_TX_OUTER_IP_CKSUM;
                tx->stats.ip_csum++;
            }
        }
        if (f & RTE_MBUF_F_TX_OUTER_UDP_CKSUM) {
            uint8_t hb[ICS_UDP_HLEN];
            const uint8_t *h = ics_dpdk_read(m, pl->outer_l4, ICS_UDP_HLEN, hb);
            const size_t len = h ? ics_get16(h + ICS_UDP_LEN) : 0;
            if (!h || ip.proto != ICS_IPPROTO_UDP || len < ICS_UDP_HLEN || len > ip.payload)
                return ics_dpdk_refuse(tx, index, EINVAL, "RTE_MBUF_F_TX_OUTER_UDP_CKSUM: no UDP header at %zu",
                                       pl->outer_l4);
            const uint32_t ph = pseudo(&ip, ICS_IPPROTO_UDP, len);
            uint16_t c = 0;
            if (out_dev & (INETCSUM_OFL_UDP4 | INETCSUM_OFL_UDP6)) {
                c = ics_fold16(ph);
            } else {
                ics_dpdk_write(m, pl->outer_l4 + ICS_UDP_CHECK, &c, 2);
                uint32_t s = ics_add32(ics_dpdk_sum(m, pl->outer_l4, len), ph);
                for (unsigned k = 0; k < nleft; k++)
                    if (left[k].at >= pl->outer_l4 && left[k].at < pl->outer_l4 + len)
                        s = correction(s, &left[k], pl->outer_l4);
                c = ics_udp_field((uint16_t)~ics_fold16(s));
                f &= ~RTE_MBUF_F_TX_OUTER_UDP_CKSUM;
                tx->stats.l4_csum++;
            }
            ics_dpdk_write(m, pl->outer_l4 + ICS_UDP_CHECK, &c, 2);
        }
    }
    *flags = f;
    return 0;
}
