/* Experiment `packet`: ns per packet for the packet layer (verify, fill, offload with no device
 * help) on Ethernet + IPv4/IPv6 + TCP/UDP frames of 64 (IPv6/TCP: 74), 576, 1500 and 9000 bytes,
 * warm, interleaved with:
 *   - "sums": the checksum work alone with the layout known in advance (IPv4 header, pseudo-header,
 *     L4 sum through inetcsum's own functions): the floor the packet layer adds its parsing and
 *     bookkeeping to; verify - sums is the per-packet overhead;
 *   - DPDK's known-layout rte_ipv4_cksum + rte_ipv4/6_udptcp_cksum(_verify), inlined, as a DPDK
 *     application computes them (when built);
 *   - verify through the general walk, without the common-case shortcut. */
#include <string.h>

#include "anchors.h"
#include "contenders.h"
#include "experiments.h"
#include "frames.h"
#include "inetcsum_packet.h"
#include "packet/general.h"
#include "timing.h"
#include "wire/wire.h"

static struct inetcsum_report report;

DEFINE_TIMED_LOOP(static, loop_verify, inetcsum_verify(src, len, 0, INETCSUM_LINK_ETHERNET, 0, &report))
DEFINE_TIMED_LOOP(static, loop_fill, inetcsum_fill(dst, len, 0, INETCSUM_LINK_ETHERNET, 0, NULL))
/* The same frames through the general walk, as frames off the common path go (tunnels, options,
 * extension headers): what the shortcut saves. */
DEFINE_TIMED_LOOP(static, loop_walk, ics_verify_general(src, len, 0, INETCSUM_LINK_ETHERNET, 0, &report))

static const struct inetcsum_offload software_only = {INETCSUM_OFL_ALL, 0, 0};
DEFINE_TIMED_LOOP(static, loop_offload, inetcsum_offload(dst, len, INETCSUM_LINK_ETHERNET, &software_only, NULL))

/* The checksum work with a known layout: what the packet layer cannot avoid. */
static inline uint32_t known_layout_sums(const uint8_t *f, size_t len)
{
    const uint8_t *ip = f + ICS_ETH_HLEN;
    if (ics_ip_version(ip) == 4) {
        const size_t l4 = ICS_ETH_HLEN + ICS_IPV4_HLEN;
        uint32_t l4len = (uint32_t)(len - l4);
        return inetcsum_ipv4_header(ip, ICS_IPV4_HLEN / 4) +
               inetcsum_tcpudp_magic(ip + ICS_IPV4_SADDR, ip + ICS_IPV4_DADDR, l4len, ip[ICS_IPV4_PROTOCOL],
                                     inetcsum_partial(f + l4, l4len, 0));
    }
    const size_t l4 = ICS_ETH_HLEN + ICS_IPV6_HLEN;
    uint32_t l4len = (uint32_t)(len - l4);
    return inetcsum_ipv6_magic(ip + ICS_IPV6_SADDR, ip + ICS_IPV6_DADDR, l4len, ip[ICS_IPV6_NEXTHDR],
                               inetcsum_partial(f + l4, l4len, 0));
}
DEFINE_TIMED_LOOP(static, loop_sums, known_layout_sums(src, len))

#define MAX_TRIALS 64
enum { VERIFY, FILL, OFFLOAD, SUMS, WALK, DPDK_VERIFY, DPDK_FILL, NWAYS };

int exp_packet(struct bench_run *r)
{
    static const struct {
        const char *name;
        timed_loop loop;
    } way[NWAYS] = {{"verify", loop_verify}, {"fill", loop_fill},         {"offload", loop_offload},
                    {"sums", loop_sums},     {"verify, general walk", loop_walk},
                    {"DPDK verify", NULL},   {"DPDK fill", NULL}};
    timed_loop loops[NWAYS];
    int n = contenders_anchors_runnable() && anchor_have_dpdk() ? NWAYS : DPDK_VERIFY;
    for (int j = 0; j < NWAYS; j++)
        loops[j] = way[j].loop;
    if (n == NWAYS) {
        loops[DPDK_VERIFY] = loop_dpdk_verify;
        loops[DPDK_FILL] = loop_dpdk_fill;
    }
    fprintf(r->out, "\n## packet: the packet layer per packet, against the known-layout sums and DPDK's helpers\n");
    if (n < NWAYS)
        bench_note(r, "DPDK's helpers are not in this build: install libdpdk-dev and rebuild");
    fprintf(r->out, "\n### ns per packet (median of %d interleaved trials); overhead = verify - sums\n\n", r->trials);
    const char *cols[NWAYS + 6];
    int nc = 0;
    cols[nc++] = "frame";
    cols[nc++] = "size (B)";
    for (int j = 0; j < n; j++)
        cols[nc++] = way[j].name;
    cols[nc++] = "overhead (ns)";
    if (n == NWAYS) {
        cols[nc++] = "verify / DPDK";
        cols[nc++] = "fill / DPDK";
    }
    bench_table_head(r->out, cols, nc);

    static const size_t sizes[] = {64, 576, 1500, 9000};
    static uint8_t frame[9000], work[9000];
    static double t[NWAYS][MAX_TRIALS], derived[3][MAX_TRIALS];
    uint64_t rng = 1;
    for (int v6 = 0; v6 < 2; v6++)
        for (int tcp = 1; tcp >= 0; tcp--)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                /* The smallest IPv6/TCP frame is 74 bytes (14 + 40 + 20): at "64" it would be malformed. */
                size_t len = v6 && tcp && sizes[s] < 74 ? 74 : sizes[s];
                if (bench_frame(frame, len, v6, tcp, &rng) != 0) {
                    fprintf(stderr, "inetcsum bench: packet: frame setup failed\n");
                    return -1;
                }
                unsigned reps = bench_reps(r, len);
                for (int k = -1; k < r->trials; k++) /* trial -1 warms up */
                    for (int j = 0; j < n; j++) {
                        memcpy(work, frame, len);
                        double ns = (double)loops[j](frame, work, len, reps) / reps / r->hz * 1e9;
                        if (k >= 0)
                            t[j][k] = ns;
                    }
                for (int k = 0; k < r->trials; k++) {
                    derived[0][k] = t[VERIFY][k] - t[SUMS][k];
                    if (n == NWAYS) {
                        derived[1][k] = t[VERIFY][k] / t[DPDK_VERIFY][k];
                        derived[2][k] = t[FILL][k] / t[DPDK_FILL][k];
                    }
                }
                char variant[16];
                snprintf(variant, sizeof variant, "%s/%s", v6 ? "IPv6" : "IPv4", tcp ? "TCP" : "UDP");
                fprintf(r->out, "| %s | %zu |", variant, len);
                struct stats_summary sum;
                for (int j = 0; j < n; j++) {
                    struct figure_key key = {"packet", "time per packet", way[j].name, variant, (long)len};
                    bench_record(r, &key, "ns", t[j], (size_t)r->trials, &sum);
                    fprintf(r->out, " %.1f%s |", sum.median, bench_noisy(&sum) ? "~" : "");
                }
                static const char *const metric[3] = {"overhead over the known-layout sums", "time ratio to DPDK",
                                                       "time ratio to DPDK"};
                static const char *const who[3] = {"verify", "verify", "fill"};
                for (int q = 0; q < (n == NWAYS ? 3 : 1); q++) {
                    struct figure_key key = {"packet", metric[q], who[q], variant, (long)len};
                    bench_record(r, &key, q ? "time ratio" : "ns", derived[q], (size_t)r->trials, &sum);
                    fprintf(r->out, q ? " %.2f |" : " %.1f |", sum.median);
                }
                fputc('\n', r->out);
                fflush(r->out);
            }
    return 0;
}
