/* A super-packet described: from the virtio-net header that came with it (checked as Linux's
 * virtio_net_hdr_to_skb and the GSO code behind it check it), or from its headers alone. */
#include <errno.h>
#include <string.h>

#include "gso.h"

/* Linux's UDP_MAX_SEGMENTS (64 before 6.8, 128 since): more UDP segments in one packet are refused. */
#define ICS_UDP_MAX_SEGMENTS 128

/* The segment count once gso_size is known: one when the payload fits (not GSO at all). */
static void count_segments(struct inetcsum_gso *g, size_t gso_size)
{
    g->gso_size = (uint16_t)gso_size;
    g->segments = gso_size && g->payload_len > gso_size ? (uint32_t)((g->payload_len + gso_size - 1) / gso_size) : 1;
}

/* The segmented header's version: that of the IP header carrying it. */
static unsigned inner_version(const struct inetcsum_gso *g)
{
    return g->level[g->nlevels - 1].ip_version;
}

/* The UDP-tunnel GSO types' own rules (Linux's virtio_net_hdr_tnl_to_skb): one of IPv4 and IPv6,
 * carrying TCP or USO (not UFO), NEEDS_CSUM, the offsets in order.  0 or -EINVAL. */
static int tunnel_header_ok(const struct inetcsum_vnet_hdr *h, unsigned tunnel, unsigned type)
{
    const unsigned outer_min = tunnel == INETCSUM_VNET_GSO_UDP_TUNNEL_IPV4 ? 20 : 40;
    const unsigned inner_min = type == INETCSUM_VNET_GSO_TCPV6 ? 40 : 20;
    if (tunnel == (INETCSUM_VNET_GSO_UDP_TUNNEL_IPV4 | INETCSUM_VNET_GSO_UDP_TUNNEL_IPV6) ||
        type == INETCSUM_VNET_GSO_NONE || !(h->flags & INETCSUM_VNET_F_NEEDS_CSUM))
        return -EINVAL;
    if (h->outer_th_offset < outer_min || h->inner_nh_offset < h->outer_th_offset + 8u ||
        h->csum_start < h->inner_nh_offset + inner_min)
        return -EINVAL;
    return 0;
}

/* A packet passed as it is: one segment, no level rewritten (GSO_NONE, no checksum to complete,
 * not TCP or UDP). */
static int as_it_is(struct inetcsum_gso *g, size_t len)
{
    *g = (struct inetcsum_gso){0};
    g->payload_len = (uint32_t)len;
    g->segments = 1;
    return 0;
}

/* The caller's bound on the segment count, and for what a virtio-net header asks, Linux's
 * UDP_MAX_SEGMENTS (a capture's super-packet, cut to any size the user picks, has only the
 * first). */
static int within(const struct inetcsum_gso *g, uint32_t max_segs, int udp_bound)
{
    if (g->segments > (max_segs ? max_segs : INETCSUM_GSO_MAX_SEGS))
        return -E2BIG;
    return udp_bound && g->proto == INETCSUM_GSO_L4_UDP && g->segments > ICS_UDP_MAX_SEGMENTS ? -E2BIG : 0;
}

int inetcsum_gso_from_vnet(struct inetcsum_gso *g, const void *pkt, size_t len, enum inetcsum_link link,
                           const struct inetcsum_vnet_hdr *h)
{
    return inetcsum_gso_from_vnet_max(g, pkt, len, link, h, 0);
}

int inetcsum_gso_from_vnet_max(struct inetcsum_gso *g, const void *pkt, size_t len, enum inetcsum_link link,
                               const struct inetcsum_vnet_hdr *h, uint32_t max_segs)
{
    const unsigned tunnel = h->gso_type & (INETCSUM_VNET_GSO_UDP_TUNNEL_IPV4 | INETCSUM_VNET_GSO_UDP_TUNNEL_IPV6);
    const unsigned type = h->gso_type & ~(INETCSUM_VNET_GSO_ECN | tunnel);
    const int partial = (h->flags & INETCSUM_VNET_F_NEEDS_CSUM) != 0;
    *g = (struct inetcsum_gso){0};
    if (type == INETCSUM_VNET_GSO_UDP)
        return tunnel ? -EINVAL : -EPROTONOSUPPORT; /* UFO: removed from Linux in 4.14, back only as a
                                                     * compatibility path, never in a tunnel */
    if (type != INETCSUM_VNET_GSO_NONE && type != INETCSUM_VNET_GSO_TCPV4 && type != INETCSUM_VNET_GSO_TCPV6 &&
        type != INETCSUM_VNET_GSO_UDP_L4)
        return -EINVAL;
    if ((h->gso_type & INETCSUM_VNET_GSO_ECN) && type != INETCSUM_VNET_GSO_TCPV4 && type != INETCSUM_VNET_GSO_TCPV6)
        return -EINVAL;
    if (tunnel && tunnel_header_ok(h, tunnel, type) != 0)
        return -EINVAL;
    /* The checksum field must lie inside the packet, or completing it writes past the end. */
    if (partial && (size_t)h->csum_start + h->csum_offset + 2 > len)
        return -EINVAL;
    if (type == INETCSUM_VNET_GSO_UDP_L4 && !partial)
        return -EINVAL;
    if (type != INETCSUM_VNET_GSO_NONE && h->gso_size == 0)
        return -EINVAL;
    if (partial && h->csum_start == 0)
        return -EINVAL; /* no header can start at 0 with a link layer or IP before it */
    const struct ics_gso_marks marks = {partial ? h->csum_start : 0, tunnel ? h->outer_th_offset : 0,
                                        tunnel ? h->inner_nh_offset : 0};
    int rc = ics_gso_layout(g, pkt, len, len, link, &marks, 1);
    /* GSO_NONE with nothing to complete: Linux takes any packet so (ARP, ICMP, ...); so does
     * this, as one segment, the packet as it is. */
    if (rc == -EPROTONOSUPPORT && type == INETCSUM_VNET_GSO_NONE && !partial && !tunnel)
        return as_it_is(g, len);
    if (rc != 0)
        return rc;
    if (tunnel) { /* one UDP tunnel, where the offsets say, over the IP version the type says */
        const struct inetcsum_gso_level *outer = &g->level[0];
        if (g->nlevels != 2 || outer->l4 != INETCSUM_GSO_L4_UDP || outer->l4_off != h->outer_th_offset ||
            g->level[1].ip_off != h->inner_nh_offset ||
            outer->ip_version != (tunnel == INETCSUM_VNET_GSO_UDP_TUNNEL_IPV4 ? 4 : 6))
            return -EINVAL;
        /* UDP_TUNNEL_CSUM asks for the outer checksum even where the field is 0.  Without it Linux
         * copies the field into every segment unchanged; a field that is not 0 is computed here
         * instead, so that no segment leaves with a stale checksum. */
        if (h->flags & INETCSUM_VNET_F_UDP_TUNNEL_CSUM)
            g->level[0].csum = 1;
    }
    if (partial) {
        if (h->csum_offset != (g->proto == INETCSUM_GSO_L4_TCP ? ICS_TCP_CHECK : ICS_UDP_CHECK))
            return -EINVAL;
        g->flags |= INETCSUM_GSO_PARTIAL;
    }
    if ((type == INETCSUM_VNET_GSO_TCPV4 && (g->proto != INETCSUM_GSO_L4_TCP || inner_version(g) != 4)) ||
        (type == INETCSUM_VNET_GSO_TCPV6 && (g->proto != INETCSUM_GSO_L4_TCP || inner_version(g) != 6)) ||
        (type == INETCSUM_VNET_GSO_UDP_L4 && g->proto != INETCSUM_GSO_L4_UDP))
        return -EINVAL;
    count_segments(g, type == INETCSUM_VNET_GSO_NONE ? 0 : h->gso_size);
    return within(g, max_segs, 1);
}

int inetcsum_gso_describe(struct inetcsum_gso *g, const void *pkt, size_t len, enum inetcsum_link link,
                          size_t gso_size)
{
    if (gso_size == 0 || gso_size > 0xFFFF) {
        *g = (struct inetcsum_gso){0};
        return -EINVAL;
    }
    int rc = ics_gso_layout(g, pkt, len, len, link, NULL, 1);
    if (rc == 0) {
        count_segments(g, gso_size);
        rc = within(g, 0, 0);
    }
    return rc;
}

int inetcsum_gso_describe_iov(struct inetcsum_gso *g, const struct iovec *iov, size_t iovcnt,
                              enum inetcsum_link link, size_t gso_size)
{
    if (gso_size == 0 || gso_size > 0xFFFF) {
        *g = (struct inetcsum_gso){0};
        return -EINVAL;
    }
    /* The headers gathered (the most a segment repeats); the payload is only counted. */
    uint8_t headers[ICS_GSO_MAX_HDR];
    size_t total = 0, have = 0;
    for (size_t k = 0; k < iovcnt; k++) {
        const size_t take = iov[k].iov_len < sizeof headers - have ? iov[k].iov_len : sizeof headers - have;
        if (take)
            memcpy(headers + have, iov[k].iov_base, take);
        have += take;
        total += iov[k].iov_len;
    }
    int rc = ics_gso_layout(g, headers, have, total, link, NULL, 1);
    if (rc == 0) {
        count_segments(g, gso_size);
        rc = within(g, 0, 0);
    }
    return rc;
}
