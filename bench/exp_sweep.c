/* Experiment `sweep` (issue 27): the dispatched inetcsum_partial at every size from 1 to 1,600
 * bytes and at both start parities (or the starts --starts names), then at sizes up to 65,536, against the best of everything a
 * user could call instead: each of the library's own kernels called directly (and its inline
 * scalar code, out of line: where a kernel overtakes it is a tuning row's inline_below), DPDK's
 * __rte_raw_cksum, Linux's add-with-carry algorithm (anchor_linux.c) and VPP's clib_ip_csum
 * (anchor_vpp.c).  Throughput (independent calls), interleaved within each trial, medians.  With
 * AVX2 or AVX-512BW in the anchors' flags, inetcsum_partial is timed a second time as a caller
 * compiled with them gets it ("inetcsum inlined": the header's vector path inlined, issue 35), and
 * a third time as the same caller built with -O2 gets it ("inetcsum inlined -O2": GCC's default
 * and distributions', where the compiler inlines less).
 *
 * Per size and parity the figure is inetcsum's time over the best other contender's, the ratio
 * taken within each trial and its median kept (drift between trials hits both alike).  The table
 * summarises by range: how many sizes are slower than the best by more than 3% (what repeated runs
 * on an idle machine stay within), the median ratio and the worst, with who was best there.  Every
 * size's ratio, best contender and every contender's median ticks are in the JSON: what a tuning
 * row (lib/tuning.c) is chosen from. */
#include <stdlib.h>
#include <string.h>

#include "contenders.h"
#include "experiments.h"
#include "inetcsum.h"
#include "stats.h"

#define SLOWER 1.03 /* "slower than the best": beyond what reruns of one size differ by */

/* The sizes: every byte to 1,600, then steps to 64 KiB. */
static size_t sweep_sizes(size_t *out, enum bench_scale scale)
{
    size_t n = 0;
    const size_t step = scale == BENCH_SMOKE ? 97 : scale == BENCH_QUICK ? 7 : 1;
    for (size_t len = 1; len <= 1600; len += step)
        out[n++] = len;
    static const size_t large[] = {2048, 3000, 4096, 6000, 8192, 9000, 12000, 16384, 24000, 32768, 48000, 65536};
    for (size_t i = 0; i < sizeof large / sizeof large[0]; i++)
        out[n++] = large[i];
    return n;
}

struct range {
    size_t lo, hi; /* inclusive */
    unsigned sizes, slower;
    double worst, ratios[BENCH_MAX_STARTS * 1600];
    size_t worst_len, worst_start;
    const char *worst_best;
    double inlined_ratios[BENCH_MAX_STARTS * 1600], inlined_worst; /* the same for "inetcsum inlined" */
    double o2_ratios[BENCH_MAX_STARTS * 1600], o2_worst; /* ... and "inetcsum inlined -O2" */
    double by_start[BENCH_MAX_STARTS][1600]; /* the exported call's ratios per start */
    unsigned by_start_n[BENCH_MAX_STARTS];
};

/* No subject is an alternative to another: all are inetcsum_partial. */
static int is_alternative(const struct contenders *cs, int j)
{
    return j != cs->subject && j != cs->inlined && j != cs->o2 && j != cs->read_limit;
}

/* Subject j's ratio to the best alternative in each trial, recorded under its name. */
static json_t *record_subject(struct bench_run *r, struct figure_key key, const struct contenders *cs, int j,
                              double (*t)[MAX_TRIALS], int best, double best_median, struct stats_summary *out)
{
    double ratio[MAX_TRIALS];
    for (int k = 0; k < r->trials; k++)
        ratio[k] = t[j][k] / (t[best][k] > 0 ? t[best][k] : 1);
    key.contender = cs->c[j].name;
    json_t *fig = bench_record(r, &key, "time ratio", ratio, (size_t)r->trials, out);
    json_object_set_new(fig, "best", json_string(cs->c[best].name));
    json_object_set_new(fig, "best_ticks", json_real(best_median));
    return fig;
}

int exp_sweep(struct bench_run *r)
{
    struct contenders cs;
    const char *why;
    contenders_init(&cs, NULL, &why);
    contenders_add_inline(&cs);
    static size_t sizes[1600 + 16];
    const size_t nsizes = sweep_sizes(sizes, r->scale);
    uint8_t *src, *dst;
    if (contenders_buffers(65536 + 256, &src, &dst) < 0)
        return -1;
    /* Agreement first, at every size and start timed: every contender but the read limit. */
    for (size_t s = 0; s < nsizes; s++)
        for (int a = 0; a < r->nstarts; a++)
            for (int j = 0; j < cs.n; j++) {
                const uint8_t *p = src + r->starts[a];
                if (j == cs.read_limit)
                    continue;
                const uint16_t want = inetcsum_fold(inetcsum_partial(p, sizes[s], 0));
                if (inetcsum_fold(cs.c[j].partial(p, sizes[s], 0)) != want) {
                    fprintf(stderr, "inetcsum bench: %s disagrees with inetcsum_partial at %zu bytes (%s start)\n",
                            cs.c[j].name, sizes[s], bench_start_name(r->starts[a]));
                    free(src);
                    free(dst);
                    return -1;
                }
            }

    fprintf(r->out, "\n## sweep: the dispatched sum at every size against the best alternative (issue 27)\n\n");
    if (why)
        bench_note(r, "%s", why);
    fprintf(r->out, "Alternatives: ");
    for (int j = 0, first = 1; j < cs.n; j++)
        if (is_alternative(&cs, j)) {
            fprintf(r->out, "%s%s", first ? "" : ", ", cs.c[j].name);
            first = 0;
        }
    fprintf(r->out, ". Sizes %s1-1,600 B, then 2,048-65,536 B; starts ", r->scale == BENCH_FULL ? "every byte of " : "a sample of ");
    bench_print_starts(r);
    fprintf(r->out, " (bytes past a 64-byte boundary); %d interleaved trials.\n\n", r->trials);

    static const size_t bounds[][2] = {{1, 39},    {40, 63},     {64, 127},   {128, 255},   {256, 575},
                                       {576, 1023}, {1024, 1600}, {1601, 9000}, {9001, 65536}};
    enum { NRANGES = sizeof bounds / sizeof bounds[0] };
    static struct range ranges[NRANGES];
    const size_t nranges = NRANGES;
    for (size_t g = 0; g < nranges; g++) {
        memset(&ranges[g], 0, sizeof ranges[g]);
        ranges[g].lo = bounds[g][0];
        ranges[g].hi = bounds[g][1];
    }
    static double t[MAX_CONTENDERS][MAX_TRIALS];
    for (size_t s = 0; s < nsizes; s++) {
        const size_t len = sizes[s];
        const unsigned reps = bench_reps(r, len);
        for (int a = 0; a < r->nstarts; a++) {
            const uint8_t *p = src + r->starts[a];
            for (int j = 0; j < cs.n; j++) /* warm */
                contender_time(&cs.c[j], 0, p, dst, len, reps);
            for (int k = 0; k < r->trials; k++)
                contenders_trial(&cs, 0, p, dst, len, reps, k, t);
            /* The best alternative by median, then inetcsum's ratio to it trial by trial. */
            int best = -1;
            double best_median = 0;
            json_t *medians = json_object(); /* every contender's median, for choosing tuning rows */
            for (int j = 0; j < cs.n; j++) {
                double tmp[MAX_TRIALS]; /* (stats_summarise sorts what it is given) */
                memcpy(tmp, t[j], sizeof(double) * (size_t)r->trials);
                struct stats_summary its;
                stats_summarise(tmp, (size_t)r->trials, &its);
                const double m = its.median;
                json_object_set_new(medians, cs.c[j].name, json_real(m));
                if (!is_alternative(&cs, j))
                    continue;
                if (best < 0 || m < best_median) {
                    best = j;
                    best_median = m;
                }
            }
            if (best < 0) {
                json_decref(medians);
                continue;
            }
            struct figure_key key = {"sweep", "throughput ratio to the best alternative", "inetcsum",
                                     bench_start_name(r->starts[a]), (long)len};
            struct stats_summary sum, inlined = {0}, o2 = {0};
            json_object_set_new(record_subject(r, key, &cs, cs.subject, t, best, best_median, &sum), "ticks", medians);
            if (cs.inlined >= 0)
                record_subject(r, key, &cs, cs.inlined, t, best, best_median, &inlined);
            if (cs.o2 >= 0)
                record_subject(r, key, &cs, cs.o2, t, best, best_median, &o2);
            for (size_t g = 0; g < nranges; g++) {
                struct range *rg = &ranges[g];
                if (len < rg->lo || len > rg->hi)
                    continue;
                rg->inlined_ratios[rg->sizes] = inlined.median;
                if (inlined.median > rg->inlined_worst)
                    rg->inlined_worst = inlined.median;
                rg->o2_ratios[rg->sizes] = o2.median;
                if (o2.median > rg->o2_worst)
                    rg->o2_worst = o2.median;
                rg->ratios[rg->sizes++] = sum.median;
                rg->by_start[a][rg->by_start_n[a]++] = sum.median;
                rg->slower += sum.median > SLOWER;
                if (sum.median > rg->worst) {
                    rg->worst = sum.median;
                    rg->worst_len = len;
                    rg->worst_start = r->starts[a];
                    rg->worst_best = cs.c[best].name;
                }
            }
        }
    }
    const char *cols[] = {"sizes (B)", "sizes x starts", "slower than the best by >3%", "median ratio", "worst ratio",
                          "at", "best there", "inlined: median ratio", "inlined: worst", "-O2: median ratio",
                          "-O2: worst"};
    const char *some[11];
    int ncols = 0;
    for (int c = 0; c < 11; c++)
        if ((c < 7) || (c < 9 ? cs.inlined >= 0 : cs.o2 >= 0))
            some[ncols++] = cols[c];
    bench_table_head(r->out, some, ncols);
    for (size_t g = 0; g < nranges; g++) {
        struct range *rg = &ranges[g];
        if (!rg->sizes)
            continue;
        struct stats_summary ratios;
        stats_summarise(rg->ratios, rg->sizes, &ratios);
        fprintf(r->out, "| %zu-%zu | %u | %u | %.2f | %.2f | %zu B %s | %s |", rg->lo, rg->hi, rg->sizes, rg->slower,
                ratios.median, rg->worst, rg->worst_len, bench_start_name(rg->worst_start), rg->worst_best);
        if (cs.inlined >= 0) {
            stats_summarise(rg->inlined_ratios, rg->sizes, &ratios);
            fprintf(r->out, " %.2f | %.2f |", ratios.median, rg->inlined_worst);
        }
        if (cs.o2 >= 0) {
            stats_summarise(rg->o2_ratios, rg->sizes, &ratios);
            fprintf(r->out, " %.2f | %.2f |", ratios.median, rg->o2_worst);
        }
        fputc('\n', r->out);
    }
    fprintf(r->out, "\n(ratio: inetcsum_partial's time over the best alternative's at that size and start; "
                    "below 1: inetcsum is faster.%s%s)\n",
            cs.inlined >= 0 ? " inlined: the same call compiled with the anchors' flags, the header's vector path "
                              "inlined (16-1023 B)." : "",
            cs.o2 >= 0 ? " -O2: the same at -O2, GCC's default and distributions'." : "");
    /* Beyond the two parities, where each start parts from the others: a kernel that aligns its
     * loads first and one that does not trade places by where the data starts. */
    if (r->nstarts > 2) {
        fprintf(r->out, "\nThe exported call's median ratio by start:\n\n| sizes (B) |");
        for (int a = 0; a < r->nstarts; a++)
            fprintf(r->out, " %s |", bench_start_name(r->starts[a]));
        fprintf(r->out, "\n|---|");
        for (int a = 0; a < r->nstarts; a++)
            fprintf(r->out, "---|");
        fputc('\n', r->out);
        for (size_t g = 0; g < nranges; g++) {
            struct range *rg = &ranges[g];
            if (!rg->sizes)
                continue;
            fprintf(r->out, "| %zu-%zu |", rg->lo, rg->hi);
            for (int a = 0; a < r->nstarts; a++) {
                struct stats_summary by;
                stats_summarise(rg->by_start[a], rg->by_start_n[a], &by);
                fprintf(r->out, " %.2f |", by.median);
            }
            fputc('\n', r->out);
        }
    }
    free(src);
    free(dst);
    return 0;
}
