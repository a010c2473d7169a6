/* A super-packet described: from the virtio-net header that came with it (checked as Linux's
 * virtio_net_hdr_to_skb and the GSO code behind it check it), or from its headers alone. */
#include <errno.h>

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

int inetcsum_gso_from_vnet(struct inetcsum_gso *g, const void *pkt, size_t len, enum inetcsum_link link,
                           const struct inetcsum_vnet_hdr *h)
{
    const unsigned type = h->gso_type & (unsigned)~INETCSUM_VNET_GSO_ECN;
    const int partial = (h->flags & INETCSUM_VNET_F_NEEDS_CSUM) != 0;
    *g = (struct inetcsum_gso){0};
    if (type == INETCSUM_VNET_GSO_UDP)
        return -EPROTONOSUPPORT; /* UFO: removed from Linux in 4.14, back only as a compatibility path */
    if (type != INETCSUM_VNET_GSO_NONE && type != INETCSUM_VNET_GSO_TCPV4 && type != INETCSUM_VNET_GSO_TCPV6 &&
        type != INETCSUM_VNET_GSO_UDP_L4)
        return -EINVAL;
    if ((h->gso_type & INETCSUM_VNET_GSO_ECN) && type != INETCSUM_VNET_GSO_TCPV4 && type != INETCSUM_VNET_GSO_TCPV6)
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
    int rc = ics_gso_layout(g, pkt, len, len, link, partial ? h->csum_start : 0, 1);
    if (rc != 0)
        return rc;
    if (partial) {
        if (h->csum_offset != (g->proto == INETCSUM_GSO_L4_TCP ? 16 : 6))
            return -EINVAL;
        g->flags |= INETCSUM_GSO_PARTIAL;
    }
    if ((type == INETCSUM_VNET_GSO_TCPV4 && (g->proto != INETCSUM_GSO_L4_TCP || inner_version(g) != 4)) ||
        (type == INETCSUM_VNET_GSO_TCPV6 && (g->proto != INETCSUM_GSO_L4_TCP || inner_version(g) != 6)) ||
        (type == INETCSUM_VNET_GSO_UDP_L4 && g->proto != INETCSUM_GSO_L4_UDP))
        return -EINVAL;
    count_segments(g, type == INETCSUM_VNET_GSO_NONE ? 0 : h->gso_size);
    if (g->proto == INETCSUM_GSO_L4_UDP && g->segments > ICS_UDP_MAX_SEGMENTS)
        return -E2BIG;
    return 0;
}

int inetcsum_gso_describe(struct inetcsum_gso *g, const void *pkt, size_t len, enum inetcsum_link link,
                          size_t gso_size)
{
    if (gso_size == 0 || gso_size > 0xFFFF) {
        *g = (struct inetcsum_gso){0};
        return -EINVAL;
    }
    int rc = ics_gso_layout(g, pkt, len, len, link, 0, 1);
    if (rc == 0)
        count_segments(g, gso_size);
    return rc;
}
