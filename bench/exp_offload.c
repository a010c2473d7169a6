/* Experiment `offload` (seed 003, FreeBSD's "compute and insert checksums as late as possible"):
 * packets per second for making a stream of Ethernet/IPv4/TCP-or-UDP frames ready for a device
 * with inetcsum_offload, the TCP/UDP checksums left to the device in both cases and the IPv4
 * header checksum either computed in software or left to the device too; 20 runs of each,
 * alternating, judged as the seed judged them: ministat's Student's t at 95% confidence.  A third
 * line, nothing offloaded, shows what the device's TCP/UDP checksums save. */
#include <stdlib.h>
#include <string.h>

#include "experiments.h"
#include "frames.h"
#include "inetcsum_packet.h"
#include "timing.h"

enum { RING = 256, RUNS = 20, MAX_RUNS = 64 };
static const size_t sizes[] = {64, 576, 1500};
#define NSIZES (sizeof sizes / sizeof sizes[0])

struct way {
    const char *name;
    struct inetcsum_offload ofl;
};
#define WANT (INETCSUM_OFL_IPV4 | INETCSUM_OFL_TCP4 | INETCSUM_OFL_UDP4)
static const struct way ways[] = {
    {"IPv4 header in software", {WANT, INETCSUM_OFL_TCP4 | INETCSUM_OFL_UDP4, 0}},
    {"IPv4 header by the device", {WANT, WANT, 0}},
    {"nothing offloaded", {WANT, 0, 0}},
};
#define NWAYS (sizeof ways / sizeof ways[0])

/* Packets per second for `frames` frames of the ring, prepared the given way. */
static double run(uint8_t (*ring)[1500], size_t len, size_t frames, const struct way *w, double hz)
{
    uint32_t sink = 0;
    uint64_t t0 = ticks();
    for (size_t i = 0; i < frames; i++)
        sink ^= inetcsum_offload(ring[i % RING], len, INETCSUM_LINK_ETHERNET, &w->ofl, NULL);
    uint64_t t = ticks() - t0;
    OPAQUE(sink);
    return (double)frames / ((double)t / hz);
}

/* The ways must do what they say: what the device does not do is computed in software, the rest
 * left to it (ring[0] is TCP, ring[1] UDP). */
static int check(uint8_t (*ring)[1500], size_t len)
{
    for (size_t w = 0; w < NWAYS; w++)
        for (int i = 0; i < 2; i++) {
            uint32_t carried = INETCSUM_OFL_IPV4 | (i == 0 ? INETCSUM_OFL_TCP4 : INETCSUM_OFL_UDP4);
            uint32_t soft = inetcsum_offload(ring[i], len, INETCSUM_LINK_ETHERNET, &ways[w].ofl, NULL);
            if (soft != (carried & ~ways[w].ofl.device)) {
                fprintf(stderr, "inetcsum bench: offload '%s' computed kinds 0x%x in software\n", ways[w].name, soft);
                return -1;
            }
        }
    return 0;
}

static size_t frames_per_run(const struct bench_run *r)
{
    return r->scale == BENCH_FULL ? 400000 : r->scale == BENCH_QUICK ? 100000 : 2000;
}

int exp_offload(struct bench_run *r)
{
    uint8_t(*ring)[1500] = malloc(sizeof(uint8_t[RING][1500]));
    if (!ring) {
        fprintf(stderr, "inetcsum bench: out of memory\n");
        return -1;
    }
    int runs = r->scale == BENCH_SMOKE ? 3 : RUNS;
    size_t frames = frames_per_run(r);
    fprintf(r->out,
            "\n## offload: the IPv4 header checksum in software or left to the device (seed 003)\n\n"
            "packets per second through inetcsum_offload (TCP/UDP left to the device in both), %zu frames "
            "per run, %d runs of each, alternating; x = software, + = device\n",
            frames, runs);
    int rc = 0;
    for (size_t s = 0; s < NSIZES && rc == 0; s++) {
        size_t len = sizes[s];
        uint64_t rng = 3 + len;
        for (int i = 0; i < RING && rc == 0; i++)
            rc = bench_frame(ring[i], len, 0, i % 2 == 0, &rng);
        if (rc == 0)
            rc = check(ring, len);
        if (rc != 0)
            break;
        static double pps[NWAYS][MAX_RUNS];
        for (size_t w = 0; w < NWAYS; w++) /* warm */
            run(ring, len, frames / 10, &ways[w], r->hz);
        for (int k = 0; k < runs; k++)
            for (size_t w = 0; w < NWAYS; w++)
                pps[w][k] = run(ring, len, frames, &ways[w], r->hz);
        struct stats_summary st[NWAYS];
        fprintf(r->out, "\n%zu-byte frames:\n\n", len);
        static const char *const cols[] = {"", "way", "N", "Min", "Max", "Median", "Avg", "Stddev"};
        bench_table_head(r->out, cols, 8);
        for (size_t w = 0; w < NWAYS; w++) {
            struct figure_key key = {"offload", "packets per second", ways[w].name, NULL, (long)len};
            bench_record(r, &key, "pps", pps[w], (size_t)runs, &st[w]);
            fprintf(r->out, "| %s | %s | %zu | %.0f | %.0f | %.0f | %.0f | %.0f |\n", w == 0 ? "x" : w == 1 ? "+" : "",
                    ways[w].name, st[w].n, st[w].min, st[w].max, st[w].median, st[w].mean, st[w].stddev);
        }
        struct stats_difference d;
        if (stats_ministat(st[0].n, st[0].mean, st[0].stddev, st[1].n, st[1].mean, st[1].stddev, 0.95, &d) == 0) {
            if (d.significant)
                fprintf(r->out,
                        "\nDifference at 95.0%% confidence (+ against x)\n\t%+.0f +/- %.0f pps\n\t%+.3f%% +/- %.3f%%\n"
                        "\t(Student's t, pooled s = %.0f)\n",
                        d.diff, d.halfwidth, d.pct, d.pct_halfwidth, d.pooled_s);
            else
                fprintf(r->out, "\nNo difference proven at 95.0%% confidence (%+.3f%% +/- %.3f%%)\n", d.pct,
                        d.pct_halfwidth);
        }
        fflush(r->out);
    }
    free(ring);
    return rc;
}
