/* Experiment `row` (issue 35): does this CPU's tuning row still beat what it replaces?  A row is
 * measured once, on one library version; kernels change after, and a row that was right can make
 * a fast kernel slow in silence (the Zen 4 row written before the kernels' short path cost 1.28-
 * 1.38x at 128-511 B).  So the row is checked where it runs: the public entry inetcsum_partial
 * timed under the row's plan and under the plan it replaces (the default row for this CPU's
 * features, or, on a CPU that runs the default, no row at all), at the size classes where the two
 * choose differently, eight sizes a class, both start parities (or the starts --starts names),
 * interleaved within each trial; then inetcsum_partial_copy the same way where the row's copy
 * steps choose differently (copies change kernels as often: a table of its own).
 *
 * The noise is measured, not assumed: the replaced plan is timed twice as two contenders (an A/A
 * pair), and their ratio says how far apart identical code lands on this machine now.  A class
 * fails when the row is slower than what it replaces by more than 5% plus twice that noise, and
 * again when timed a second time (a burst of noise must not fail a row); the run says "noisy"
 * instead of judging when the A/A pair drifts more than 5% apart.  The verdict is the last line of
 * the section and a note in the JSON ("row check: ..."), which tests/test_tuning_row.py reads. */
#include <stdlib.h>
#include <string.h>

#include "contenders.h"
#include "experiments.h"
#include "inetcsum.h"
#include "registry.h"
#include "stats.h"

#define NOISY 0.05 /* the A/A pair further apart than this: no verdict */
#define SLACK 0.05 /* a row may be this much slower than what it replaces, plus twice the noise */
#define MAX_CLASS 65536
#define SIZES 8 /* a class's sizes: c + k c / 8 for k = 0..7, odd k one byte longer (odd lengths) */

static void use_row(const void *row)
{
    ics_tuning_use(row);
}

static const char *choice(const struct ics_tuning *row, size_t len, int copy)
{
    const struct ics_kernel *k = copy ? ics_tuning_copy_kernel_at(row, len) : ics_tuning_kernel_at(row, len);
    return k ? k->name : "inline";
}

/* What a plan sums (or copies) a class with, at its first and last sizes: one name, or "inline,
 * then K" for a class a row's inline bound falls inside (64-127 B always: 64 B is inline on every
 * CPU). */
static const char *class_choice(const struct ics_tuning *row, size_t c, int copy, char *buf, size_t n)
{
    const char *first = choice(row, c, copy), *last = choice(row, 2 * c - 1, copy);
    if (strcmp(first, last) == 0)
        return first;
    snprintf(buf, n, "%s, then %s", first, last);
    return buf;
}

/* The median of v[0..n) (sorted in place). */
static double median(double *v, size_t n)
{
    struct stats_summary s;
    stats_summarise(v, n, &s);
    return s.median;
}

struct class_result {
    double ratio, aa, row_ticks, base_ticks; /* medians over the trials */
    double ratios[MAX_TRIALS];               /* each trial's */
    size_t n;
};

/* Times one class: the row against the replaced plan and the replaced plan against itself, at
 * SIZES sizes spread over the class and both parities.  A trial's ratio is the row's time summed
 * over those sizes over the replaced plan's (what a mix of the class's sizes costs each); the
 * medians over the trials in *res.  (A few sizes are not enough: at 64-127 B on a Zen 5 the
 * inline code is 1.5x faster than a kernel at exactly 64 B and 1.1x slower at most others.) */
static void time_class(struct bench_run *r, struct contenders *cs, size_t c, const uint8_t *src, uint8_t *dst,
                       struct class_result *res)
{
    static double t[MAX_CONTENDERS][MAX_TRIALS], total[3][MAX_TRIALS], tmp[MAX_TRIALS];
    memset(total, 0, sizeof total);
    for (int s = 0; s < SIZES; s++)
        for (int a = 0; a < r->nstarts; a++) {
            const uint8_t *p = src + r->starts[a];
            const size_t len = c + (size_t)s * c / SIZES + (s & 1);
            const unsigned reps = bench_reps(r, len);
            for (int j = 0; j < cs->n; j++) /* warm */
                contender_time(&cs->c[j], 0, p, dst, len, reps);
            for (int k = 0; k < r->trials; k++)
                contenders_trial(cs, 0, p, dst, len, reps, k, t);
            for (int j = 0; j < 3; j++)
                for (int k = 0; k < r->trials; k++)
                    total[j][k] += t[j][k];
        }
    res->n = (size_t)r->trials;
    for (size_t k = 0; k < res->n; k++) {
        res->ratios[k] = total[0][k] / total[1][k];
        tmp[k] = total[2][k] / total[1][k];
    }
    res->aa = median(tmp, res->n);
    memcpy(tmp, res->ratios, res->n * sizeof *tmp);
    res->ratio = median(tmp, res->n);
    for (int j = 0; j < 2; j++) {
        for (size_t k = 0; k < res->n; k++)
            tmp[k] = total[j][k] / (r->nstarts * SIZES);
        *(j ? &res->base_ticks : &res->row_ticks) = median(tmp, res->n);
    }
}

/* The three contenders of a check: the public entry (sum or copy) under the row, under the plan it
 * replaces, and under that plan again (the A/A pair). */
static void init_contenders(struct contenders *cs, const struct ics_tuning *row, const struct ics_tuning *base,
                            struct contender (*make)(const char *name))
{
    *cs = (struct contenders){.n = 3, .read_limit = -1, .dpdk = -1, .linux_alg = -1, .vpp = -1, .subject = 0, .inlined = -1, .o2 = -1};
    cs->c[0] = make("row");
    cs->c[1] = make("replaced");
    cs->c[2] = make("replaced again");
    cs->c[0].prepare = cs->c[1].prepare = cs->c[2].prepare = use_row;
    cs->c[0].prepare_arg = row;
    cs->c[1].prepare_arg = cs->c[2].prepare_arg = base;
}

/* What the checks found, over the sum's classes and the copy's. */
struct tally {
    unsigned timed, slower, copies; /* classes timed, found slower twice, timed copying */
    double noise, worst;            /* the A/A pair's largest drift; the largest row / replaced */
    size_t worst_class;
    int worst_copy;
};

/* One table: every class from 64 B where the row and the replaced plan choose differently (summing,
 * or copying), timed and judged. */
static void check_classes(struct bench_run *r, const struct ics_tuning *row, const struct ics_tuning *base, int copy,
                          struct contenders *cs, const uint8_t *src, uint8_t *dst, struct tally *all)
{
    const char *cols[] = {"sizes (B)", "row's choice", "replaced's choice", "row ticks", "replaced ticks",
                          "row / replaced", "A/A", "verdict"};
    bench_table_head(r->out, cols, 8);
    static struct class_result res;
    for (size_t c = 64; c <= MAX_CLASS; c *= 2) {
        char mine_buf[64], theirs_buf[64];
        const char *mine = class_choice(row, c, copy, mine_buf, sizeof mine_buf),
                   *theirs = class_choice(base, c, copy, theirs_buf, sizeof theirs_buf);
        if (strcmp(mine, theirs) == 0) {
            fprintf(r->out, "| %zu-%zu | %s | %s | | | | | same choice |\n", c, 2 * c - 1, mine, theirs);
            continue;
        }
        time_class(r, cs, c, src, dst, &res);
        all->timed++;
        all->copies += (unsigned)copy;
        double dev = res.aa > 1 ? res.aa - 1 : 1 - res.aa;
        all->noise = dev > all->noise ? dev : all->noise;
        const char *verdict = "holds";
        if (res.ratio > 1 + SLACK + 2 * dev) { /* once more before calling it */
            time_class(r, cs, c, src, dst, &res);
            dev = res.aa > 1 ? res.aa - 1 : 1 - res.aa;
            all->noise = dev > all->noise ? dev : all->noise;
            if (res.ratio > 1 + SLACK + 2 * dev) {
                verdict = "SLOWER";
                all->slower++;
            } else {
                verdict = "holds (on a second timing)";
            }
        }
        if (res.ratio > all->worst) {
            all->worst = res.ratio;
            all->worst_class = c;
            all->worst_copy = copy;
        }
        fprintf(r->out, "| %zu-%zu | %s | %s | %.2f | %.2f | %.3f | %.3f | %s |\n", c, 2 * c - 1, mine, theirs,
                res.row_ticks, res.base_ticks, res.ratio, res.aa, verdict);
        struct figure_key key = {"row", copy ? "copy time ratio to the plan replaced" : "time ratio to the plan replaced",
                                 "row", "pooled", (long)c};
        struct stats_summary sum;
        json_t *fig = bench_record(r, &key, "time ratio", res.ratios, res.n, &sum);
        json_object_set_new(fig, "row_choice", json_string(mine));
        json_object_set_new(fig, "replaced_choice", json_string(theirs));
        json_object_set_new(fig, "aa", json_real(res.aa));
        json_object_set_new(fig, "verdict", json_string(verdict));
    }
}

int exp_row(struct bench_run *r)
{
    const struct ics_tuning *row = ics_tuning_row(), *base = ics_tuning_fallback();
    fprintf(r->out, "\n## row: this CPU's tuning row against the plan it replaces (issue 35)\n\n");
    if (r->impl) {
        bench_note(r, "row check: not run (--impl %s: one kernel at every size, no row to check)", r->impl);
        return 0;
    }
    if (row == NULL) {
        bench_note(r, "row check: no row (none for this CPU model and no default for its features: the registry's "
                      "order at every size; `inetcsum bench sweep` and bench/tuning_data.py make one)");
        return 0;
    }
    if (base == row)
        base = NULL; /* a CPU on the default row: against no row at all */
    const char *base_name = base ? base->cpu : "no row (the registry's order)";
    fprintf(r->out, "Row: %s (measured: %s). Replaces: %s. The public entry under each plan, %d sizes a class, starts ",
            row->cpu, row->measured, base_name, SIZES);
    bench_print_starts(r);
    fprintf(r->out, ", %d interleaved trials; the replaced plan timed twice (A/A) for the noise.\n\n", r->trials);

    if (ics_tuning_use(row) != 0 || ics_tuning_use(base) != 0) {
        fprintf(stderr, "inetcsum bench: row: no plan for the rows\n");
        return -1;
    }
    uint8_t *src, *dst;
    if (contenders_buffers(2 * MAX_CLASS + 256, &src, &dst) < 0) {
        inetcsum_set_impl(NULL);
        return -1;
    }

    static struct contenders sums, copies;
    init_contenders(&sums, row, base, contender_public);
    init_contenders(&copies, row, base, contender_public_copy);
    struct tally all = {0};
    fprintf(r->out, "### The sum (inetcsum_partial)\n\n");
    check_classes(r, row, base, 0, &sums, src, dst, &all);
    fprintf(r->out, "\n### The copy (inetcsum_partial_copy, from 64 B: below it the copy is inline on every CPU)\n\n");
    check_classes(r, row, base, 1, &copies, src, dst, &all);
    inetcsum_set_impl(NULL); /* this CPU's own plan again */
    free(src);
    free(dst);

    fprintf(r->out, "\n(row / replaced: the row's time over the replaced plan's, summed over the class's sizes, "
                    "the median of the trials; ticks: the mean per call; A/A: the replaced plan against itself, the noise.)\n\n");
    if (all.timed == 0)
        bench_note(r, "row check: nothing to check (%s chooses as %s does at every size, summing and copying)", row->cpu,
                   base_name);
    else if (all.noise > NOISY)
        bench_note(r, "row check: noisy (the A/A pair %.1f%% apart, over %.0f%%: no verdict; rerun on an idle machine)",
                   100 * all.noise, 100 * NOISY);
    else if (all.slower)
        bench_note(r,
                   "row check: SLOWER: %s is slower than %s in %u of %u classes (%u of them copying; worst %.3fx at "
                   "%zu-%zu B, %s, noise %.1f%%), twice: measure the row again (inetcsum bench sweep and copy, "
                   "bench/tuning_data.py)",
                   row->cpu, base_name, all.slower, all.timed, all.copies, all.worst, all.worst_class,
                   2 * all.worst_class - 1, all.worst_copy ? "copying" : "summing", 100 * all.noise);
    else
        bench_note(r, "row check: holds (%s against %s in %u classes, %u of them copying: worst %.3fx, noise %.1f%%)",
                   row->cpu, base_name, all.timed, all.copies, all.worst, 100 * all.noise);
    return 0;
}
