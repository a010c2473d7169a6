/* The receive side: what a port did not check (its ol_flags say UNKNOWN) checked here by the
 * packet layer's walk, and what a virtual port delivered unfinished (L4 NONE: valid data, the
 * checksum field holding the pseudo-header sum, as virtio and vhost deliver a guest's or a host's
 * packet) completed on request. */
#include <errno.h>
#include <stdlib.h>

#include <rte_mbuf_ptype.h>

#include "inetcsum_packet.h"
#include "internal.h"

/* The first check of a kind of layer at depth, outside quotes, or NULL. */
static const struct inetcsum_check *at_depth(const struct inetcsum_report *r, unsigned depth, int l4)
{
    for (unsigned i = 0; i < r->count; i++) {
        const struct inetcsum_check *c = &r->checks[i];
        if (c->depth != depth || (c->flags & INETCSUM_CHECK_QUOTED))
            continue;
        const int is_l4 = c->layer == INETCSUM_LAYER_TCP || c->layer == INETCSUM_LAYER_UDP ||
                          c->layer == INETCSUM_LAYER_SCTP;
        if (l4 ? is_l4 : c->layer == INETCSUM_LAYER_IPV4)
            return c;
    }
    return NULL;
}

/* The packet layer's offload kinds of a check, for asking for it alone (both IP versions' kinds:
 * the walk knows which it is). */
static uint32_t kind_of(const struct inetcsum_check *c)
{
    switch (c->layer) {
    case INETCSUM_LAYER_IPV4:
        return INETCSUM_OFL_IPV4;
    case INETCSUM_LAYER_TCP:
        return INETCSUM_OFL_TCP4 | INETCSUM_OFL_TCP6;
    case INETCSUM_LAYER_UDP:
        return INETCSUM_OFL_UDP4 | INETCSUM_OFL_UDP6;
    default:
        return INETCSUM_OFL_SCTP4 | INETCSUM_OFL_SCTP6;
    }
}

/* A verdict as an RX flag's state: good, bad, or 0 when nothing can be said (truncated, a
 * fragment's first part). */
enum state { UNSAID, GOOD, BAD };

static enum state state_of(const struct inetcsum_check *c)
{
    if (!c)
        return UNSAID;
    switch (c->status) {
    case INETCSUM_GOOD:
    case INETCSUM_ABSENT: /* an IPv4 UDP 0: no checksum sent, the datagram accepted (RFC 768) */
        return GOOD;
    case INETCSUM_BAD:
    case INETCSUM_PARTIAL:
    case INETCSUM_ILLEGAL:
        return BAD;
    default:
        return UNSAID;
    }
}

static uint64_t set_state(uint64_t f, uint64_t mask, uint64_t good, uint64_t bad, enum state s)
{
    if (s == UNSAID)
        return f;
    return (f & ~mask) | (s == GOOD ? good : bad);
}

/* Completes the check c of the packet in iov (computed over what the packet holds: the data is
 * valid, only the field is not). */
static void complete(const struct iovec *iov, unsigned n, const struct inetcsum_check *c)
{
    const uint32_t kind = kind_of(c);
    struct inetcsum_offload o = {c->depth ? INETCSUM_OFL_INNER(kind) : kind, 0, INETCSUM_OFFLOAD_TWO_LEVELS};
    inetcsum_offload_iov(iov, n, INETCSUM_LINK_ETHERNET, &o, NULL);
}

uint16_t inetcsum_dpdk_rx_verify(struct rte_mbuf **pkts, uint16_t n, unsigned flags)
{
    uint16_t read = 0;
    struct ics_dpdk_scratch sc = {NULL, 0};
    struct iovec one;
    for (uint16_t i = 0; i < n; i++) {
        struct rte_mbuf *m = pkts[i];
        uint64_t f = m->ol_flags;
        const uint64_t ip = f & RTE_MBUF_F_RX_IP_CKSUM_MASK, l4 = f & RTE_MBUF_F_RX_L4_CKSUM_MASK;
        const int tunnel = (m->packet_type & RTE_PTYPE_TUNNEL_MASK) != 0;
        /* An outer L4 state is a question only for a tunnel in UDP (packet_type's outer L4). */
        const int udp_tunnel = tunnel && (m->packet_type & RTE_PTYPE_L4_MASK) == RTE_PTYPE_L4_UDP;
        const uint64_t outer_l4 = udp_tunnel ? f & RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK : RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD;
        const int complete_ip = (flags & INETCSUM_DPDK_RX_COMPLETE) && ip == RTE_MBUF_F_RX_IP_CKSUM_NONE;
        const int complete_l4 = (flags & INETCSUM_DPDK_RX_COMPLETE) && l4 == RTE_MBUF_F_RX_L4_CKSUM_NONE;
        if (ip != RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN && l4 != RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN &&
            outer_l4 != RTE_MBUF_F_RX_OUTER_L4_CKSUM_UNKNOWN && !complete_ip && !complete_l4)
            continue; /* the port said all there is to say */

        struct iovec *iov = &one;
        unsigned nseg = 1;
        if (m->nb_segs == 1 && m->pkt_len == m->data_len) {
            one.iov_base = rte_pktmbuf_mtod(m, void *);
            one.iov_len = m->data_len;
        } else if (ics_dpdk_chain_iov(&sc, m, &iov, &nseg) != 0) {
            continue; /* a chain whose lengths disagree, or no memory: left as the port said */
        }
        read++;
        /* The port's IP and L4 states are about the inner headers of a tunnel it recognised
         * (packet_type), the outer L4 state about the tunnel's UDP header. */
        const unsigned depth = tunnel ? 1u : 0u;
        struct inetcsum_report r;
        inetcsum_verify_iov(iov, nseg, 0, INETCSUM_LINK_ETHERNET, 0, &r);
        const struct inetcsum_check *ip_check = at_depth(&r, depth, 0), *l4_check = at_depth(&r, depth, 1);
        if (complete_l4 && l4_check && !(l4_check->flags & (INETCSUM_CHECK_FRAGMENT | INETCSUM_CHECK_TRUNCATED |
                                                            INETCSUM_CHECK_MALFORMED))) {
            complete(iov, nseg, l4_check);
            f = (f & ~RTE_MBUF_F_RX_L4_CKSUM_MASK) | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
        } else if (l4 == RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN) {
            f = set_state(f, RTE_MBUF_F_RX_L4_CKSUM_MASK, RTE_MBUF_F_RX_L4_CKSUM_GOOD, RTE_MBUF_F_RX_L4_CKSUM_BAD,
                          state_of(l4_check));
        }
        if (complete_ip && ip_check && !(ip_check->flags & (INETCSUM_CHECK_TRUNCATED | INETCSUM_CHECK_MALFORMED))) {
            complete(iov, nseg, ip_check);
            f = (f & ~RTE_MBUF_F_RX_IP_CKSUM_MASK) | RTE_MBUF_F_RX_IP_CKSUM_GOOD;
        } else if (ip == RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN) {
            f = set_state(f, RTE_MBUF_F_RX_IP_CKSUM_MASK, RTE_MBUF_F_RX_IP_CKSUM_GOOD, RTE_MBUF_F_RX_IP_CKSUM_BAD,
                          state_of(ip_check));
        }
        if (tunnel) {
            if (udp_tunnel && outer_l4 == RTE_MBUF_F_RX_OUTER_L4_CKSUM_UNKNOWN) {
                const struct inetcsum_check *c = at_depth(&r, 0, 1);
                f = set_state(f, RTE_MBUF_F_RX_OUTER_L4_CKSUM_MASK, RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD,
                              RTE_MBUF_F_RX_OUTER_L4_CKSUM_BAD, c && c->layer == INETCSUM_LAYER_UDP ? state_of(c) : UNSAID);
            }
            /* The outer IPv4 header has only a BAD state (no UNKNOWN to answer): said when bad. */
            if (state_of(at_depth(&r, 0, 0)) == BAD)
                f |= RTE_MBUF_F_RX_OUTER_IP_CKSUM_BAD;
        }
        m->ol_flags = f;
    }
    free(sc.iov);
    return read;
}
