/* A chain for a port that takes one mbuf a packet (no RTE_ETH_TX_OFFLOAD_MULTI_SEGS): copied into
 * one mbuf, with the packet's metadata, and sent in its place (as segments are: the original is
 * freed once the port takes the copy, and stays the caller's when it does not).  A PMD given a
 * chain it does not take sends the first segment alone, or reads past it.  The copy goes into one
 * of the pool's mbufs where it fits, else into a buffer of its own from DPDK's heap attached to
 * an mbuf as an external buffer (a jumbo frame from a pool of 2 KB mbufs), freed with it. */
#include <errno.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_malloc.h>

#include "internal.h"

/* The bytes an external buffer for len bytes of packet takes: its shared count lies after the
 * data, all within the mbuf's 16-bit buf_len. */
static size_t external_length(uint32_t len)
{
    return (size_t)len + sizeof(struct rte_mbuf_ext_shared_info) + sizeof(uintptr_t);
}

static void free_buffer(void *addr, void *opaque)
{
    (void)opaque;
    rte_free(addr);
}

/* A buffer of len bytes from DPDK's heap (DMA-able, as a device needs) attached to the empty mbuf
 * one as an external buffer, freed when the mbuf is: 0, or -ENOMEM. */
static int attach_buffer(struct rte_mbuf *one, size_t len)
{
    void *buf = rte_malloc_socket("inetcsum_dpdk_linear", len, RTE_CACHE_LINE_SIZE, rte_socket_id());
    if (!buf)
        return -ENOMEM;
    uint16_t buf_len = (uint16_t)len;
    struct rte_mbuf_ext_shared_info *shinfo = rte_pktmbuf_ext_shinfo_init_helper(buf, &buf_len, free_buffer, NULL);
    if (!shinfo) {
        rte_free(buf);
        return -ENOMEM;
    }
    rte_pktmbuf_attach_extbuf(one, buf, rte_malloc_virt2iova(buf), buf_len, shinfo);
    one->data_off = 0;
    return 0;
}

int ics_dpdk_segmented_here(const struct inetcsum_dpdk_tx *tx, const struct rte_mbuf *m)
{
    if (!(m->ol_flags & ICS_DPDK_SEG_REQUESTS))
        return 0;
    if (!ics_dpdk_port_does_requests(tx, m))
        return 1;
    /* The port segments, but not this chain: copied into one mbuf for it where one holds it (an
     * external buffer included: a 16-bit length), else segmented here. */
    return external_length(m->pkt_len) > UINT16_MAX;
}

int ics_dpdk_linearise(struct inetcsum_dpdk_tx *tx, struct rte_mbuf *m, unsigned index, unsigned *n)
{
    struct iovec *iov;
    unsigned niov;
    int rc = ics_dpdk_packet_iov(tx, m, index, &iov, &niov); /* (the chain held to its lengths) */
    if (rc)
        return rc;
    struct rte_mempool *pool = tx->pool ? tx->pool : m->pool;
    const size_t room = rte_pktmbuf_data_room_size(pool) - RTE_PKTMBUF_HEADROOM;
    const size_t ext_len = external_length(m->pkt_len);
    if (m->pkt_len > room && ext_len > UINT16_MAX)
        return ics_dpdk_refuse(tx, index, EINVAL,
                               "a chain of %u bytes for a port without RTE_ETH_TX_OFFLOAD_MULTI_SEGS: more than one "
                               "mbuf holds",
                               m->pkt_len);
    if ((rc = ics_dpdk_room_for(tx, 1)))
        return ics_dpdk_refuse(tx, index, -rc, "no memory for a copy");
    struct rte_mbuf *one = rte_pktmbuf_alloc(pool);
    if (!one)
        return -ENOBUFS;
    if (m->pkt_len > room && attach_buffer(one, ext_len) != 0) {
        rte_pktmbuf_free(one);
        return -ENOBUFS;
    }
    uint8_t *out = rte_pktmbuf_mtod(one, uint8_t *);
    for (unsigned k = 0; k < niov; k++) {
        memcpy(out, iov[k].iov_base, iov[k].iov_len);
        out += iov[k].iov_len;
    }
    one->data_len = (uint16_t)m->pkt_len;
    one->pkt_len = m->pkt_len;
    one->ol_flags = (one->ol_flags & RTE_MBUF_F_EXTERNAL) | (m->ol_flags & RTE_MBUF_F_TX_OFFLOAD_MASK);
    one->tx_offload = m->tx_offload;
    one->vlan_tci = m->vlan_tci;
    one->vlan_tci_outer = m->vlan_tci_outer;
    one->packet_type = m->packet_type;
    one->port = m->port;
    tx->segs[0] = one;
    *n = 1;
    tx->stats.linearised++;
    return 0;
}
