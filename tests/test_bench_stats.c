/* The benchmark's statistics (bench/stats.c) against printed tables: Student's t quantiles, the
 * worked ministat comparison in seed 003 (FreeBSD review D56564), quartiles and nearest-rank
 * percentiles on small sets whose answers are known by hand. */
#include <math.h>
#include <stdio.h>

#include "stats.h"
#include "testutil.h"

static int near(double got, double want, double rel)
{
    return fabs(got - want) <= rel * fabs(want);
}

static void t_table(void)
{
    /* Two-sided 95% (p = 0.975) and other levels, from any statistics text's t table. */
    static const struct {
        double p, df, t;
    } rows[] = {{0.975, 1, 12.7062}, {0.975, 2, 4.3027},   {0.975, 5, 2.5706},   {0.975, 10, 2.2281},
                {0.975, 30, 2.0423}, {0.975, 38, 2.0244},  {0.975, 120, 1.9799}, {0.975, 1e7, 1.95996},
                {0.995, 10, 3.1693}, {0.95, 20, 1.7247},   {0.9, 4, 1.5332},     {0.9995, 3, 12.9240}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        double t = stats_t_quantile(rows[i].p, rows[i].df);
        CHECK(near(t, rows[i].t, 2e-4), "t quantile p=%g df=%g: %.5f, table %.4f", rows[i].p, rows[i].df, t,
              rows[i].t);
        CHECK(near(stats_t_quantile(1 - rows[i].p, rows[i].df), -rows[i].t, 2e-4), "lower tail p=%g df=%g",
              1 - rows[i].p, rows[i].df);
        CHECK(near(stats_t_cdf(rows[i].t, rows[i].df), rows[i].p, 1e-4), "t cdf at %.4f df=%g: %.6f", rows[i].t,
              rows[i].df, stats_t_cdf(rows[i].t, rows[i].df));
    }
    CHECK(stats_t_cdf(0, 7) == 0.5, "t cdf at 0");
    CHECK(stats_t_quantile(0.5, 7) == 0, "t median");
}

/* Seed 003: "x 20 ... Avg 6635.05 Stddev 24.737517; + 20 ... Avg 6503.9 Stddev 42.319462;
 * Difference at 95.0% confidence -131.15 +/- 22.1851, -1.97662% +/- 0.332692% (Student's t,
 * pooled s = 34.6618)". */
static void ministat_example(void)
{
    struct stats_difference d;
    CHECK(stats_ministat(20, 6635.05, 24.737517, 20, 6503.9, 42.319462, 0.95, &d) == 0, "ministat ran");
    CHECK(near(d.diff, -131.15, 1e-9), "difference %.4f", d.diff);
    /* ministat reads t from a table rounded to 3 decimals (2.024 for 38 degrees of freedom, exactly
     * 2.02439): its half-widths are 2e-4 smaller than the exact ones. */
    CHECK(near(d.halfwidth, 22.1851, 3e-4), "half-width %.5f", d.halfwidth);
    CHECK(near(d.pct, -1.97662, 1e-5), "percent %.6f", d.pct);
    CHECK(near(d.pct_halfwidth, 0.332692, 3e-4), "percent half-width %.6f", d.pct_halfwidth);
    CHECK(near(d.pooled_s, 34.6618, 1e-5), "pooled s %.5f", d.pooled_s);
    CHECK(d.significant, "significant");
    /* The same sets, closer than the half-width: no difference proven. */
    CHECK(stats_ministat(20, 6635.05, 24.737517, 20, 6635.05 - 22.0, 42.319462, 0.95, &d) == 0 && !d.significant,
          "22 apart is within 22.19");
    CHECK(stats_ministat(20, 6635.05, 24.737517, 20, 6635.05 - 22.4, 42.319462, 0.95, &d) == 0 && d.significant,
          "22.4 apart is beyond 22.19");
    CHECK(stats_ministat(1, 1, 0, 20, 2, 1, 0.95, &d) == -1, "one sample has no variance");
}

static void summaries(void)
{
    double v[] = {3, 1, 4, 2};
    struct stats_summary s;
    stats_summarise(v, 4, &s);
    CHECK(s.n == 4 && s.min == 1 && s.max == 4 && s.median == 2.5 && s.mean == 2.5, "summary of 1..4");
    CHECK(s.q1 == 1.75 && s.q3 == 3.25, "quartiles of 1..4 (linear): %g %g", s.q1, s.q3);
    CHECK(near(s.stddev, 1.2909944, 1e-7), "sample stddev of 1..4: %g", s.stddev);
    CHECK(v[0] == 1 && v[3] == 4, "sorted in place");
    double one[] = {7};
    stats_summarise(one, 1, &s);
    CHECK(s.median == 7 && s.q1 == 7 && s.q3 == 7 && s.stddev == 0, "one sample");

    uint32_t sorted[100];
    for (uint32_t i = 0; i < 100; i++)
        sorted[i] = i + 1;
    CHECK(stats_quantile_u32(sorted, 100, 0) == 1, "p0 is the minimum");
    CHECK(stats_quantile_u32(sorted, 100, 0.5) == 50, "p50 of 1..100");
    CHECK(stats_quantile_u32(sorted, 100, 0.99) == 99, "p99 of 1..100");
    CHECK(stats_quantile_u32(sorted, 100, 0.999) == 100, "p99.9 of 1..100");
    CHECK(stats_quantile_u32(sorted, 100, 1) == 100, "p100 is the maximum");
    CHECK(stats_quantile_u32(sorted, 1, 0.5) == 1, "one value");
}

int main(int argc, char **argv)
{
    tu_init(argc, argv, "test_bench_stats");
    t_table();
    ministat_example();
    summaries();
    return tu_finish();
}
