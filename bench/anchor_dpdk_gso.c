/* DPDK's rte_gso_segment for `inetcsum bench gso`, when libdpdk-dev is there (ICS_BENCH_DPDK).
 * It does another job than inetcsum_gso_segment: each output segment is two mbufs, a copy of the
 * headers and an indirect mbuf pointing into the input's payload (no payload is copied), and no
 * checksum is computed (the NIC is to fill them).  It needs the EAL and two mempools: set up once,
 * without hugepages or PCI (--no-huge --no-pci), the first time it is asked for. */
#include "anchor_dpdk_gso.h"

#ifdef ICS_BENCH_DPDK
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_gso.h>
#include <rte_mbuf.h>
#include <string.h>

#include "timing.h"

static struct rte_mempool *direct, *indirect;
static struct rte_mbuf *input;
static struct rte_gso_ctx ctx;
static uint64_t flags;

#include "sanitizers.h"
#if defined(ICS_UNDER_TSAN) || defined(ICS_UNDER_ASAN)
#define ICS_SANITIZED 1
#endif

int bench_dpdk_eal(void)
{
#ifdef ICS_SANITIZED
    /* The EAL starts threads and maps memory the sanitizers do not know: no figure there. */
    return -1;
#endif
    static int eal = 0;
    if (eal == 0) {
        /* One EAL a process: it serves this anchor and `bench dpdk` (whose loopback port it is). */
        char *argv[] = {"inetcsum-bench", "--no-huge", "--no-pci", "-m", "512", "--no-shconf", "--log-level=3",
                        "--vdev=net_ring0", NULL};
        eal = rte_eal_init(8, argv) < 0 ? -1 : 1;
    }
    return eal;
}

int dpdk_gso_setup(const uint8_t *pkt, size_t len, int v6, size_t l3_len, size_t l4_len, size_t seg_size)
{
    if (bench_dpdk_eal() < 0)
        return -1;
    if (!direct) {
        direct = rte_pktmbuf_pool_create("ics_gso_direct", 1024, 0, 0, 65535, SOCKET_ID_ANY);
        indirect = rte_pktmbuf_pool_create("ics_gso_indirect", 1024, 0, 0, 0, SOCKET_ID_ANY);
        if (!direct || !indirect)
            return -1;
    }
    if (input)
        rte_pktmbuf_free(input);
    input = rte_pktmbuf_alloc(direct);
    if (!input || len > rte_pktmbuf_tailroom(input))
        return -1;
    memcpy(rte_pktmbuf_append(input, (uint16_t)len), pkt, len);
    input->l2_len = 14;
    input->l3_len = l3_len;
    input->l4_len = l4_len;
    flags = RTE_MBUF_F_TX_TCP_SEG | (v6 ? RTE_MBUF_F_TX_IPV6 : RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM);
    ctx = (struct rte_gso_ctx){direct, indirect, 0, RTE_ETH_TX_OFFLOAD_TCP_TSO, (uint16_t)seg_size};
    return 0;
}

uint64_t dpdk_gso_time(unsigned reps, unsigned *segments)
{
    struct rte_mbuf *out[128];
    uint64_t t0 = ticks();
    int n = 0;
    for (unsigned k = 0; k < reps; k++) {
        input->ol_flags = flags; /* rte_gso_segment clears TCP_SEG on the input */
        n = rte_gso_segment(input, &ctx, out, 128);
        if (n > 0)
            rte_pktmbuf_free_bulk(out, (unsigned)n); /* the segments sent: the indirect ones let go */
    }
    uint64_t t = ticks() - t0;
    *segments = n > 0 ? (unsigned)n : 0;
    return t;
}
#else
int bench_dpdk_eal(void)
{
    return -1;
}

int dpdk_gso_setup(const uint8_t *pkt, size_t len, int v6, size_t l3_len, size_t l4_len, size_t seg_size)
{
    (void)pkt, (void)len, (void)v6, (void)l3_len, (void)l4_len, (void)seg_size;
    return -1;
}

uint64_t dpdk_gso_time(unsigned reps, unsigned *segments)
{
    (void)reps;
    *segments = 0;
    return 0;
}
#endif
