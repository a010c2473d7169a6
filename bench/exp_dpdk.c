/* Experiment `dpdk` (issue 34): the DPDK layer's software fallback per packet, against DPDK's own
 * software route measured in the same run, and against the port doing everything.
 *
 *   checksums  a TCP/IPv4 frame of 64, 1,500 and 9,000 bytes asking for the IPv4 and TCP checksums
 *              of a port that offers neither, in one mbuf and as a chain (the headers in the first
 *              mbuf, the payload in 512-byte ones, as DPDK's own helpers need): libinetcsum_dpdk's
 *              per-packet fallback (what inetcsum_dpdk_tx_burst does before rte_eth_tx_burst)
 *              against testpmd's software route (rte_net_intel_cksum_prepare, then rte_ipv4_cksum
 *              and rte_ipv4_udptcp_cksum_mbuf), ns per packet;
 *   tso        a 64 KB TCP/IPv4 and TCP/IPv6 packet in one mbuf, TCP_SEG into 1,448-byte segments
 *              on a port without TSO or checksum offload: libinetcsum_dpdk's segmentation, copied
 *              (new mbufs, payload copied and summed in one pass, every checksum) and zero-copy
 *              (a header mbuf and an indirect mbuf attached to the payload a segment, the payload
 *              summed where it lies; and on a port with checksum offload, the payload not read),
 *              against
 *              rte_gso_segment then every segment's checksums in software, and against memcpy of
 *              the same bytes into as many buffers (the floor) and into as many new mbufs (the
 *              floor once the pool's cost is counted), us per packet (DPDK 22.11 has no TCP/IPv6
 *              GSO: that row has no DPDK figure);
 *   tx_burst   bursts of 32 packets a port does everything for, through a net_ring loopback port
 *              and read back: inetcsum_dpdk_tx_burst against rte_eth_tx_burst, ns per packet.
 * The contenders of each row interleave, trial by trial.  DPDK's code is compiled as the anchors
 * are (-O3 -march=native), the layer as the library is. */
#include <stdlib.h>
#include <string.h>

#include "experiments.h"

#ifdef ICS_BENCH_DPDK_LAYER
#include <rte_ethdev.h>
#include <rte_gso.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_net.h>
#include <rte_tcp.h>

#include "anchor_dpdk_gso.h"
#include "inetcsum_dpdk.h"
#include "internal.h" /* ics_dpdk_prepare, ics_dpdk_segment: the fallback without a port */
#include "timing.h"

enum { MAX_TRIALS = 64 };

static struct rte_mempool *small, *big, *indirect;

/* A TCP frame of len bytes (Ethernet, IPv4 or IPv6, TCP with no options), its checksums garbage,
 * in one mbuf from pool (seg 65535), else as a TCP stack chains one: its headers in the first mbuf,
 * then the payload in seg-byte mbufs. */
static struct rte_mbuf *frame(struct rte_mempool *pool, size_t len, size_t seg, int v6)
{
    static uint8_t b[70000];
    const size_t ip = 14, hl = v6 ? 40 : 20, l4 = ip + hl;
    memset(b, 0, l4 + 20);
    for (size_t i = l4 + 20; i < len; i++)
        b[i] = (uint8_t)(i * 131 + 7);
    b[12] = v6 ? 0x86 : 0x08;
    b[13] = v6 ? 0xDD : 0x00;
    if (v6) {
        b[ip] = 0x60;
        b[ip + 4] = (uint8_t)((len - l4) >> 8);
        b[ip + 5] = (uint8_t)(len - l4);
        b[ip + 6] = 6;
        b[ip + 7] = 64;
        for (int i = 0; i < 32; i++)
            b[ip + 8 + i] = (uint8_t)(i + 1);
    } else {
        b[ip] = 0x45;
        b[ip + 2] = (uint8_t)((len - ip) >> 8);
        b[ip + 3] = (uint8_t)(len - ip);
        b[ip + 6] = 0x40;
        b[ip + 8] = 64;
        b[ip + 9] = 6;
        b[ip + 10] = 0xAB;
        memcpy(b + ip + 12, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
    }
    b[l4 + 12] = 0x50;
    b[l4 + 13] = 0x18;
    b[l4 + 16] = 0xCD;
    struct rte_mbuf *head = NULL;
    for (size_t at = 0; at < len;) {
        size_t take = len - at < seg ? len - at : seg;
        if (at == 0 && seg < 65535)
            take = l4 + 20;
        struct rte_mbuf *s = rte_pktmbuf_alloc(pool);
        if (!s || !rte_pktmbuf_append(s, (uint16_t)take)) {
            rte_pktmbuf_free(s);
            rte_pktmbuf_free(head);
            return NULL;
        }
        memcpy(rte_pktmbuf_mtod(s, uint8_t *), b + at, take);
        if (!head)
            head = s;
        else
            rte_pktmbuf_chain(head, s);
        at += take;
    }
    head->l2_len = 14;
    head->l3_len = (uint16_t)hl;
    head->l4_len = 20;
    return head;
}

#define CSUM_FLAGS (RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_TCP_CKSUM)

/* testpmd's csum engine in software: the fields prepared, then both checksums computed. */
static uint64_t time_dpdk_csum(struct rte_mbuf *m, unsigned reps)
{
    const uint64_t t0 = ticks();
    for (unsigned i = 0; i < reps; i++) {
        m->ol_flags = CSUM_FLAGS;
        rte_net_intel_cksum_prepare(m);
        struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14);
        struct rte_tcp_hdr *tcp = rte_pktmbuf_mtod_offset(m, struct rte_tcp_hdr *, 34);
        ip->hdr_checksum = rte_ipv4_cksum(ip);
        tcp->cksum = 0;
        tcp->cksum = rte_ipv4_udptcp_cksum_mbuf(m, ip, 34);
        m->ol_flags &= ~(RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK);
        OPAQUE(m);
    }
    return ticks() - t0;
}

static uint64_t time_ours_csum(struct inetcsum_dpdk_tx *tx, struct rte_mbuf *m, unsigned reps)
{
    const uint64_t t0 = ticks();
    for (unsigned i = 0; i < reps; i++) {
        m->ol_flags = CSUM_FLAGS;
        if (ics_dpdk_prepare(tx, m, 0) != 0)
            return 0;
        OPAQUE(m);
    }
    return ticks() - t0;
}

static int checksums(struct bench_run *r, struct inetcsum_dpdk_tx *tx)
{
    fprintf(r->out, "\n### checksums: a TCP/IPv4 frame asking for the IPv4 and TCP checksums of a port with "
                    "neither (ns per packet, median of %d interleaved trials)\n\n", r->trials);
    const char *cols[] = {"frame", "size (B)", "mbufs", "inetcsum_dpdk", "DPDK software route", "DPDK / inetcsum"};
    bench_table_head(r->out, cols, 6);
    ics_dpdk_tx_set_capa(tx, RTE_ETH_TX_OFFLOAD_MULTI_SEGS);
    static const size_t sizes[] = {64, 1500, 9000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int chained = 0; chained < 2; chained++) {
            const size_t len = sizes[s], seg = chained ? 512 : 65535;
            struct rte_mbuf *a = frame(chained ? small : big, len, seg, 0), *b = frame(chained ? small : big, len, seg, 0);
            if (!a || !b) {
                rte_pktmbuf_free(a);
                rte_pktmbuf_free(b);
                fprintf(stderr, "inetcsum bench: dpdk: no mbufs\n");
                return -1;
            }
            const unsigned reps = bench_reps(r, len);
            static double t[2][MAX_TRIALS], ratio[MAX_TRIALS];
            for (int k = -1; k < r->trials; k++) {
                const double ours = (double)time_ours_csum(tx, a, reps) / reps / r->hz * 1e9;
                const double dpdk = (double)time_dpdk_csum(b, reps) / reps / r->hz * 1e9;
                if (k >= 0) {
                    t[0][k] = ours;
                    t[1][k] = dpdk;
                    ratio[k] = dpdk / ours;
                }
            }
            char variant[32];
            snprintf(variant, sizeof variant, "TCP/IPv4, %s", chained ? "chained" : "one mbuf");
            struct stats_summary so, sd, sr;
            struct figure_key ko = {"dpdk", "checksum fallback", "inetcsum_dpdk", variant, (long)len};
            struct figure_key kd = {"dpdk", "checksum fallback", "DPDK software route", variant, (long)len};
            struct figure_key kr = {"dpdk", "checksum fallback", "DPDK / inetcsum_dpdk", variant, (long)len};
            bench_record(r, &ko, "ns", t[0], (size_t)r->trials, &so);
            bench_record(r, &kd, "ns", t[1], (size_t)r->trials, &sd);
            bench_record(r, &kr, "speed ratio", ratio, (size_t)r->trials, &sr);
            fprintf(r->out, "| TCP/IPv4 | %zu | %u | %.1f | %.1f | %.2f |\n", len, a->nb_segs, so.median, sd.median,
                    sr.median);
            rte_pktmbuf_free(a);
            rte_pktmbuf_free(b);
        }
    return 0;
}

/* ---- TSO ---- */

static uint64_t time_ours_tso(struct inetcsum_dpdk_tx *tx, struct rte_mbuf *m, unsigned reps, unsigned *nseg,
                              int copy, uint64_t capa)
{
    tx->copy_segments = copy;
    tx->zero_copy_always = !copy;
    ics_dpdk_tx_set_capa(tx, capa);
    const uint64_t t0 = ticks();
    for (unsigned i = 0; i < reps; i++) {
        if (ics_dpdk_segment(tx, m, 0, nseg) != 0)
            return 0;
        rte_pktmbuf_free_bulk(tx->segs, *nseg); /* as a driver frees them once sent */
    }
    return ticks() - t0;
}

static uint64_t time_dpdk_tso(struct rte_gso_ctx *ctx, struct rte_mbuf *m, uint64_t flags, unsigned reps,
                              unsigned *nseg)
{
    struct rte_mbuf *out[64];
    const uint64_t t0 = ticks();
    for (unsigned i = 0; i < reps; i++) {
        m->ol_flags = flags;
        const int n = rte_gso_segment(m, ctx, out, 64);
        if (n <= 0)
            return 0;
        for (int k = 0; k < n; k++) { /* every segment's checksums, in software */
            struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(out[k], struct rte_ipv4_hdr *, 14);
            struct rte_tcp_hdr *tcp = rte_pktmbuf_mtod_offset(out[k], struct rte_tcp_hdr *, 34);
            ip->hdr_checksum = 0;
            ip->hdr_checksum = rte_ipv4_cksum(ip);
            tcp->cksum = 0;
            tcp->cksum = rte_ipv4_udptcp_cksum_mbuf(out[k], ip, 34);
        }
        rte_pktmbuf_free_bulk(out, (unsigned)n);
        *nseg = (unsigned)n;
    }
    return ticks() - t0;
}

/* The floor: the segments' bytes (headers and payload) copied into as many buffers, each in its own
 * cache lines. */
static uint64_t time_memcpy_tso(const uint8_t *pkt, size_t hdr, size_t payload, size_t mss, uint8_t *out,
                                unsigned reps)
{
    const size_t stride = (hdr + mss + 63) & ~(size_t)63;
    const uint64_t t0 = ticks();
    for (unsigned i = 0; i < reps; i++) {
        size_t k = 0;
        for (size_t at = 0; at < payload; at += mss, k++) {
            const size_t n = payload - at < mss ? payload - at : mss;
            memcpy(out + stride * k, pkt, hdr);
            memcpy(out + stride * k + hdr, pkt + hdr + at, n);
        }
        OPAQUE(out);
    }
    return ticks() - t0;
}

/* The floor for a DPDK application: the same copies into as many mbufs taken from the pool and
 * given back (what making segments costs before any header is rewritten or checksum computed). */
static uint64_t time_memcpy_mbufs_tso(struct rte_mempool *pool, const uint8_t *pkt, size_t hdr, size_t payload,
                                      size_t mss, unsigned reps)
{
    struct rte_mbuf *segs[64];
    const unsigned n = (unsigned)((payload + mss - 1) / mss);
    const uint64_t t0 = ticks();
    for (unsigned i = 0; i < reps; i++) {
        if (rte_pktmbuf_alloc_bulk(pool, segs, n) != 0)
            return 0;
        size_t k = 0;
        for (size_t at = 0; at < payload; at += mss, k++) {
            const size_t len = payload - at < mss ? payload - at : mss;
            uint8_t *out = rte_pktmbuf_mtod(segs[k], uint8_t *);
            memcpy(out, pkt, hdr);
            memcpy(out + hdr, pkt + hdr + at, len);
            segs[k]->data_len = (uint16_t)(hdr + len);
            segs[k]->pkt_len = segs[k]->data_len;
        }
        rte_pktmbuf_free_bulk(segs, n);
    }
    return ticks() - t0;
}

static int tso(struct bench_run *r, struct inetcsum_dpdk_tx *tx)
{
    fprintf(r->out, "\n### tso: a 64 KB TCP packet, TCP_SEG into 1,448-byte segments on a port with no TSO or "
                    "checksum offload (us per packet, median of %d interleaved trials)\n\n", r->trials);
    const char *cols[] = {"packet", "segments", "inetcsum_dpdk, copied", "zero-copy", "zero-copy, checksums by the port",
                          "rte_gso_segment + checksums", "memcpy of the segments", "memcpy into new mbufs",
                          "DPDK / inetcsum (best)", "inetcsum (best) / memcpy", "inetcsum (best) / memcpy into mbufs",
                          "GB/s (best)"};
    bench_table_head(r->out, cols, 12);
    tx->pool = small;
    tx->indirect_pool = indirect;
    tx->max_chain = UINT16_MAX;
    const uint64_t no_csum = RTE_ETH_TX_OFFLOAD_MULTI_SEGS,
                   port_csum = no_csum | RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
    static uint8_t *copies;
    if (!copies && !(copies = malloc(2048 * 64 + 65536)))
        return -1;
    const unsigned reps = r->scale == BENCH_SMOKE ? 2 : 40;
    for (int row = 0; row < 3; row++) {
        /* TCP/IPv4 and IPv6 at a 1,500-byte MTU's MSS, then TCP/IPv4 at a 9,000-byte MTU's (the
         * copies into the large pool's mbufs) */
        const int v6 = row == 1, jumbo = row == 2;
        const size_t mss = jumbo ? 8948 : 1448, hdr = 14 + (v6 ? 40u : 20u) + 20,
                     payload = jumbo ? mss * 7 : mss * 44, len = hdr + payload;
        tx->pool = jumbo ? big : small;
        struct rte_mbuf *m = frame(big, len, 65535, v6);
        if (!m)
            return -1;
        m->tso_segsz = (uint16_t)mss;
        const uint64_t flags = RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_TCP_CKSUM |
                               (v6 ? RTE_MBUF_F_TX_IPV6 : RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM);
        m->ol_flags = flags;
        struct rte_gso_ctx ctx = {jumbo ? big : small, indirect, 0, RTE_ETH_TX_OFFLOAD_TCP_TSO, (uint16_t)(hdr + mss)};
        static double t[6][MAX_TRIALS], ratio[3][MAX_TRIALS];
        unsigned ours_n = 0, dpdk_n = 0;
        int have_dpdk = !v6; /* DPDK 22.11's GSO does not segment TCP/IPv6 */
        for (int k = -1; k < r->trials; k++) {
            const double copied = (double)time_ours_tso(tx, m, reps, &ours_n, 1, no_csum) / reps / r->hz * 1e6;
            const double zc = (double)time_ours_tso(tx, m, reps, &ours_n, 0, no_csum) / reps / r->hz * 1e6;
            const double zc_port = (double)time_ours_tso(tx, m, reps, &ours_n, 0, port_csum) / reps / r->hz * 1e6;
            const double ours = zc < copied ? zc : copied; /* the ratios: the faster form on this port */
            const double dpdk = have_dpdk ? (double)time_dpdk_tso(&ctx, m, flags, reps, &dpdk_n) / reps / r->hz * 1e6 : 0;
            m->ol_flags = flags;
            const double floor = (double)time_memcpy_tso(rte_pktmbuf_mtod(m, uint8_t *), hdr, payload, mss, copies, reps) /
                                 reps / r->hz * 1e6;
            const double mbufs = (double)time_memcpy_mbufs_tso(tx->pool, rte_pktmbuf_mtod(m, uint8_t *), hdr, payload, mss, reps) /
                                 reps / r->hz * 1e6;
            if (have_dpdk && dpdk_n == 0)
                have_dpdk = 0;
            if (k >= 0) {
                t[0][k] = copied;
                t[1][k] = dpdk;
                t[2][k] = floor;
                t[3][k] = mbufs;
                t[4][k] = zc;
                t[5][k] = zc_port;
                ratio[0][k] = dpdk / ours;
                ratio[1][k] = ours / floor;
                ratio[2][k] = ours / mbufs;
            }
        }
        const char *variant = jumbo ? "TCP/IPv4, MSS 8948" : v6 ? "TCP/IPv6" : "TCP/IPv4";
        struct stats_summary s[6], q[3];
        const char *names[6] = {"inetcsum_dpdk", "rte_gso_segment + checksums", "memcpy", "memcpy into new mbufs",
                                "inetcsum_dpdk zero-copy", "inetcsum_dpdk zero-copy, checksums by the port"};
        for (int w = 0; w < 6; w++) {
            struct figure_key key = {"dpdk", "tso", names[w], variant, (long)len};
            if (w != 1 || have_dpdk)
                bench_record(r, &key, "us", t[w], (size_t)r->trials, &s[w]);
        }
        struct figure_key k0 = {"dpdk", "tso", "DPDK / inetcsum_dpdk", variant, (long)len};
        struct figure_key k1 = {"dpdk", "tso", "inetcsum_dpdk / memcpy", variant, (long)len};
        if (have_dpdk)
            bench_record(r, &k0, "speed ratio", ratio[0], (size_t)r->trials, &q[0]);
        bench_record(r, &k1, "time ratio", ratio[1], (size_t)r->trials, &q[1]);
        struct figure_key k2 = {"dpdk", "tso", "inetcsum_dpdk / memcpy into new mbufs", variant, (long)len};
        bench_record(r, &k2, "time ratio", ratio[2], (size_t)r->trials, &q[2]);
        char dpdk_cell[32] = "not segmented by this DPDK", dpdk_ratio[16] = "-";
        if (have_dpdk) {
            snprintf(dpdk_cell, sizeof dpdk_cell, "%.2f", s[1].median);
            snprintf(dpdk_ratio, sizeof dpdk_ratio, "%.2f", q[0].median);
        }
        const double best = s[4].median < s[0].median ? s[4].median : s[0].median;
        fprintf(r->out, "| %s | %u | %.2f | %.2f | %.2f | %s | %.2f | %.2f | %s | %.2f | %.2f | %.1f |\n", variant, ours_n,
                s[0].median, s[4].median, s[5].median, dpdk_cell, s[2].median, s[3].median, dpdk_ratio, q[1].median,
                q[2].median, (double)(len + (ours_n - 1) * hdr) / (best * 1e-6) / 1e9);
        rte_pktmbuf_free(m);
    }
    tx->pool = tx->indirect_pool = NULL;
    tx->copy_segments = tx->zero_copy_always = 0;
    return 0;
}

/* ---- a port that does everything ---- */

static int tx_burst(struct bench_run *r)
{
    uint16_t port;
    if (rte_eth_dev_get_port_by_name("net_ring0", &port) != 0)
        return 0;
    struct rte_eth_conf conf;
    memset(&conf, 0, sizeof conf);
    conf.txmode.offloads = RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
    if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
        rte_eth_rx_queue_setup(port, 0, 512, SOCKET_ID_ANY, NULL, small) != 0 ||
        rte_eth_tx_queue_setup(port, 0, 512, SOCKET_ID_ANY, NULL) != 0 || rte_eth_dev_start(port) != 0)
        return 0;
    struct inetcsum_dpdk_tx *tx = inetcsum_dpdk_tx_new(port, 0, NULL);
    if (!tx)
        return 0;
    /* The port is told it does every checksum: nothing for the layer to do but compare flags. */
    ics_dpdk_tx_set_capa(tx, RTE_ETH_TX_OFFLOAD_MULTI_SEGS | RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
                                 RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM);
    enum { B = 32 };
    struct rte_mbuf *pkts[B], *back[B];
    for (int i = 0; i < B; i++) {
        pkts[i] = frame(small, 64, 64, 0);
        if (!pkts[i])
            return -1;
        pkts[i]->ol_flags = CSUM_FLAGS;
    }
    const unsigned reps = r->scale == BENCH_SMOKE ? 10 : 2000;
    static double t[2][MAX_TRIALS], diff[MAX_TRIALS];
    for (int k = -1; k < r->trials; k++) {
        for (int w = 0; w < 2; w++) {
            const uint64_t t0 = ticks();
            for (unsigned i = 0; i < reps; i++) {
                const uint16_t n = w ? inetcsum_dpdk_tx_burst(tx, pkts, B) : rte_eth_tx_burst(port, 0, pkts, B);
                const uint16_t got = rte_eth_rx_burst(port, 0, back, B);
                if (n != B || got != B)
                    return -1;
            }
            if (k >= 0)
                t[w][k] = (double)(ticks() - t0) / reps / B / r->hz * 1e9;
        }
        if (k >= 0)
            diff[k] = t[1][k] - t[0][k];
    }
    fprintf(r->out, "\n### tx_burst: bursts of %d packets the port does everything for, sent through a net_ring port "
                    "and read back (ns per packet, median of %d interleaved trials)\n\n", B, r->trials);
    const char *cols[] = {"rte_eth_tx_burst", "inetcsum_dpdk_tx_burst", "added by inetcsum (ns)"};
    bench_table_head(r->out, cols, 3);
    struct stats_summary s[3];
    struct figure_key k0 = {"dpdk", "tx_burst, all by the port", "rte_eth_tx_burst", "64 B, bursts of 32", 64};
    struct figure_key k1 = {"dpdk", "tx_burst, all by the port", "inetcsum_dpdk_tx_burst", "64 B, bursts of 32", 64};
    struct figure_key k2 = {"dpdk", "tx_burst, all by the port", "added by inetcsum_dpdk", "64 B, bursts of 32", 64};
    bench_record(r, &k0, "ns", t[0], (size_t)r->trials, &s[0]);
    bench_record(r, &k1, "ns", t[1], (size_t)r->trials, &s[1]);
    bench_record(r, &k2, "ns", diff, (size_t)r->trials, &s[2]);
    fprintf(r->out, "| %.2f | %.2f | %.2f |\n", s[0].median, s[1].median, s[2].median);
    for (int i = 0; i < B; i++)
        rte_pktmbuf_free(pkts[i]);
    inetcsum_dpdk_tx_free(tx);
    rte_eth_dev_stop(port);
    return 0;
}

int exp_dpdk(struct bench_run *r)
{
    fprintf(r->out, "\n## dpdk: libinetcsum_dpdk's software fallback against DPDK's own software route\n");
    if (bench_dpdk_eal() < 0) {
        bench_note(r, "dpdk: the EAL did not start here (or a sanitizer build): no figures");
        return 0;
    }
    if (!small) {
        /* Per-lcore caches as applications size them (256): freed mbufs come back warm, as in a
         * forwarding loop; without one the ring hands out all 4,095 in turn, cold. */
        small = rte_pktmbuf_pool_create("ics_bench_small", 4095, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
        big = rte_pktmbuf_pool_create("ics_bench_big", 63, 0, 0, 65535, SOCKET_ID_ANY);
        indirect = rte_pktmbuf_pool_create("ics_bench_indirect", 1023, 256, 0, 0, SOCKET_ID_ANY);
    }
    /* The layer's object without a port: its per-packet steps are timed alone. */
    struct inetcsum_dpdk_tx *tx = calloc(1, sizeof *tx);
    if (!small || !big || !indirect || !tx) {
        free(tx);
        fprintf(stderr, "inetcsum bench: dpdk: no mempools\n");
        return -1;
    }
    int rc = checksums(r, tx);
    if (rc == 0)
        rc = tso(r, tx);
    if (rc == 0)
        rc = tx_burst(r);
    inetcsum_dpdk_tx_free(tx);
    return rc;
}
#else
int exp_dpdk(struct bench_run *r)
{
    fprintf(r->out, "\n## dpdk: not in this build (the DPDK layer needs libdpdk-dev)\n");
    bench_note(r, "dpdk: the DPDK layer is not built here: install libdpdk-dev and rebuild");
    return 0;
}
#endif
