/* Part of experiment `copy`: TSC ticks per call of every copy+sum kernel beside memcpy and memcpy
 * then inetcsum_partial, with both buffers aligned and with the source one byte off (a payload
 * copied out of a frame into an aligned buffer), interleaved within each trial as in `sizes`; then
 * the fastest copy kernel per size and the copy steps of a tuning row (lib/tuning.c) they make. */
#include <stdlib.h>
#include <string.h>

#include "copy_kernels.h"
#include "inetcsum.h"
#include "kernels.h"
#include "timing.h"
#include "tuning_steps.h"

static const size_t sizes[] = {32, 64, 128, 256, 576, 1500, 2048, 4096, 9000, 65536};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define MAX_TRIALS 64
#define MAX_WAYS 16

static uint32_t (*timed_copy)(void *dst, const void *src, size_t len, uint32_t sum);
DEFINE_TIMED_LOOP(static, loop_kernel_copy, timed_copy(dst, src, len, 0))
DEFINE_TIMED_LOOP(static, loop_public_copy, inetcsum_partial_copy(dst, src, len, 0))
DEFINE_TIMED_LOOP(static, loop_memcpy_sum, (memcpy(dst, src, len), inetcsum_partial(dst, len, 0)))
DEFINE_TIMED_LOOP(static, loop_memcpy_only, (memcpy(dst, src, len), 0))

struct way {
    const char *name;
    timed_loop loop;
    uint32_t (*copy)(void *dst, const void *src, size_t len, uint32_t sum); /* kernels only */
};

static int ways_init(struct way *w, const char *impl)
{
    int n = 0;
    w[n++] = (struct way){"memcpy", loop_memcpy_only, NULL};
    w[n++] = (struct way){"memcpy+inetcsum", loop_memcpy_sum, NULL};
    w[n++] = (struct way){"inetcsum copy", loop_public_copy, NULL};
    uint32_t feat = ics_cpu_features();
    for (size_t i = 0; i < ics_kernel_count && n < MAX_WAYS; i++)
        if ((ics_kernels[i].required & ~feat) == 0 && (!impl || strcmp(impl, ics_kernels[i].name) == 0))
            w[n++] = (struct way){ics_kernels[i].name, loop_kernel_copy, ics_kernels[i].copy};
    return n;
}

static uint64_t time_way(const struct way *w, const uint8_t *src, uint8_t *dst, size_t len, unsigned reps)
{
    if (w->copy)
        timed_copy = w->copy;
    return w->loop(src, dst, len, reps);
}

/* Medians per way, size and alignment (0: both aligned, 1: source one byte off). */
static double medians[2][MAX_WAYS][NSIZES];

static void table(struct bench_run *r, const struct way *w, int n, int off, const uint8_t *src, uint8_t *dst)
{
    const char *variant = off ? "src+1" : "aligned";
    fprintf(r->out, "\n### Copy+sum, %s (TSC ticks per call, median of %d interleaved trials)\n\n",
            off ? "source one byte off an aligned destination" : "both buffers aligned", r->trials);
    const char *cols[MAX_WAYS + 3];
    int nc = 0;
    cols[nc++] = "size (B)";
    for (int j = 0; j < n; j++)
        cols[nc++] = w[j].name;
    cols[nc++] = "inetcsum copy / memcpy";
    cols[nc++] = "inetcsum copy / memcpy+inetcsum";
    bench_table_head(r->out, cols, nc);
    static double t[MAX_WAYS][MAX_TRIALS], ratio[2][MAX_TRIALS];
    for (size_t s = 0; s < NSIZES; s++) {
        size_t len = sizes[s];
        unsigned reps = bench_reps(r, len);
        for (int j = 0; j < n; j++)
            time_way(&w[j], src + off, dst, len, reps); /* warm up */
        for (int k = 0; k < r->trials; k++) {
            for (int j = 0; j < n; j++)
                t[j][k] = (double)time_way(&w[j], src + off, dst, len, reps) / reps;
            ratio[0][k] = t[2][k] / (t[0][k] > 0 ? t[0][k] : 1);
            ratio[1][k] = t[2][k] / (t[1][k] > 0 ? t[1][k] : 1);
        }
        fprintf(r->out, "| %zu |", len);
        struct stats_summary sum;
        for (int j = 0; j < n; j++) {
            struct figure_key key = {"copy", "ticks", w[j].name, variant, (long)len};
            bench_record(r, &key, "ticks", t[j], (size_t)r->trials, &sum);
            medians[off][j][s] = sum.median;
            fprintf(r->out, " %.1f%s |", sum.median, bench_noisy(&sum) ? "~" : "");
        }
        for (int q = 0; q < 2; q++) {
            struct figure_key key = {"copy", q ? "ticks ratio to memcpy+inetcsum" : "ticks ratio to memcpy",
                                     "inetcsum copy", variant, (long)len};
            bench_record(r, &key, "time ratio", ratio[q], (size_t)r->trials, &sum);
            fprintf(r->out, " %.2f |", sum.median);
        }
        fputc('\n', r->out);
        fflush(r->out);
    }
}

/* The fastest copy kernel per size (mean of the two alignments) and the copy steps it makes
 * (tuning_steps.h). */
static void preferred(struct bench_run *r, const struct way *w, int n)
{
    fprintf(r->out, "\n### Preferred copy kernel per size (mean of aligned and src+1)\n\n");
    const char *cols[] = {"size (B)", "fastest", "ticks", "in use", "in use / fastest"};
    bench_table_head(r->out, cols, 5);
    struct tuning_steps steps;
    tuning_steps_init(&steps);
    for (size_t s = 0; s < NSIZES; s++) {
        const char *names[MAX_WAYS];
        double t[MAX_WAYS];
        int best = -1, used = -1;
        const char *in_use = ics_copy_name_at(sizes[s]);
        for (int j = 0; j < n; j++) {
            names[j] = w[j].copy ? w[j].name : NULL;
            t[j] = (medians[0][j][s] + medians[1][j][s]) / 2;
            if (!names[j])
                continue;
            if (strcmp(names[j], in_use) == 0)
                used = j;
            if (best < 0 || t[j] < t[best])
                best = j;
        }
        if (best < 0)
            return;
        fprintf(r->out, "| %zu | %s | %.1f | %s | ", sizes[s], names[best], t[best], in_use);
        if (used >= 0 && t[best] > 0)
            fprintf(r->out, "%.2f |\n", t[used] / t[best]);
        else
            fprintf(r->out, "- |\n");
        if (strcmp(in_use, "inline") != 0) /* where no kernel runs, the row has nothing to choose */
            tuning_steps_add(&steps, sizes[s], names, t, n, best);
    }
    fprintf(r->out, "\nThis machine's tuning row copy steps (lib/tuning.c): %s\n", tuning_steps_text(&steps));
}

int copy_kernels(struct bench_run *r)
{
    struct way w[MAX_WAYS];
    int n = ways_init(w, r->impl);
    /* The destination starts 2 KiB past the source modulo 4 KiB: with the two a few bytes apart
     * modulo 4 KiB (as two back-to-back heap blocks can be), loads of the source alias earlier
     * stores to the destination (4K aliasing) and every way, memcpy included, ran 2-4x slower at
     * 576-1500 B on Zen 4. */
    const size_t cap = 65536 + 128;
    uint8_t *base = aligned_alloc(4096, (2 * cap + 8192 + 4095) & ~(size_t)4095); /* a multiple, as C11 asks */
    if (!base) {
        fprintf(stderr, "inetcsum bench: out of memory\n");
        return -1;
    }
    uint8_t *src = base, *dst = base + ((cap + 4095) & ~(size_t)4095) + 2048;
    for (size_t i = 0; i < cap; i++)
        src[i] = (uint8_t)(i * 131 + 7);
    memset(dst, 0, cap);
    for (int off = 0; off < 2; off++)
        table(r, w, n, off, src, dst);
    if (!r->impl)
        preferred(r, w, n);
    free(base);
    return 0;
}
