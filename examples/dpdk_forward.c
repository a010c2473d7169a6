/* dpdk_forward: a two-port DPDK forwarder that acts as a router does (IPv4 TTL or IPv6 hop limit
 * down by one, so every IPv4 header checksum must be computed again), asks the egress port for
 * every checksum the packet carries (IPv4 header, TCP, UDP, SCTP) and, with --tso, for TCP
 * segmentation of packets longer than an MSS, and sends through inetcsum_dpdk_tx_burst: the
 * egress port does what it can, inetcsum the rest.  On receive, what the ingress port did not
 * check is checked (inetcsum_dpdk_rx_verify), and packets a virtual port delivers unfinished are
 * completed; a packet with a bad checksum is dropped and counted, as a router drops it.
 *
 * usage: dpdk_forward [EAL options] -- [--seconds S] [--idle-exit MS] [--tso MSS] [--capa HEX]
 *                                        [--segments copy|zero-copy] [--keep-bad]
 *                                        [--ready-file PATH] [--start-file PATH]
 *   ports 0 and 1 forward into each other; --idle-exit ends the run once MS milliseconds pass
 *   without a packet after the first (a net_pcap port's file read to its end); --capa narrows
 *   what the ports are trusted with (inetcsum_dpdk_tx_conf.tx_offload_capa); --segments makes
 *   segments one way (INETCSUM_DPDK_TX_COPY_SEGMENTS / _ZERO_COPY; else by size); --keep-bad
 *   forwards packets with bad checksums too (their checksums then computed again, as every
 *   forwarded packet's are); --ready-file is made once the ports are up, and forwarding waits
 *   for --start-file to exist (a test sets up the other side of a TAP port in between).  Counters
 *   are printed at the end, one line a port. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_net.h>

#include "inetcsum_dpdk.h"

#define BURST 32

struct options {
    double seconds, idle_ms;
    unsigned tso;
    uint64_t capa;
    uint32_t segments; /* conf.flags */
    int keep_bad;
    const char *ready_file, *start_file;
};

static int parse(int argc, char **argv, struct options *o)
{
    *o = (struct options){10.0, 0, 0, 0, 0, 0, NULL, NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--keep-bad") == 0) {
            o->keep_bad = 1;
            continue;
        }
        if (!v) {
            fprintf(stderr, "dpdk_forward: %s needs a value\n", a);
            return -1;
        }
        if (strcmp(a, "--seconds") == 0)
            o->seconds = atof(v);
        else if (strcmp(a, "--idle-exit") == 0)
            o->idle_ms = atof(v);
        else if (strcmp(a, "--tso") == 0)
            o->tso = (unsigned)atoi(v);
        else if (strcmp(a, "--capa") == 0)
            o->capa = strtoull(v, NULL, 16);
        else if (strcmp(a, "--segments") == 0 && (strcmp(v, "copy") == 0 || strcmp(v, "zero-copy") == 0))
            o->segments = strcmp(v, "copy") == 0 ? INETCSUM_DPDK_TX_COPY_SEGMENTS : INETCSUM_DPDK_TX_ZERO_COPY;
        else if (strcmp(a, "--ready-file") == 0)
            o->ready_file = v;
        else if (strcmp(a, "--start-file") == 0)
            o->start_file = v;
        else {
            fprintf(stderr, "dpdk_forward: unknown option %s\n", a);
            return -1;
        }
        i++;
    }
    return 0;
}

static int setup_port(uint16_t port, struct rte_mempool *pool)
{
    struct rte_eth_dev_info info;
    if (rte_eth_dev_info_get(port, &info) != 0)
        return -1;
    struct rte_eth_conf conf;
    memset(&conf, 0, sizeof conf);
    /* Every TX offload the port has: what it lacks, inetcsum does. */
    conf.txmode.offloads = info.tx_offload_capa;
    if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
        rte_eth_rx_queue_setup(port, 0, 1024, rte_eth_dev_socket_id(port), NULL, pool) != 0 ||
        rte_eth_tx_queue_setup(port, 0, 1024, rte_eth_dev_socket_id(port), NULL) != 0 || rte_eth_dev_start(port) != 0)
        return -1;
    rte_eth_promiscuous_enable(port);
    return 0;
}

/* As a router: the hop count down by one, every checksum asked of the egress port (and TSO for a
 * TCP packet longer than the MSS).  Headers are found by DPDK's own parser. */
static void route(struct rte_mbuf *m, unsigned tso)
{
    struct rte_net_hdr_lens h;
    const uint32_t ptype = rte_net_get_ptype(m, &h, RTE_PTYPE_L2_MASK | RTE_PTYPE_L3_MASK | RTE_PTYPE_L4_MASK);
    m->ol_flags &= ~RTE_MBUF_F_TX_OFFLOAD_MASK;
    m->l2_len = h.l2_len;
    m->l3_len = h.l3_len;
    m->l4_len = h.l4_len;
    uint8_t *l3 = rte_pktmbuf_mtod_offset(m, uint8_t *, h.l2_len);
    if (m->data_len < h.l2_len + 40u)
        return; /* headers not in the first segment: sent as they are */
    if (RTE_ETH_IS_IPV4_HDR(ptype)) {
        if (l3[8] > 1)
            l3[8]--;
        m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
    } else if (RTE_ETH_IS_IPV6_HDR(ptype)) {
        if (l3[7] > 1)
            l3[7]--;
        m->ol_flags |= RTE_MBUF_F_TX_IPV6;
    } else {
        return;
    }
    switch (ptype & RTE_PTYPE_L4_MASK) {
    case RTE_PTYPE_L4_TCP:
        m->ol_flags |= RTE_MBUF_F_TX_TCP_CKSUM;
        if (tso && m->pkt_len > (uint32_t)h.l2_len + h.l3_len + h.l4_len + tso) {
            m->ol_flags |= RTE_MBUF_F_TX_TCP_SEG;
            m->tso_segsz = (uint16_t)tso;
        }
        break;
    case RTE_PTYPE_L4_UDP:
        m->ol_flags |= RTE_MBUF_F_TX_UDP_CKSUM;
        break;
    case RTE_PTYPE_L4_SCTP:
        m->ol_flags |= RTE_MBUF_F_TX_SCTP_CKSUM;
        break;
    default:
        break;
    }
}

/* Keeps the packets without a bad checksum, frees the others; how many were kept. */
static uint16_t drop_bad(struct rte_mbuf **pkts, uint16_t n, uint64_t *dropped)
{
    uint16_t kept = 0;
    for (uint16_t i = 0; i < n; i++) {
        const uint64_t f = pkts[i]->ol_flags;
        if ((f & RTE_MBUF_F_RX_IP_CKSUM_MASK) == RTE_MBUF_F_RX_IP_CKSUM_BAD ||
            (f & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_BAD) {
            rte_pktmbuf_free(pkts[i]);
            ++*dropped;
        } else {
            pkts[kept++] = pkts[i];
        }
    }
    return kept;
}

int main(int argc, char **argv)
{
    const int eal = rte_eal_init(argc, argv);
    if (eal < 0) {
        fprintf(stderr, "dpdk_forward: the EAL did not start: %s\n", rte_strerror(rte_errno));
        return 77; /* ctest's skip */
    }
    struct options o;
    if (parse(argc - eal, argv + eal, &o) != 0)
        return 2;
    if (rte_eth_dev_count_avail() < 2) {
        fprintf(stderr, "dpdk_forward: needs two ports (--vdev=...), has %u\n", rte_eth_dev_count_avail());
        return 2;
    }
    struct rte_mempool *pool = rte_pktmbuf_pool_create("dpdk_forward", 8191, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
                                                       (int)rte_socket_id());
    if (!pool || setup_port(0, pool) != 0 || setup_port(1, pool) != 0) {
        fprintf(stderr, "dpdk_forward: port setup failed: %s\n", rte_strerror(rte_errno));
        return 1;
    }
    struct inetcsum_dpdk_tx_conf conf = {.tx_offload_capa = o.capa, .flags = o.segments};
    struct inetcsum_dpdk_tx *tx[2] = {inetcsum_dpdk_tx_new(0, 0, &conf), inetcsum_dpdk_tx_new(1, 0, &conf)};
    if (!tx[0] || !tx[1]) {
        fprintf(stderr, "dpdk_forward: inetcsum_dpdk_tx_new: %s\n", rte_strerror(rte_errno));
        return 1;
    }
    if (o.ready_file) {
        FILE *f = fopen(o.ready_file, "w");
        if (f)
            fclose(f);
    }
    uint64_t received[2] = {0, 0}, dropped[2] = {0, 0}, unsent[2] = {0, 0}, refused[2] = {0, 0};
    const uint64_t hz = rte_get_tsc_hz();
    for (double waited = 0; o.start_file && access(o.start_file, F_OK) != 0 && waited < o.seconds; waited += 0.01)
        rte_delay_us_sleep(10000);
    const uint64_t start = rte_get_tsc_cycles();
    uint64_t last = 0;
    for (;;) {
        const uint64_t now = rte_get_tsc_cycles();
        if (now - start > (uint64_t)(o.seconds * (double)hz) ||
            (o.idle_ms > 0 && last && now - last > (uint64_t)(o.idle_ms * (double)hz / 1000.0)))
            break;
        for (uint16_t in = 0; in < 2; in++) {
            struct rte_mbuf *pkts[BURST];
            uint16_t n = rte_eth_rx_burst(in, 0, pkts, BURST);
            if (n == 0)
                continue;
            last = now;
            received[in] += n;
            inetcsum_dpdk_rx_verify(pkts, n, INETCSUM_DPDK_RX_COMPLETE);
            if (!o.keep_bad)
                n = drop_bad(pkts, n, &dropped[in]);
            for (uint16_t i = 0; i < n; i++)
                route(pkts[i], o.tso);
            const uint16_t out = in ^ 1u;
            uint16_t done = 0;
            for (int tries = 0; done < n && tries < 1000; tries++) { /* a full port: try again */
                done += inetcsum_dpdk_tx_burst(tx[out], pkts + done, (uint16_t)(n - done));
                if (done < n && rte_errno) { /* refused: counted and dropped */
                    rte_pktmbuf_free(pkts[done++]);
                    refused[out]++;
                }
            }
            if (done < n) {
                unsent[out] += n - done;
                rte_pktmbuf_free_bulk(pkts + done, n - done);
            }
        }
    }
    /* What is still held (segments of a packet the port took in part) goes out or is freed. */
    for (uint16_t p = 0; p < 2; p++) {
        for (int tries = 0; tries < 1000 && inetcsum_dpdk_tx_flush(tx[p]) > 0; tries++)
            rte_delay_us(10);
        struct inetcsum_dpdk_tx_stats s;
        inetcsum_dpdk_tx_stats(tx[p], &s);
        printf("port %u: received %" PRIu64 ", dropped bad %" PRIu64 " | sent out: packets %" PRIu64
               ", untouched %" PRIu64 ", prepared %" PRIu64 ", ip_csum %" PRIu64 ", l4_csum %" PRIu64
               ", segmented %" PRIu64 " into %" PRIu64 ", refused %" PRIu64 ", unsent %" PRIu64 ", sent %" PRIu64
               " (zero-copy %" PRIu64 ", copied into one mbuf %" PRIu64 ")\n",
               p, received[p], dropped[p], s.packets, s.untouched, s.prepared, s.ip_csum, s.l4_csum, s.segmented,
               s.segments, refused[p], unsent[p], s.sent, s.zero_copy, s.linearised);
        inetcsum_dpdk_tx_free(tx[p]);
        rte_eth_dev_stop(p);
        rte_eth_dev_close(p);
    }
    rte_eal_cleanup();
    return 0;
}
