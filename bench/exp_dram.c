/* Experiment `dram`: 64 MiB, far beyond the caches: GB/s of the sum, the fused copy, memcpy then
 * sum and memcpy alone, beside the read limit and DPDK's sum; then every sum kernel alone, since
 * the fastest in the caches need not be the fastest from DRAM (on Zen 4 the 512-bit loads stream
 * at about 80% of the 256-bit ones' rate).  The best of the trials: a DRAM run is limited by the
 * memory system, and the best run is the least disturbed one. */
#include <stdlib.h>
#include <string.h>

#include "anchors.h"
#include "contenders.h"
#include "experiments.h"
#include "inetcsum.h"
#include "timing.h"

DEFINE_TIMED_LOOP(static, loop_sum, inetcsum_partial(src, len, 0))
DEFINE_TIMED_LOOP(static, loop_copy, inetcsum_partial_copy(dst, src, len, 0))
DEFINE_TIMED_LOOP(static, loop_memcpy_sum, (memcpy(dst, src, len), inetcsum_partial(dst, len, 0)))

#define MAX_TRIALS 64

int exp_dram(struct bench_run *r)
{
    struct {
        const char *name;
        timed_loop loop;
    } c[6];
    int n = 0;
    const int anchors = contenders_anchors_runnable();
    if (anchors)
        c[n++] = (typeof(c[0])){"read limit", loop_read_limit};
    if (anchors && anchor_have_dpdk())
        c[n++] = (typeof(c[0])){"DPDK", loop_dpdk};
    c[n++] = (typeof(c[0])){"inetcsum", loop_sum};
    c[n++] = (typeof(c[0])){"memcpy", loop_memcpy};
    c[n++] = (typeof(c[0])){"memcpy+inetcsum", loop_memcpy_sum};
    c[n++] = (typeof(c[0])){"inetcsum copy", loop_copy};
    const size_t len = r->scale == BENCH_SMOKE ? (size_t)4 << 20 : (size_t)64 << 20;
    uint8_t *src = aligned_alloc(4096, len), *dst = aligned_alloc(4096, len + 4096);
    if (!src || !dst) {
        free(src);
        free(dst);
        fprintf(stderr, "inetcsum bench: out of memory\n");
        return -1;
    }
    memset(src, 0x5A, len);
    memset(dst, 0, len + 4096);
    uint8_t *d = dst + 2048; /* away from the source modulo 4 KiB (4K aliasing) */
    fprintf(r->out, "\n## dram: a %zu MiB buffer, far beyond the caches\n", len >> 20);
    if (!anchors)
        bench_note(r, "the anchors were compiled (-march=native) for a CPU with more features than this one: "
                      "rebuild here to time them");
    fprintf(r->out, "\n### GB/s (best of %d trials)\n\n", r->trials);
    const char *cols[6];
    for (int j = 0; j < n; j++)
        cols[j] = c[j].name;
    bench_table_head(r->out, cols, n);
    static double g[6][MAX_TRIALS];
    for (int k = 0; k < r->trials; k++)
        for (int j = 0; j < n; j++)
            g[j][k] = (double)len / ((double)c[j].loop(src, d, len, 1) / r->hz) / 1e9;
    fputc('|', r->out);
    for (int j = 0; j < n; j++) {
        struct stats_summary sum;
        struct figure_key key = {"dram", "throughput", c[j].name, NULL, (long)len};
        bench_record(r, &key, "GB/s", g[j], (size_t)r->trials, &sum);
        fprintf(r->out, " %.1f |", sum.max);
    }
    fputc('\n', r->out);

    /* Every sum kernel this CPU runs (the contenders `sizes` times), and which streams fastest:
     * the step a tuning row takes for sizes past the caches. */
    struct contenders cs;
    const char *why;
    contenders_init(&cs, r->impl, &why);
    static double gk[MAX_CONTENDERS][MAX_TRIALS];
    const char *kcols[MAX_CONTENDERS];
    int kidx[MAX_CONTENDERS], nk = 0;
    for (int j = 0; j < cs.n; j++)
        if (cs.c[j].role == ROLE_KERNEL) {
            kidx[nk] = j;
            kcols[nk++] = cs.c[j].name;
        }
    for (int t = 0; t < r->trials; t++)
        for (int j = 0; j < nk; j++)
            gk[j][t] = (double)len / ((double)contender_time(&cs.c[kidx[j]], 0, src, d, len, 1) / r->hz) / 1e9;
    fprintf(r->out, "\n### Each sum kernel from DRAM (GB/s, best of %d trials)\n\n", r->trials);
    bench_table_head(r->out, kcols, nk);
    fputc('|', r->out);
    int best = -1;
    double best_gbs = 0;
    for (int j = 0; j < nk; j++) {
        struct stats_summary sum;
        struct figure_key key = {"dram", "throughput", kcols[j], "kernel", (long)len};
        bench_record(r, &key, "GB/s", gk[j], (size_t)r->trials, &sum);
        fprintf(r->out, " %.1f |", sum.max);
        if (sum.max > best_gbs)
            best = j, best_gbs = sum.max;
    }
    fputc('\n', r->out);
    if (best >= 0 && !r->impl)
        fprintf(r->out, "\nFastest from DRAM: %s (in use for %zu MiB: %s)\n", kcols[best], len >> 20,
                inetcsum_impl_name_at(len));
    free(src);
    free(dst);
    return 0;
}
