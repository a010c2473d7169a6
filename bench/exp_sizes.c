/* Experiment `sizes` (seed 001, Linux's csum_partial review): TSC ticks per call at the sizes that
 * matter (empty, tiny, the 20-byte IPv4 and 40-byte IPv6 headers, a minimum frame, MTUs, jumbo,
 * 64 KiB), even and odd start addresses (or the starts --starts names), as independent calls (throughput, how a stack checksums
 * many packets) and dependent calls (latency, each call's buffer depending on the last result),
 * for every kernel and the anchors, interleaved within each trial. */
#include <stdlib.h>
#include <string.h>

#include "contenders.h"
#include "experiments.h"
#include "inetcsum.h"
#include "kernels.h"
#include "small.h"
#include "tuning_steps.h"

static const size_t sizes[] = {0, 8, 20, 40, 64, 128, 256, 576, 1500, 4096, 9000, 65536};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Agreement before timing: every contender but the read limit must fold to the reference. */
static int check(const struct contenders *cs, const uint8_t *buf)
{
    for (size_t s = 0; s < NSIZES; s++)
        for (int j = 0; j < cs->n; j++) {
            if (j == cs->read_limit)
                continue;
            uint16_t want = inetcsum_fold(inetcsum_partial(buf, sizes[s], 0));
            if (inetcsum_fold(cs->c[j].partial(buf, sizes[s], 0)) != want) {
                fprintf(stderr, "inetcsum bench: %s disagrees with inetcsum_partial at %zu bytes\n", cs->c[j].name,
                        sizes[s]);
                return -1;
            }
        }
    return 0;
}

/* Each contender's median throughput ticks per size at each start (--starts: even and odd unless
 * told), for the preferred-kernel table. */
static double medians[BENCH_MAX_STARTS][MAX_CONTENDERS][NSIZES];

/* One table: every contender at every size, from r->starts[a]. */
static void table(struct bench_run *r, const struct contenders *cs, int latency, int a, uint8_t *src, uint8_t *dst)
{
    const char *metric = latency ? "latency" : "throughput";
    const size_t start = r->starts[a];
    const char *variant = bench_start_name(start);
    char where[64];
    if (start < 2)
        snprintf(where, sizeof where, "%s start address", variant);
    else
        snprintf(where, sizeof where, "start %zu bytes past a 64-byte boundary", start);
    fprintf(r->out, "\n### %s, %s (TSC ticks per call, median of %d interleaved trials)\n\n",
            latency ? "Latency: dependent calls" : "Throughput: independent calls", where, r->trials);
    const char *cols[MAX_CONTENDERS + 3];
    int nc = 0;
    cols[nc++] = "size (B)";
    for (int j = 0; j < cs->n; j++)
        cols[nc++] = cs->c[j].name;
    if (cs->read_limit >= 0)
        cols[nc++] = "inetcsum / read limit";
    if (cs->dpdk >= 0)
        cols[nc++] = "inetcsum / DPDK";
    bench_table_head(r->out, cols, nc);

    static double t[MAX_CONTENDERS][MAX_TRIALS], ratio[2][MAX_TRIALS];
    for (size_t s = 0; s < NSIZES; s++) {
        size_t len = sizes[s];
        unsigned reps = bench_reps(r, len);
        for (int j = 0; j < cs->n; j++) { /* warm caches, predictors, the dispatcher */
            const struct contender *c = &cs->c[j];
            contender_time(c, latency, src + start, dst, len, reps);
        }
        for (int k = 0; k < r->trials; k++) {
            contenders_trial(cs, latency, src + start, dst, len, reps, k, t);
            /* Ratios within a trial: drift between trials hits both sides alike. */
            if (cs->read_limit >= 0)
                ratio[0][k] = t[cs->subject][k] / (t[cs->read_limit][k] > 0 ? t[cs->read_limit][k] : 1);
            if (cs->dpdk >= 0)
                ratio[1][k] = t[cs->subject][k] / (t[cs->dpdk][k] > 0 ? t[cs->dpdk][k] : 1);
        }
        fprintf(r->out, "| %zu |", len);
        struct stats_summary sum;
        for (int j = 0; j < cs->n; j++) {
            struct figure_key key = {"sizes", metric, cs->c[j].name, variant, (long)len};
            bench_record(r, &key, "ticks", t[j], (size_t)r->trials, &sum);
            if (!latency)
                medians[a][j][s] = sum.median;
            fprintf(r->out, " %.1f%s |", sum.median, bench_noisy(&sum) ? "~" : "");
        }
        for (int q = 0; q < 2; q++) {
            int ref = q == 0 ? cs->read_limit : cs->dpdk;
            if (ref < 0)
                continue;
            char m[64];
            snprintf(m, sizeof m, "%s ratio to %s", metric, cs->c[ref].name);
            struct figure_key key = {"sizes", m, "inetcsum", variant, (long)len};
            bench_record(r, &key, "time ratio", ratio[q], (size_t)r->trials, &sum);
            fprintf(r->out, " %.2f |", sum.median);
        }
        fputc('\n', r->out);
        fflush(r->out);
    }
}

/* Which kernel this machine sums each size fastest with (throughput, the mean of the starts'
 * medians: even and odd unless --starts says), beside what the library uses now, and the tuning row (lib/tuning.c)
 * those choices make for the sizes a kernel sums (not the inline code's; tuning_steps.h). */
static void preferred(struct bench_run *r, const struct contenders *cs)
{
    fprintf(r->out, "\n### Preferred kernel per size (throughput, mean of the starts timed; in use: %s)\n\n",
            ics_tuning_row_name() ? ics_tuning_row_name() : "no tuning row for this CPU, best first");
    const char *cols[] = {"size (B)", "fastest", "ticks", "runner-up", "runner-up / fastest", "in use",
                          "in use / fastest"};
    bench_table_head(r->out, cols, 7);
    struct tuning_steps steps;
    tuning_steps_init(&steps);
    size_t inline_behind = 0; /* the first size where a kernel beats the inline code */
    char behind[96] = "";
    for (size_t s = 0; s < NSIZES; s++) {
        if (sizes[s] < 64)
            continue;
        const char *names[MAX_CONTENDERS];
        double t[MAX_CONTENDERS];
        int best = -1, second = -1, used = -1;
        const char *in_use = inetcsum_impl_name_at(sizes[s]);
        for (int j = 0; j < cs->n; j++) {
            names[j] = cs->c[j].role == ROLE_KERNEL ? cs->c[j].name : NULL;
            t[j] = 0;
            for (int a = 0; a < r->nstarts; a++)
                t[j] += medians[a][j][s] / r->nstarts;
            if (!names[j])
                continue;
            if (strcmp(names[j], in_use) == 0)
                used = j;
            if (best < 0 || t[j] < t[best]) {
                second = best;
                best = j;
            } else if (second < 0 || t[j] < t[second]) {
                second = j;
            }
        }
        if (best < 0)
            return;
        fprintf(r->out, "| %zu | %s | %.1f | %s | %.2f | %s | ", sizes[s], names[best], t[best],
                second >= 0 ? names[second] : "-", second >= 0 && t[best] > 0 ? t[second] / t[best] : 0, in_use);
        if (used >= 0 && t[best] > 0)
            fprintf(r->out, "%.2f |\n", t[used] / t[best]);
        else
            fprintf(r->out, "- |\n");
        if (strcmp(in_use, "inline") != 0) /* where no kernel runs, the row has nothing to choose */
            tuning_steps_add(&steps, sizes[s], names, t, cs->n, best);
        else if (!inline_behind && used < 0 && sizes[s] >= ICS_SMALL_MIN) {
            /* The inline code is what inetcsum_partial runs here: a kernel 5% ahead of it is worth
             * a row's inline_below. */
            double inline_t = 0;
            for (int a = 0; a < r->nstarts; a++)
                inline_t += medians[a][cs->subject][s] / r->nstarts;
            if (t[best] * 1.05 < inline_t) {
                inline_behind = sizes[s];
                snprintf(behind, sizeof behind, "%s at %.2f of its time", names[best], t[best] / inline_t);
            }
        }
    }
    fprintf(r->out, "\nThis machine's tuning row steps (lib/tuning.c): %s\n", tuning_steps_text(&steps));
    if (inline_behind)
        fprintf(r->out, "The inline code is behind a kernel from %zu B (%s): a row may set inline_below %zu "
                        "and name that kernel from 0\n",
                inline_behind, behind, inline_behind);
}

int exp_sizes(struct bench_run *r)
{
    struct contenders cs;
    const char *why;
    contenders_init(&cs, r->impl, &why);
    uint8_t *src, *dst;
    if (contenders_buffers(65536 + 128, &src, &dst) < 0)
        return -1;
    int rc = 0;
    for (int a = 0; a < r->nstarts && rc == 0; a++)
        rc = check(&cs, src + r->starts[a]) ? -1 : 0;
    if (rc == 0) {
        fprintf(r->out, "\n## sizes: the sum at each size, every kernel beside the anchors (seed 001)\n");
        if (why)
            bench_note(r, "%s", why);
        for (int latency = 0; latency < 2; latency++)
            for (int a = 0; a < r->nstarts; a++)
                table(r, &cs, latency, a, src, dst);
        if (!r->impl)
            preferred(r, &cs);
        fprintf(r->out, "\n(~: the interquartile range of this figure's trials exceeds 10%% of its median.)\n");
    }
    free(src);
    free(dst);
    return rc;
}
