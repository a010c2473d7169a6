/* inetcsum packet-layer benchmark: ns per packet for verify, fill and offload (no device help) on
 * Ethernet + IPv4/IPv6 + TCP/UDP frames of 64 (IPv6/TCP: 74), 576, 1500 and 9000 bytes, warm,
 * interleaved with:
 *   - "sums": the checksum work alone, with the layout known in advance (IPv4 header sum,
 *     pseudo-header, L4 sum through inetcsum's own functions): the floor the packet layer adds its
 *     parsing and bookkeeping to; verify - sums is the per-packet overhead;
 *   - DPDK's known-layout rte_ipv4_cksum + rte_ipv4/6_udptcp_cksum(_verify), inlined, as a DPDK
 *     application computes them;
 *   - verify through the general walk, without the common-case shortcut.
 * Medians over interleaved trials.  Usage: bench_packet [--quick] [--trials N] [--cpu N] */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anchors.h"
#include "bench_util.h"
#include "frames.h"
#include "inetcsum_packet.h"
#include "packet/paths.h"
#include "timing.h"

static struct inetcsum_report report;

DEFINE_TIMED_LOOP(static, loop_verify,
                  inetcsum_verify(src, len, 0, INETCSUM_LINK_ETHERNET, 0, &report))
DEFINE_TIMED_LOOP(static, loop_fill, inetcsum_fill(dst, len, 0, INETCSUM_LINK_ETHERNET, 0, NULL))
/* The same frames through the general walk, as frames off the common path go (tunnels, options,
 * extension headers): what the shortcut saves. */
DEFINE_TIMED_LOOP(static, loop_walk, ics_verify_general(src, len, 0, INETCSUM_LINK_ETHERNET, 0, &report))

static const struct inetcsum_offload software_only = {INETCSUM_OFL_ALL, 0, 0};
DEFINE_TIMED_LOOP(static, loop_offload, inetcsum_offload(dst, len, INETCSUM_LINK_ETHERNET, &software_only, NULL))

/* The checksum work with a known layout: what the packet layer cannot avoid. */
static inline uint32_t known_layout_sums(const uint8_t *f, size_t len)
{
    if ((f[14] >> 4) == 4) {
        const uint8_t *ip = f + 14;
        uint32_t l4len = len - 34;
        return inetcsum_ipv4_header(ip, 5) +
               inetcsum_tcpudp_magic(ip + 12, ip + 16, l4len, ip[9], inetcsum_partial(f + 34, l4len, 0));
    }
    const uint8_t *ip6 = f + 14;
    uint32_t l4len = len - 54;
    return inetcsum_ipv6_magic(ip6 + 8, ip6 + 24, l4len, ip6[6], inetcsum_partial(f + 54, l4len, 0));
}
DEFINE_TIMED_LOOP(static, loop_sums, known_layout_sums(src, len))

struct contender {
    const char *name;
    timed_loop fn;
    int writes; /* works on the copy in dst */
};

int main(int argc, char **argv)
{
    struct bench_opts opt;
    bench_args(argc, argv, 11, 3, &opt);
    int trials = opt.trials, cpu = opt.cpu;
    unsigned reps_bytes = opt.quick ? 1u << 20 : 4u << 20; /* bytes per timed loop */
    pin(cpu);
    double hz = tsc_hz();
    printf("inetcsum %s packet bench: TSC %.3f GHz, kernel %s\n\n", inetcsum_version(), hz / 1e9, inetcsum_impl_name());

    const struct contender c[] = {
        {"verify", loop_verify, 0},   {"fill", loop_fill, 1},           {"offload", loop_offload, 1},
        {"sums", loop_sums, 0},       {"DPDK verify", loop_dpdk_verify, 0}, {"DPDK fill", loop_dpdk_fill, 1},
        {"verify, general walk", loop_walk, 0},
    };
    enum { NC = sizeof c / sizeof c[0] };
    const size_t sizes[] = {64, 576, 1500, 9000};
    static uint8_t frame[9000], work[9000];
    uint64_t rng = 1;

    printf("### ns per packet (median of %d interleaved trials); overhead = verify - sums\n\n", trials);
    printf("| frame | size (B) |");
    for (int j = 0; j < NC; j++)
        printf(" %s |", c[j].name);
    printf(" overhead (ns) | verify / DPDK | fill / DPDK |\n|---|---|");
    for (int j = 0; j < NC + 3; j++)
        printf("---|");
    printf("\n");
    for (int v6 = 0; v6 < 2; v6++)
        for (int tcp = 1; tcp >= 0; tcp--)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                /* The smallest IPv6/TCP frame is 74 bytes (14 + 40 + 20): at "64" it would be malformed. */
                size_t len = v6 && tcp && sizes[s] < 74 ? 74 : sizes[s];
                if (bench_frame(frame, len, v6, tcp, &rng) != 0) {
                    fprintf(stderr, "bench_packet: frame setup failed\n");
                    return 1;
                }
                unsigned reps = (unsigned)(reps_bytes / len);
                if (reps < 1000)
                    reps = 1000;
                double t[NC][31], over[31], rv[31], rf[31];
                for (int k = 0; k < trials; k++) {
                    for (int j = 0; j < NC; j++) {
                        memcpy(work, frame, len);
                        c[j].fn(frame, work, len, reps / 10); /* warm */
                        t[j][k] = (double)c[j].fn(frame, work, len, reps) / reps / hz * 1e9;
                    }
                    over[k] = t[0][k] - t[3][k];
                    rv[k] = t[0][k] / t[4][k];
                    rf[k] = t[1][k] / t[5][k];
                }
                printf("| %s/%s | %zu |", v6 ? "IPv6" : "IPv4", tcp ? "TCP" : "UDP", len);
                for (int j = 0; j < NC; j++)
                    printf(" %.1f |", median(t[j], trials));
                printf(" %.1f | %.2f | %.2f |\n", median(over, trials), median(rv, trials), median(rf, trials));
            }
    return 0;
}
