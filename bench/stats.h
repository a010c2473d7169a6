/* The statistics `inetcsum bench` reports and `inetcsum bench compare` judges with: order
 * statistics of samples, and ministat's test of two sets of samples (Student's t, pooled s). */
#ifndef ICS_BENCH_STATS_H
#define ICS_BENCH_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Summary of a set of samples. */
struct stats_summary {
    size_t n;
    double min, max, median, q1, q3, mean, stddev; /* stddev: sample (n - 1) */
};
/* Summarises v[0..n) (n >= 1); sorts v. */
void stats_summarise(double *v, size_t n, struct stats_summary *s);

/* The q-quantile (0 <= q <= 1) of sorted[0..n), nearest rank: the smallest value with at least
 * q * n values at or below it (q = 0: the minimum). */
uint32_t stats_quantile_u32(const uint32_t *sorted, size_t n, double q);

/* Student's t distribution: P(T <= t) for `df` degrees of freedom, and its inverse (the value t
 * with P(T <= t) = p, 0 < p < 1). */
double stats_t_cdf(double t, double df);
double stats_t_quantile(double p, double df);

/* ministat's "Difference at C% confidence" of set b against set a: the difference of the means
 * and its confidence half-width from Student's t with the pooled standard deviation; the
 * difference as a percentage of a's mean, with the half-width of that ratio.  Significant when
 * |difference| exceeds the half-width. */
struct stats_difference {
    double diff, halfwidth, pct, pct_halfwidth, pooled_s;
    int significant;
};
/* 0, or -1 when either set has fewer than 2 samples (no variance to judge with). */
int stats_ministat(size_t na, double mean_a, double sd_a, size_t nb, double mean_b, double sd_b,
                   double confidence, struct stats_difference *d);

#endif
