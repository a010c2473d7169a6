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
        fprintf(stderr, "inetcsum bench compare: %s: %s (line %d)\n", path, err.text, err.line);
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
        strcmp(text(ma, "kernel_chosen"), text(mb, "kernel_chosen")) != 0)
        fprintf(out, "Note: the runs differ in CPU or kernel: differences may come from the machine.\n");

    /* B's figures by name. */
    json_t *by_name = json_object(), *f;
    size_t i;
    json_array_foreach(json_object_get(b, "figures"), i, f) json_object_set(by_name, text(f, "name"), f);

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
