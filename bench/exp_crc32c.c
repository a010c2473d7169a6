/* Experiment `crc32c` (SCTP's checksum, RFC 9260 appendix B): TSC ticks per call of the public
 * inetcsum_crc32c and every CRC32c kernel this CPU runs, beside DPDK's rte_hash_crc (when built),
 * the one-instruction-stream loop DPDK applications checksum SCTP with; independent calls,
 * interleaved within each trial, medians and per-trial ratios. */
#include <stdlib.h>
#include <string.h>

#include "anchors.h"
#include "contenders.h"
#include "experiments.h"
#include "inetcsum_proto.h"
#include "kernels.h"
#include "crc32c.h"
#include "subject_inlined.h"
#include "timing.h"

static const size_t sizes[] = {12, 64, 100, 128, 200, 256, 576, 1500, 4096, 9000, 65536};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define MAX_TRIALS 64
#define MAX_WAYS 12

/* Each kernel through a pointer, on the raw register, as the public entry calls it. */
static uint32_t (*timed_crc)(uint32_t reg, const uint8_t *p, size_t len);
DEFINE_TIMED_LOOP(static, loop_crc_kernel, timed_crc(~0u, src, len))
/* The library's entry itself: () keeps the header's inline path off (this file has SSE4.2 from
 * DPDK's -march=corei7 where DPDK is found; "inetcsum inlined" times that path). */
DEFINE_TIMED_LOOP(static, loop_crc_public, (inetcsum_crc32c)(src, len, 0))

struct way {
    const char *name;
    timed_loop loop;
    uint32_t (*fn)(uint32_t reg, const uint8_t *p, size_t len); /* kernels only */
};

int exp_crc32c(struct bench_run *r)
{
    struct way w[MAX_WAYS];
    int n = 0, dpdk = -1;
    if (contenders_anchors_runnable() && anchor_have_dpdk()) {
        dpdk = n;
        w[n++] = (struct way){"DPDK rte_hash_crc", loop_dpdk_crc32c, NULL};
    }
    const int subject = n;
    w[n++] = (struct way){"inetcsum_crc32c", loop_crc_public, NULL};
    int inlined = -1; /* the header's short path in the caller's code, where the anchors' flags give it */
    if (subject_inlined_crc32c_compiled()) {
        inlined = n;
        w[n++] = (struct way){"inetcsum inlined", loop_inlined_crc32c, NULL};
    }
    uint32_t feat = ics_cpu_features();
    ics_crc32c_init();
    for (size_t i = 0; i < ics_crc32c_kernel_count && n < MAX_WAYS; i++)
        if ((ics_crc32c_kernels[i].required & ~feat) == 0 && (!r->impl || strcmp(r->impl, ics_crc32c_kernels[i].name) == 0))
            w[n++] = (struct way){ics_crc32c_kernels[i].name, loop_crc_kernel, ics_crc32c_kernels[i].fn};

    const size_t cap = 65536 + 64;
    uint8_t *src = aligned_alloc(64, cap);
    if (!src) {
        fprintf(stderr, "inetcsum bench: out of memory\n");
        return -1;
    }
    for (size_t i = 0; i < cap; i++)
        src[i] = (uint8_t)(i * 131 + 7);
    for (int j = 0; j < n; j++) { /* agreement before timing */
        uint32_t want = (inetcsum_crc32c)(src, 65536, 0);
        uint32_t got = j == dpdk      ? anchor_dpdk_crc32c(src, 65536, 0)
                       : j == inlined ? subject_inlined_crc32c(src, 65536, 0)
                       : w[j].fn      ? ~w[j].fn(~0u, src, 65536)
                                      : want;
        if (got != want) {
            fprintf(stderr, "inetcsum bench: %s disagrees with inetcsum_crc32c\n", w[j].name);
            free(src);
            return -1;
        }
    }

    fprintf(r->out, "\n## crc32c: CRC32c (SCTP) at each size, every kernel beside DPDK's rte_hash_crc\n");
    if (dpdk < 0)
        bench_note(r, "DPDK's rte_hash_crc is not in this build: install libdpdk-dev and rebuild");
    fprintf(r->out, "\n### Independent calls (TSC ticks per call, median of %d interleaved trials; in use: %s)\n\n",
            r->trials, inetcsum_crc32c_impl_name());
    const char *cols[MAX_WAYS + 2];
    int nc = 0;
    cols[nc++] = "size (B)";
    for (int j = 0; j < n; j++)
        cols[nc++] = w[j].name;
    if (dpdk >= 0)
        cols[nc++] = "inetcsum_crc32c / DPDK";
    if (dpdk >= 0 && inlined >= 0)
        cols[nc++] = "inlined / DPDK";
    bench_table_head(r->out, cols, nc);
    static double t[MAX_WAYS][MAX_TRIALS], ratio[MAX_TRIALS], ratio_inlined[MAX_TRIALS];
    for (size_t s = 0; s < NSIZES; s++) {
        size_t len = sizes[s];
        unsigned reps = bench_reps(r, len);
        for (int k = -1; k < r->trials; k++) { /* trial -1 warms up */
            for (int j = 0; j < n; j++) {
                if (w[j].fn)
                    timed_crc = w[j].fn;
                double v = (double)w[j].loop(src, NULL, len, reps) / reps;
                if (k >= 0)
                    t[j][k] = v;
            }
            if (k >= 0 && dpdk >= 0) {
                ratio[k] = t[subject][k] / (t[dpdk][k] > 0 ? t[dpdk][k] : 1);
                if (inlined >= 0)
                    ratio_inlined[k] = t[inlined][k] / (t[dpdk][k] > 0 ? t[dpdk][k] : 1);
            }
        }
        fprintf(r->out, "| %zu |", len);
        struct stats_summary sum;
        for (int j = 0; j < n; j++) {
            struct figure_key key = {"crc32c", "throughput", w[j].name, NULL, (long)len};
            bench_record(r, &key, "ticks", t[j], (size_t)r->trials, &sum);
            fprintf(r->out, " %.1f%s |", sum.median, bench_noisy(&sum) ? "~" : "");
        }
        if (dpdk >= 0) {
            struct figure_key key = {"crc32c", "throughput ratio to DPDK rte_hash_crc", "inetcsum_crc32c", NULL, (long)len};
            bench_record(r, &key, "time ratio", ratio, (size_t)r->trials, &sum);
            fprintf(r->out, " %.2f |", sum.median);
            if (inlined >= 0) {
                struct figure_key ki = {"crc32c", "throughput ratio to DPDK rte_hash_crc", "inetcsum inlined", NULL,
                                        (long)len};
                bench_record(r, &ki, "time ratio", ratio_inlined, (size_t)r->trials, &sum);
                fprintf(r->out, " %.2f |", sum.median);
            }
        }
        fputc('\n', r->out);
        fflush(r->out);
    }
    free(src);
    return 0;
}
