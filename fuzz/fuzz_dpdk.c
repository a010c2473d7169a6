/* Fuzz target over the DPDK layer: an mbuf's metadata, its chain and its bytes, through
 * inetcsum_dpdk_tx_burst to a port of the capabilities the input names, and the receive side.
 * Input: bytes 0-3 the capabilities (capa_bits below, in that order), 4-11 ol_flags
 * (the TX requests), 12 l2_len, 13-14 l3_len, 15 l4_len, 16 outer_l2_len, 17-18 outer_l3_len,
 * 19-20 tso_segsz, 21 the RX states (bits 0-1, 4-5: ol_flags bits 3-4, 7-8; bit 6: complete; bit 7:
 * a VXLAN packet_type), 22 how many cuts (bits 0-2) and a lie in the chain's lengths (bits 3-4),
 * then that many cut lengths (1-255), then the packet.  Besides the sanitizers' checks it asserts
 * that every mbuf comes back to the pool (a packet not taken is freed here, those taken by the port
 * are freed by it: a net_ring port read back; segments held are flushed; nothing is freed twice or
 * leaked), and of the bytes the port was given: every checksum the layer says it computed (its
 * request cleared from ol_flags; in a segment, every one the segment's flags do not leave to the
 * port) is found by the library's verify where the input's metadata put it, and is right.
 * The EAL starts once (no hugepages, no PCI); where it cannot, inputs are read and ignored. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "inetcsum_dpdk.h"
#include "inetcsum_packet.h"
#include "internal.h"
#include "sanitizers.h"

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static struct rte_mempool *pool;
static struct inetcsum_dpdk_tx *tx;
static uint16_t port;
static int state; /* 0 not tried, 1 running, -1 no EAL here */

static const uint64_t capa_bits[] = {
    RTE_ETH_TX_OFFLOAD_IPV4_CKSUM,       RTE_ETH_TX_OFFLOAD_UDP_CKSUM,      RTE_ETH_TX_OFFLOAD_TCP_CKSUM,
    RTE_ETH_TX_OFFLOAD_SCTP_CKSUM,       RTE_ETH_TX_OFFLOAD_TCP_TSO,        RTE_ETH_TX_OFFLOAD_UDP_TSO,
    RTE_ETH_TX_OFFLOAD_OUTER_IPV4_CKSUM, RTE_ETH_TX_OFFLOAD_VXLAN_TNL_TSO,  RTE_ETH_TX_OFFLOAD_GRE_TNL_TSO,
    RTE_ETH_TX_OFFLOAD_IPIP_TNL_TSO,     RTE_ETH_TX_OFFLOAD_GENEVE_TNL_TSO, RTE_ETH_TX_OFFLOAD_MULTI_SEGS,
    RTE_ETH_TX_OFFLOAD_UDP_TNL_TSO,      RTE_ETH_TX_OFFLOAD_IP_TNL_TSO,     RTE_ETH_TX_OFFLOAD_OUTER_UDP_CKSUM,
    RTE_ETH_TX_OFFLOAD_VLAN_INSERT,      RTE_ETH_TX_OFFLOAD_QINQ_INSERT,
};

static void stop(void)
{
    inetcsum_dpdk_tx_free(tx);
    rte_eth_dev_stop(port);
    rte_eal_cleanup();
}

static void start(void)
{
#ifdef ICS_UNDER_TSAN
    /* The EAL's threads are not instrumented: ThreadSanitizer would report DPDK, not this layer. */
    state = -1;
    return;
#endif
    char *argv[] = {"fuzz_dpdk", "--no-huge", "--no-pci", "--no-shconf", "-m", "128", "--log-level=1",
                    "--vdev=net_ring0", NULL};
    state = -1;
    if (rte_eal_init(8, argv) < 0)
        return;
    pool = rte_pktmbuf_pool_create("fuzz_dpdk", 2047, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
    struct rte_eth_conf conf;
    memset(&conf, 0, sizeof conf);
    if (!pool || rte_eth_dev_get_port_by_name("net_ring0", &port) != 0 ||
        rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
        rte_eth_rx_queue_setup(port, 0, 1024, SOCKET_ID_ANY, NULL, pool) != 0 ||
        rte_eth_tx_queue_setup(port, 0, 1024, SOCKET_ID_ANY, NULL) != 0 || rte_eth_dev_start(port) != 0)
        return;
    tx = inetcsum_dpdk_tx_new(port, 0, NULL);
    if (!tx)
        return;
    atexit(stop); /* the EAL's memory given back, so that a leak check at exit sees only leaks */
    state = 1;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    start();
    return 0;
}

static uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

/* The packet's bytes in a chain cut where the input says; NULL when the pool is short. */
static struct rte_mbuf *chain(const uint8_t *cuts, unsigned ncuts, const uint8_t *pkt, size_t len)
{
    struct rte_mbuf *head = NULL;
    size_t at = 0;
    for (unsigned c = 0; at < len || !head; c++) {
        size_t take = c < ncuts ? cuts[c] : len - at;
        if (take > len - at)
            take = len - at;
        if (take > 2048)
            take = 2048;
        struct rte_mbuf *s = rte_pktmbuf_alloc(pool);
        if (!s) {
            rte_pktmbuf_free(head);
            return NULL;
        }
        if (take)
            memcpy(rte_pktmbuf_append(s, (uint16_t)take), pkt + at, take);
        if (!head)
            head = s;
        else if (rte_pktmbuf_chain(head, s) != 0) {
            rte_pktmbuf_free(s);
            rte_pktmbuf_free(head);
            return NULL;
        }
        at += take;
    }
    return head;
}

/* Where the input's metadata put its headers, and what it asked for. */
struct asked {
    uint64_t flags;
    size_t l3, l4, outer_l3, outer_l4;
    struct rte_mbuf *m; /* the packet itself (not segmented: it comes back as it is) */
    int placed;         /* its checksums placed by the metadata alone (stats.by_metadata) */
};

/* The check of `layer` at off in r, or NULL. */
static const struct inetcsum_check *check_at(const struct inetcsum_report *r, enum inetcsum_layer layer, size_t off)
{
    for (unsigned i = 0; i < r->count; i++)
        if (r->checks[i].layer == layer && r->checks[i].offset == off && !(r->checks[i].flags & INETCSUM_CHECK_QUOTED))
            return &r->checks[i];
    return NULL;
}

/* (placed: the layer placed the packet's checksums by the metadata alone, for a tunnel the walk
 * does not follow; verify's walk does not find those either, and only those it finds are held) */
static void must_be_good(const struct inetcsum_report *r, enum inetcsum_layer layer, size_t off, const char *what,
                         int placed)
{
    const struct inetcsum_check *c = check_at(r, layer, off);
    if (!c && placed)
        return;
    if (!c || c->status != INETCSUM_GOOD) {
        fprintf(stderr, "fuzz_dpdk: %s at %zu, computed here, is %s (stored %04x, expected %04x)\n", what, off,
                c ? "wrong" : "not found by verify", c ? c->stored : 0u, c ? c->expected : 0u);
        abort();
    }
}

/* The oracle on what the port was given: what the layer says it computed is right. */
static void check_sent(struct rte_mbuf *out, const struct asked *a)
{
    static uint8_t buf[16384];
    if (out->pkt_len > sizeof buf)
        return;
    const uint8_t *bytes = rte_pktmbuf_read(out, 0, out->pkt_len, buf);
    struct inetcsum_report r;
    inetcsum_verify(bytes, out->pkt_len, 0, INETCSUM_LINK_ETHERNET, 0, &r);
    const uint64_t f = out->ol_flags;
    const uint64_t l4req = a->flags & RTE_MBUF_F_TX_L4_MASK;
    if (f & (RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_UDP_SEG))
        return; /* the port segments it, and computes its segments' checksums */
    if (out == a->m || !(a->flags & (RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_UDP_SEG))) {
        /* as it was sent, or copied into one mbuf: the requests cleared are what was done here */
        if ((a->flags & RTE_MBUF_F_TX_IP_CKSUM) && !(f & RTE_MBUF_F_TX_IP_CKSUM))
            must_be_good(&r, INETCSUM_LAYER_IPV4, a->l3, "the IPv4 header checksum", a->placed);
        if (l4req && !(f & RTE_MBUF_F_TX_L4_MASK))
            must_be_good(&r,
                         l4req == RTE_MBUF_F_TX_TCP_CKSUM    ? INETCSUM_LAYER_TCP
                         : l4req == RTE_MBUF_F_TX_SCTP_CKSUM ? INETCSUM_LAYER_SCTP
                                                             : INETCSUM_LAYER_UDP,
                         a->l4, "the L4 checksum", a->placed);
        if ((a->flags & RTE_MBUF_F_TX_OUTER_IP_CKSUM) && !(f & RTE_MBUF_F_TX_OUTER_IP_CKSUM))
            must_be_good(&r, INETCSUM_LAYER_IPV4, a->outer_l3, "the outer IPv4 header checksum", a->placed);
        /* (the tunnel's UDP checksum covers the inner checksums at the values the port will
         * write: right on the wire only once it has, so checked where none is left to it) */
        if ((a->flags & RTE_MBUF_F_TX_OUTER_UDP_CKSUM) && !(f & RTE_MBUF_F_TX_OUTER_UDP_CKSUM) &&
            !(f & (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK)))
            must_be_good(&r, INETCSUM_LAYER_UDP, a->outer_l4, "the outer UDP checksum", a->placed);
        return;
    }
    /* A segment: its segmented header's checksum and an IPv4 header's, unless left to the port. */
    if (!(f & RTE_MBUF_F_TX_L4_MASK))
        must_be_good(&r, (a->flags & RTE_MBUF_F_TX_TCP_SEG) ? INETCSUM_LAYER_TCP : INETCSUM_LAYER_UDP, a->l4,
                     "a segment's L4 checksum", a->placed);
    if (a->l3 < out->pkt_len && bytes[a->l3] >> 4 == 4 && !(f & RTE_MBUF_F_TX_IP_CKSUM))
        must_be_good(&r, INETCSUM_LAYER_IPV4, a->l3, "a segment's IPv4 header checksum", a->placed);
}

/* Checks (a: NULL, none) and frees whatever the port took (read back from the ring). */
static void drain(const struct asked *a)
{
    struct rte_mbuf *back[64];
    uint16_t n;
    while ((n = rte_eth_rx_burst(port, 0, back, 64)) > 0) {
        for (uint16_t i = 0; a && i < n; i++)
            check_sent(back[i], a);
        rte_pktmbuf_free_bulk(back, n);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
    if (state == 0)
        start();
    if (state < 0 || size < 23)
        return 0;
    const unsigned ncuts = in[22] & 7u;
    if (size < 23u + ncuts)
        return 0;
    const uint8_t *cuts = in + 23, *pkt = in + 23 + ncuts;
    size_t len = size - 23 - ncuts;
    if (len > 9000)
        len = 9000;
    uint64_t capa = 0;
    const uint32_t pick = (uint32_t)in[0] | (uint32_t)in[1] << 8 | (uint32_t)in[2] << 16 | (uint32_t)in[3] << 24;
    for (unsigned b = 0; b < sizeof capa_bits / sizeof capa_bits[0]; b++)
        if (pick & (1u << b))
            capa |= capa_bits[b];
    ics_dpdk_tx_set_capa(tx, capa);
    uint64_t flags;
    memcpy(&flags, in + 4, 8);
    uint8_t cut_len[8];
    for (unsigned c = 0; c < ncuts; c++)
        cut_len[c] = cuts[c] ? cuts[c] : 1;

    const unsigned before = rte_mempool_avail_count(pool);
    struct rte_mbuf *m = chain(cut_len, ncuts, pkt, len);
    if (!m)
        return 0;
    m->ol_flags = flags & RTE_MBUF_F_TX_OFFLOAD_MASK;
    m->l2_len = in[12] & 0x7F;
    m->l3_len = le16(in + 13) & 0x1FF;
    m->l4_len = in[15];
    m->outer_l2_len = in[16] & 0x7F;
    m->outer_l3_len = le16(in + 17) & 0x1FF;
    m->tso_segsz = le16(in + 19);
    /* Byte 22's bits 3-4: a chain whose lengths lie (pkt_len longer or shorter than its data,
     * nb_segs one too many), which must be refused without a read past any segment's data. */
    const unsigned damage = (in[22] >> 3) & 3u;
    if (damage == 1)
        m->pkt_len += (in[21] & 0x3Fu) + 1u;
    else if (damage == 2)
        m->nb_segs++;
    else if (damage == 3 && m->pkt_len > 0)
        m->pkt_len--;
    const int tunnel = (m->ol_flags & RTE_MBUF_F_TX_TUNNEL_MASK) != 0;
    /* VLAN tags the layer inserts (the port lacking the capability) move every header on */
    const size_t tags = (m->ol_flags & RTE_MBUF_F_TX_QINQ) ? ((capa & RTE_ETH_TX_OFFLOAD_QINQ_INSERT) ? 0 : 8)
                        : ((m->ol_flags & RTE_MBUF_F_TX_VLAN) && !(capa & RTE_ETH_TX_OFFLOAD_VLAN_INSERT)) ? 4
                                                                                                         : 0;
    struct asked a = {m->ol_flags, 0, 0, tags + m->outer_l2_len, tags + (size_t)m->outer_l2_len + m->outer_l3_len, m, 0};
    a.l3 = (tunnel ? a.outer_l4 : tags) + m->l2_len;
    a.l4 = a.l3 + m->l3_len;
    struct inetcsum_dpdk_tx_stats before_burst, after_burst;
    inetcsum_dpdk_tx_stats(tx, &before_burst);
    if (inetcsum_dpdk_tx_burst(tx, &m, 1) != 1)
        rte_pktmbuf_free(m);
    inetcsum_dpdk_tx_stats(tx, &after_burst);
    a.placed = after_burst.by_metadata != before_burst.by_metadata;
    /* (not a chain whose lengths lie: a port that does all it asks is given it unread) */
    const int checked = damage == 0;
    for (int tries = 0; inetcsum_dpdk_tx_flush(tx) > 0 && tries < 100; tries++)
        drain(checked ? &a : NULL);
    drain(checked ? &a : NULL);

    /* The receive side on the same bytes, with the RX state the input names. */
    m = chain(cut_len, ncuts, pkt, len);
    if (m) {
        m->ol_flags = (uint64_t)(in[21] & 0x33u) << 3; /* the IP and L4 state bits (3, 4, 7, 8) */
        m->packet_type = (in[21] & 0x80) ? RTE_PTYPE_TUNNEL_VXLAN | RTE_PTYPE_L4_UDP : 0;
        inetcsum_dpdk_rx_verify(&m, 1, (in[21] & 0x40) ? INETCSUM_DPDK_RX_COMPLETE : 0);
        rte_pktmbuf_free(m);
    }
    if (rte_mempool_avail_count(pool) != before) {
        fprintf(stderr, "fuzz_dpdk: %u mbufs in the pool, %u before: leaked or freed twice\n",
                rte_mempool_avail_count(pool), before);
        abort();
    }
    return 0;
}
