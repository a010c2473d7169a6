/* Software segmentation for a port without TSO (or USO, or the tunnel's TSO): the packet layer's
 * description of the super-packet held to the mbuf's metadata, then the library's one segmentation
 * (lib/gso: each segment's headers rewritten as Linux's GSO rewrites them), each segment with the
 * checksums the port has left to it and its flags and lengths set for that.  Two forms:
 *   - zero-copy, on a port that takes chains (RTE_ETH_TX_OFFLOAD_MULTI_SEGS): each segment a
 *     header mbuf followed by indirect mbufs attached to the super-packet's own segments (as
 *     rte_gso builds them), its payload summed where it lies, or not read at all when the port
 *     computes the checksum;
 *   - copied, elsewhere: one mbuf a segment, the payload copied and summed in one pass.
 * docs/dpdk.md has the two measured side by side. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "internal.h"

#define ICS_DPDK_L2_LEN_MAX 127u

/* From this many payload bytes a segment, zero-copy segments beat copied ones.  Measured on the
 * Zen 5 guest (inetcsum bench dpdk, a 64 KB TCP/IPv4 packet, every checksum in software): at a
 * 1,448-byte MSS copying takes 2.02 us and zero-copy 2.54 (an indirect mbuf's attach and detach,
 * two atomic updates of the shared mbuf's count, and a second mbuf from the pool cost more than
 * copying 1,448 bytes while summing them); at 8,948 bytes 1.02 against 0.71.  The two lines cross
 * near 3 KB; 4 KiB leaves room for other cores until they are measured. */
#define ICS_DPDK_ZERO_COPY_MIN 4096u

/* Grows the array whose pointer is at `field` (any object pointer's address) to n elements of
 * size bytes: 0, or -ENOMEM (the array as it was).  The pointer is read and written as bytes, so
 * no pointer type is punned. */
static int grow(void *field, unsigned n, size_t size)
{
    void *old;
    memcpy(&old, field, sizeof old);
    void *p = realloc(old, n * size);
    if (!p)
        return -ENOMEM;
    memcpy(field, &p, sizeof p);
    return 0;
}

int ics_dpdk_room_for(struct inetcsum_dpdk_tx *tx, unsigned n)
{
    if (n <= tx->segs_cap)
        return 0;
    if (grow(&tx->segs, n, sizeof *tx->segs) || grow(&tx->seg_bufs, n, sizeof *tx->seg_bufs) ||
        grow(&tx->backlog, n, sizeof *tx->backlog))
        return -ENOMEM;
    tx->segs_cap = n;
    return 0;
}

/* The description held to the metadata: the segmented header where l2_len and l3_len put it, of
 * l4_len bytes; with a tunnel flag, one tunnel whose outer IP header is at outer_l2_len. */
static int matches(const struct inetcsum_dpdk_tx *tx, const struct rte_mbuf *m, unsigned index,
                   const struct inetcsum_gso *g, int tcp, int tunnel)
{
    const char *req = tcp ? "RTE_MBUF_F_TX_TCP_SEG" : "RTE_MBUF_F_TX_UDP_SEG";
    if (g->proto != (tcp ? INETCSUM_GSO_L4_TCP : INETCSUM_GSO_L4_UDP))
        return ics_dpdk_refuse(tx, index, EINVAL, "%s on a packet whose innermost upper layer is %s", req,
                               g->proto == INETCSUM_GSO_L4_TCP ? "TCP" : "UDP");
    const struct inetcsum_gso_level *in = &g->level[g->nlevels - 1];
    const size_t l3 = (tunnel ? (size_t)m->outer_l2_len + m->outer_l3_len : 0) + m->l2_len;
    if (in->ip_off != l3 || in->l4_off != l3 + m->l3_len)
        return ics_dpdk_refuse(tx, index, EINVAL,
                               "%s: the headers put IP at %u and %s at %u, the metadata at %zu and %zu", req,
                               in->ip_off, tcp ? "TCP" : "UDP", in->l4_off, l3, l3 + m->l3_len);
    const size_t l4_len = (size_t)g->hdr_len - in->l4_off;
    if (m->l4_len != l4_len && !(m->l4_len == 0 && !tcp))
        return ics_dpdk_refuse(tx, index, EINVAL, "%s: l4_len %u, the %s header is %zu bytes", req, m->l4_len,
                               tcp ? "TCP" : "UDP", l4_len);
    if ((m->ol_flags & (RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM)) && in->ip_version != 4)
        return ics_dpdk_refuse(tx, index, EINVAL, "%s: IPv4 flags on an IPv6 header", req);
    if ((m->ol_flags & RTE_MBUF_F_TX_IPV6) && in->ip_version != 6)
        return ics_dpdk_refuse(tx, index, EINVAL, "%s: RTE_MBUF_F_TX_IPV6 on an IPv4 header", req);
    if (tunnel) {
        const struct inetcsum_gso_level *out = &g->level[0];
        if (g->nlevels != 2 || out->ip_off != m->outer_l2_len ||
            (out->l4 != INETCSUM_GSO_L4_NONE && out->l4_off != (size_t)m->outer_l2_len + m->outer_l3_len))
            return ics_dpdk_refuse(tx, index, EINVAL,
                                   "%s: a tunnel flag, the headers have %u IP levels (the outer at %u, the metadata "
                                   "puts it at %u)",
                                   req, g->nlevels, g->level[0].ip_off, m->outer_l2_len);
        if ((m->ol_flags & RTE_MBUF_F_TX_OUTER_UDP_CKSUM) && out->l4 != INETCSUM_GSO_L4_UDP)
            return ics_dpdk_refuse(tx, index, EINVAL, "RTE_MBUF_F_TX_OUTER_UDP_CKSUM on a tunnel without UDP");
    } else if (g->nlevels > 2) {
        return ics_dpdk_refuse(tx, index, EPROTONOSUPPORT, "%s: %u levels of IP, one tunnel at most", req,
                               g->nlevels);
    }
    return 0;
}

/* The payload of each segment as pieces of m's own segments: counted (ind NULL: *pieces, and the
 * most one segment needs in *most), or attached to the indirect mbufs ind[] and chained after the
 * header mbufs hdr[] (the segments' lengths set). */
static void payload_pieces(struct rte_mbuf *m, const struct inetcsum_gso *g, struct rte_mbuf **hdr,
                           struct rte_mbuf **ind, unsigned *pieces, unsigned *most)
{
    const size_t start = g->hdr_len, step = g->segments > 1 ? g->gso_size : g->payload_len;
    unsigned k = 0, in_seg = 0;
    *most = 0;
    if (g->payload_len == 0) {
        *pieces = 0;
        return;
    }
    uint32_t i = 0;
    size_t seg_end = start + (step < g->payload_len ? step : g->payload_len), at = 0;
    struct rte_mbuf *tail = hdr ? hdr[0] : NULL;
    for (struct rte_mbuf *s = m; s && i < g->segments; at += s->data_len, s = s->next) {
        const size_t end = at + s->data_len;
        for (size_t lo = at > start ? at : start; lo < end && i < g->segments;) {
            const size_t hi = end < seg_end ? end : seg_end;
            if (ind) {
                struct rte_mbuf *mi = ind[k];
                rte_pktmbuf_attach(mi, s);
                mi->ol_flags &= RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL; /* (attach copied s's requests) */
                mi->data_off = (uint16_t)(mi->data_off + (lo - at));
                mi->data_len = (uint16_t)(hi - lo);
                mi->pkt_len = mi->data_len;
                tail->next = mi;
                tail = mi;
                hdr[i]->nb_segs++;
                hdr[i]->pkt_len += mi->data_len;
            }
            k++;
            if (++in_seg > *most)
                *most = in_seg;
            lo = hi;
            if (lo == seg_end) { /* the next segment's payload starts here */
                in_seg = 0;
                if (++i < g->segments) {
                    const size_t left = start + g->payload_len - seg_end;
                    seg_end += step < left ? step : left;
                    if (hdr)
                        tail = hdr[i];
                }
            }
        }
    }
    *pieces = k;
}

/* Grows the indirect-mbuf scratch to n. */
static int room_for_pieces(struct inetcsum_dpdk_tx *tx, unsigned n)
{
    if (n <= tx->pieces_cap)
        return 0;
    if (grow(&tx->pieces, n, sizeof *tx->pieces))
        return -ENOMEM;
    tx->pieces_cap = n;
    return 0;
}

int ics_dpdk_segment(struct inetcsum_dpdk_tx *tx, struct rte_mbuf *m, unsigned index, unsigned *n)
{
    /* first: each segment repeats the tag */
    int vrc = ics_dpdk_vlan_owed(tx, m) ? ics_dpdk_insert_vlan(tx, m, index) : 0;
    if (vrc)
        return vrc;
    const uint64_t f = m->ol_flags;
    const int tcp = (f & RTE_MBUF_F_TX_TCP_SEG) != 0, tunnel = (f & RTE_MBUF_F_TX_TUNNEL_MASK) != 0;
    if (tcp && (f & RTE_MBUF_F_TX_UDP_SEG))
        return ics_dpdk_refuse(tx, index, EINVAL, "both RTE_MBUF_F_TX_TCP_SEG and RTE_MBUF_F_TX_UDP_SEG");
    if (m->tso_segsz == 0)
        return ics_dpdk_refuse(tx, index, EINVAL, "%s with tso_segsz 0", tcp ? "RTE_MBUF_F_TX_TCP_SEG" : "RTE_MBUF_F_TX_UDP_SEG");
    struct iovec *iov;
    unsigned niov;
    int rc = ics_dpdk_packet_iov(tx, m, index, &iov, &niov);
    if (rc)
        return rc;

    struct inetcsum_gso g;
    rc = inetcsum_gso_describe_iov(&g, iov, niov, INETCSUM_LINK_ETHERNET, m->tso_segsz);
    if (rc)
        return ics_dpdk_refuse(tx, index, rc == -EPROTONOSUPPORT ? EPROTONOSUPPORT : EINVAL,
                               "%s: the headers cannot be segmented (%s)",
                               tcp ? "RTE_MBUF_F_TX_TCP_SEG" : "RTE_MBUF_F_TX_UDP_SEG", rte_strerror(-rc));
    if ((rc = matches(tx, m, index, &g, tcp, tunnel)))
        return rc;
    /* An outer UDP checksum asked for is computed in every segment; one not asked for stays 0
     * (one that is not 0 is computed too: no segment leaves with a stale one). */
    if (g.nlevels == 2 && g.level[0].l4 == INETCSUM_GSO_L4_UDP && (f & RTE_MBUF_F_TX_OUTER_UDP_CKSUM))
        g.level[0].csum = 1;

    /* What the port computes in each segment: its checksum capabilities, at the levels it can
     * place (the outer one only through tunnel offloads; the inner one of a tunnel on a port
     * without them when the flattened l2_len fits). */
    const size_t l3 = g.level[g.nlevels - 1].ip_off;
    const int two = g.nlevels == 2, flatten = tunnel && !tx->caps.tunnel_aware;
    uint32_t inner_dev = tx->caps.kinds, outer_dev = 0;
    if (tunnel && tx->caps.tunnel_aware) {
        outer_dev |= (tx->capa & RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM) ? INETCSUM_OFL_IPV4 : 0u;
        outer_dev |= (tx->capa & RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM) ? INETCSUM_OFL_UDP4 | INETCSUM_OFL_UDP6 : 0u;
    }
    if (flatten && l3 > ICS_DPDK_L2_LEN_MAX)
        inner_dev = 0;
    const struct inetcsum_offload o = {INETCSUM_OFL_ALL, two ? outer_dev | INETCSUM_OFL_INNER(inner_dev) : inner_dev,
                                       INETCSUM_OFFLOAD_TWO_LEVELS};

    /* Zero-copy where the port takes chains as long as a segment's, for segments of
     * ICS_DPDK_ZERO_COPY_MIN payload bytes or more, or larger than the pool's mbufs (unless the
     * application says which); else one mbuf a segment. */
    struct rte_mempool *pool = tx->pool ? tx->pool : m->pool;
    const size_t seg_payload = g.segments > 1 ? g.gso_size : g.payload_len;
    const size_t data_room = rte_pktmbuf_data_room_size(pool) - RTE_PKTMBUF_HEADROOM;
    unsigned pieces = 0, most = 0;
    if ((tx->capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) && !tx->copy_segments &&
        (tx->zero_copy_always || seg_payload >= ICS_DPDK_ZERO_COPY_MIN || g.hdr_len + seg_payload > data_room)) {
        payload_pieces(m, &g, NULL, NULL, &pieces, &most);
        if (most + 1u > tx->max_chain)
            pieces = 0;
    }
    const int zero_copy = pieces > 0;
    const size_t biggest = (size_t)g.hdr_len + (zero_copy ? 0 : seg_payload);
    if (biggest > data_room)
        return ics_dpdk_refuse(tx, index, EINVAL,
                               "segments of %zu bytes (headers %u, tso_segsz %u) do not fit the pool's %zu-byte mbufs",
                               biggest, g.hdr_len, m->tso_segsz, data_room);

    /* Each segment's flags: the checksums left to the port, where it finds them. */
    uint64_t flags = f & (RTE_MBUF_F_TX_VLAN | RTE_MBUF_F_TX_QINQ | RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6 |
                          RTE_MBUF_F_TX_OUTER_IPV4 | RTE_MBUF_F_TX_OUTER_IPV6 | RTE_MBUF_F_TX_TUNNEL_MASK);
    const struct inetcsum_gso_level *in = &g.level[g.nlevels - 1];
    if ((inner_dev & INETCSUM_OFL_IPV4) && in->ip_version == 4)
        flags |= RTE_MBUF_F_TX_IP_CKSUM;
    if (inner_dev & (tcp ? INETCSUM_OFL_TCP4 : INETCSUM_OFL_UDP4))
        flags |= tcp ? RTE_MBUF_F_TX_TCP_CKSUM : RTE_MBUF_F_TX_UDP_CKSUM;
    if ((outer_dev & INETCSUM_OFL_IPV4) && g.level[0].ip_version == 4)
        flags |= RTE_MBUF_F_TX_OUTER_IP_CKSUM;
    if ((outer_dev & INETCSUM_OFL_UDP4) && g.level[0].l4 == INETCSUM_GSO_L4_UDP && g.level[0].csum)
        flags |= RTE_MBUF_F_TX_OUTER_UDP_CKSUM;
    uint16_t l2 = m->l2_len, outer_l2 = m->outer_l2_len, outer_l3 = m->outer_l3_len;
    if (flatten || (tunnel && !(flags & (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK | RTE_MBUF_F_TX_OUTER_IP_CKSUM |
                                         RTE_MBUF_F_TX_OUTER_UDP_CKSUM)))) {
        l2 = (uint16_t)(l3 <= ICS_DPDK_L2_LEN_MAX ? l3 : 0);
        outer_l2 = outer_l3 = 0;
        flags &= ~(RTE_MBUF_F_TX_TUNNEL_MASK | RTE_MBUF_F_TX_OUTER_IPV4 | RTE_MBUF_F_TX_OUTER_IPV6);
    }
    /* The lengths as one word (the bit-fields one by one cost a read-modify-write each). */
    const uint64_t lengths = rte_mbuf_tx_offload(l2 & 0x7Fu, m->l3_len, m->l4_len, 0, outer_l3, outer_l2 & 0x7Fu, 0);

    if ((rc = ics_dpdk_room_for(tx, g.segments)))
        return ics_dpdk_refuse(tx, index, -rc, "no memory for %u segments", g.segments);
    if (zero_copy && (rc = room_for_pieces(tx, pieces)))
        return ics_dpdk_refuse(tx, index, -rc, "no memory for %u pieces", pieces);
    if (rte_pktmbuf_alloc_bulk(pool, tx->segs, g.segments) != 0)
        return -ENOBUFS;
    struct rte_mempool *ind_pool = tx->indirect_pool ? tx->indirect_pool : pool;
    if (zero_copy && rte_pktmbuf_alloc_bulk(ind_pool, tx->pieces, pieces) != 0) {
        rte_pktmbuf_free_bulk(tx->segs, g.segments);
        return -ENOBUFS;
    }
    /* Each segment's metadata set now, while its mbuf is fresh from the pool: set after the
     * segments' bytes are written it costs 0.45 us per 64 KB (44 mbufs whose lines the copy has
     * pushed out of L1, Zen 5 guest). */
    const size_t step = seg_payload;
    for (uint32_t i = 0; i < g.segments; i++) {
        struct rte_mbuf *sg = tx->segs[i];
        const size_t payload = i + 1 < g.segments ? step : g.payload_len - step * i;
        tx->seg_bufs[i] = (struct inetcsum_segment){rte_pktmbuf_mtod(sg, void *), rte_pktmbuf_tailroom(sg), 0};
        sg->data_len = (uint16_t)(g.hdr_len + (zero_copy ? 0 : payload));
        sg->pkt_len = sg->data_len;
        sg->ol_flags = flags;
        sg->tx_offload = lengths;
        sg->vlan_tci = m->vlan_tci;
        sg->vlan_tci_outer = m->vlan_tci_outer;
        sg->packet_type = m->packet_type;
        sg->port = m->port;
    }
    const long made = zero_copy ? inetcsum_gso_segment_headers_iov(&g, iov, niov, &o, 0, tx->seg_bufs, g.segments)
                                : inetcsum_gso_segment_iov(&g, iov, niov, &o, 0, tx->seg_bufs, g.segments);
    if (made != (long)g.segments) {
        rte_pktmbuf_free_bulk(tx->segs, g.segments);
        if (zero_copy)
            rte_pktmbuf_free_bulk(tx->pieces, pieces);
        return ics_dpdk_refuse(tx, index, EINVAL, "segmentation failed (%s)", rte_strerror((int)-made));
    }
    if (zero_copy) { /* (after the headers: nothing is attached to m before the segments exist) */
        payload_pieces(m, &g, tx->segs, tx->pieces, &pieces, &most);
        tx->stats.zero_copy++;
    }
    tx->stats.segmented++;
    tx->stats.segments += g.segments;
    *n = g.segments;
    return 0;
}
