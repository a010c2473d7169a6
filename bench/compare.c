/* inetcsum bench compare A.json B.json: which figures differ between two runs (two builds, two
 * machines, two days), judged as ministat judges: Student's t on each figure's samples, pooled
 * standard deviation, at the chosen confidence. */
#include <math.h>
#include <string.h>

#include "experiments.h"

static json_t *load(const char *path)
{
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    if (!j) {
        if (err.line > 0) /* a JSON error at a place in the file */
            fprintf(stderr, "inetcsum bench compare: %s: line %d column %d: %s\n", path, err.line, err.column,
                    err.text);
        else /* the file could not be read: jansson's text names it and says why */
            fprintf(stderr, "inetcsum bench compare: %s\n", err.text);
        return NULL;
    }
    if (!json_is_array(json_object_get(j, "figures"))) {
        fprintf(stderr, "inetcsum bench compare: %s: not an 'inetcsum bench --json' file (no figures)\n", path);
        json_decref(j);
        return NULL;
    }
    return j;
}

static const char *text(json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : "?";
}

/* n, mean and sample standard deviation of a figure's samples; 0 when it has none. */
static size_t moments(json_t *figure, double *mean, double *sd)
{
    json_t *samples = json_object_get(figure, "samples");
    size_t n = json_array_size(samples), i;
    json_t *v;
    double sum = 0, sq = 0;
    json_array_foreach(samples, i, v) sum += json_number_value(v);
    if (n == 0)
        return 0;
    *mean = sum / (double)n;
    json_array_foreach(samples, i, v) sq += (json_number_value(v) - *mean) * (json_number_value(v) - *mean);
    *sd = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
    return n;
}

static int higher_is_better(const char *unit)
{
    return strcmp(unit, "GB/s") == 0 || strcmp(unit, "pps") == 0 || strcmp(unit, "speed ratio") == 0;
}

/* The contenders whose code is the same in every run (the memory read limit, DPDK's, Linux's and VPP's sums
 * as the benchmark builds them, memcpy, cp): when their figures move between two runs, the machine
 * or its clock moved, not inetcsum. */
static const char *const refs[] = {"read limit", "DPDK", "Linux", "VPP", "memcpy", "cp"};
enum { NREFS = sizeof refs / sizeof refs[0] };

/* Reference figures shared by both runs: for each reference contender, the geometric mean over its
 * figures of B's time over A's (medians; rates inverted), printed as a warning when any is off by
 * more than REFERENCE_DRIFT either way.  Returns how many moved. */
#define REFERENCE_DRIFT 0.05
static int reference_drift(FILE *out, json_t *a, json_t *by_name)
{
    double log_sum[NREFS] = {0};
    size_t count[NREFS] = {0};
    json_t *f;
    size_t i;
    json_array_foreach(json_object_get(a, "figures"), i, f)
    {
        const char *who = text(f, "contender");
        json_t *g = json_object_get(by_name, text(f, "name"));
        double ma = json_number_value(json_object_get(f, "median")), mb = g ? json_number_value(json_object_get(g, "median")) : 0;
        if (!g || !(ma > 0) || !(mb > 0))
            continue;
        json_t *ta = json_object_get(f, "ticks"), *tb = json_object_get(g, "ticks");
        for (int r = 0; r < NREFS; r++) {
            /* A reference's own figure, or its median ticks inside a figure that keeps every
             * contender's (the sweep's). */
            double ratio = 0;
            if (strcmp(who, refs[r]) == 0)
                ratio = higher_is_better(text(f, "unit")) ? ma / mb : mb / ma; /* B's time over A's */
            else if (json_is_object(ta) && json_is_object(tb)) {
                double xa = json_number_value(json_object_get(ta, refs[r])), xb = json_number_value(json_object_get(tb, refs[r]));
                if (xa > 0 && xb > 0)
                    ratio = xb / xa;
            }
            if (ratio > 0) {
                log_sum[r] += log(ratio);
                count[r]++;
            }
        }
    }
    int moved = 0;
    char line[512];
    size_t n = 0;
    for (int r = 0; r < NREFS; r++) {
        if (!count[r])
            continue;
        double ratio = exp(log_sum[r] / (double)count[r]);
        int off = fabs(ratio - 1) > REFERENCE_DRIFT;
        moved += off;
        int w = snprintf(line + n, sizeof line - n, "%s%s %.2fx%s (%zu figures)", n ? ", " : "", refs[r], ratio,
                         off ? "" : " (steady)", count[r]);
        if (w > 0 && (size_t)w < sizeof line - n)
            n += (size_t)w;
    }
    if (moved)
        fprintf(out,
                "Warning: the reference contenders, whose code is the same in both runs, moved: B's time over A's "
                "(geometric mean of medians) %s.  The machine or its clock differs between the runs: the "
                "differences below compare machines as much as code.\n",
                line);
    return moved;
}

static void describe(FILE *out, const char *label, const char *path, json_t *run)
{
    json_t *m = json_object_get(run, "machine"), *s = json_object_get(run, "settings");
    fprintf(out, "%s: %s: inetcsum %s, %s, kernel %s, %s, %s\n", label, path, text(run, "version"), text(m, "cpu_model"),
            text(m, "kernel_chosen"), text(s, "scale"), text(s, "date"));
}

int bench_compare(const char *a_path, const char *b_path, const struct compare_opts *o, FILE *out)
{
    json_t *a = load(a_path), *b = a ? load(b_path) : NULL;
    if (!a || !b) {
        json_decref(a);
        return 2;
    }
    describe(out, "A", a_path, a);
    describe(out, "B", b_path, b);
    json_t *ma = json_object_get(a, "machine"), *mb = json_object_get(b, "machine");
    if (strcmp(text(ma, "cpu_model"), text(mb, "cpu_model")) != 0 ||
        strcmp(text(ma, "cpu_model_number"), text(mb, "cpu_model_number")) != 0 ||
        strcmp(text(ma, "kernel_chosen"), text(mb, "kernel_chosen")) != 0)
        fprintf(out, "Note: the runs differ in CPU or kernel: differences may come from the machine.\n");
    const double tsc_a = json_number_value(json_object_get(ma, "tsc_hz")),
                 tsc_b = json_number_value(json_object_get(mb, "tsc_hz"));
    if (tsc_a > 0 && tsc_b > 0 && fabs(tsc_b / tsc_a - 1) > 0.001)
        fprintf(out, "Note: the TSC runs at %.3f GHz in A and %.3f GHz in B: figures in ticks are not of one clock.\n",
                tsc_a / 1e9, tsc_b / 1e9);

    /* B's figures by name. */
    json_t *by_name = json_object(), *f;
    size_t i;
    json_array_foreach(json_object_get(b, "figures"), i, f) json_object_set(by_name, text(f, "name"), f);
    reference_drift(out, a, by_name);

    fprintf(out, "\nB against A, Student's t at %.1f%% confidence%s\n\n", o->confidence * 100,
            o->all ? "" : " (figures that differ; --all lists every one)");
    static const char *const cols[] = {"figure", "unit", "A mean", "B mean", "B - A", "verdict"};
    size_t compared = 0, better = 0, worse = 0, unjudged = 0, only_a = 0;
    int head = 0;
    json_array_foreach(json_object_get(a, "figures"), i, f)
    {
        const char *name = text(f, "name"), *unit = text(f, "unit");
        json_t *g = json_object_get(by_name, name);
        if (!g) {
            only_a++;
            continue;
        }
        double mean_a = 0, sd_a = 0, mean_b = 0, sd_b = 0;
        size_t na = moments(f, &mean_a, &sd_a), nb = moments(g, &mean_b, &sd_b);
        struct stats_difference d;
        const char *verdict;
        if (stats_ministat(na, mean_a, sd_a, nb, mean_b, sd_b, o->confidence, &d) != 0) {
            unjudged++;
            verdict = "too few samples";
            d.pct = d.pct_halfwidth = 0;
        } else {
            compared++;
            int up = d.diff > 0;
            verdict = !d.significant ? "no difference" : up == higher_is_better(unit) ? "better" : "worse";
            better += d.significant && up == higher_is_better(unit);
            worse += d.significant && up != higher_is_better(unit);
            if (!d.significant && !o->all)
                continue;
        }
        if (!head++)
            bench_table_head(out, cols, 6);
        fprintf(out, "| %s | %s | %.4g | %.4g | %+.2f%% +/- %.2f%% | %s |\n", name, unit, mean_a, mean_b, d.pct,
                d.pct_halfwidth, verdict);
    }
    size_t only_b = json_array_size(json_object_get(b, "figures")) - (compared + unjudged);
    fprintf(out, "\n%zu figures compared: %zu better in B, %zu worse, %zu without a proven difference", compared, better,
            worse, compared - better - worse);
    if (unjudged)
        fprintf(out, "; %zu with too few samples to judge", unjudged);
    if (only_a || only_b)
        fprintf(out, "; %zu only in A, %zu only in B", only_a, only_b);
    fprintf(out, ".\n");
    json_decref(by_name);
    json_decref(a);
    json_decref(b);
    return 0;
}
