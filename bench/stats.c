/* Order statistics and Student's t for the benchmark (see stats.h).  The t distribution is
 * computed from the regularised incomplete beta function rather than read from a table, so any
 * confidence level and any number of samples works; the tests check it against printed tables. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Linear interpolation between order statistics (the "type 7" rule of R and numpy), so quartiles
 * of a few trials move smoothly. */
static double interpolated(const double *sorted, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t i = (size_t)pos;
    if (i + 1 >= n)
        return sorted[n - 1];
    return sorted[i] + (pos - (double)i) * (sorted[i + 1] - sorted[i]);
}

void stats_summarise(double *v, size_t n, struct stats_summary *s)
{
    qsort(v, n, sizeof *v, cmp_double);
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i];
    s->n = n;
    s->mean = sum / (double)n;
    for (size_t i = 0; i < n; i++)
        sq += (v[i] - s->mean) * (v[i] - s->mean);
    s->stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0;
    s->min = v[0];
    s->max = v[n - 1];
    s->median = interpolated(v, n, 0.5);
    s->q1 = interpolated(v, n, 0.25);
    s->q3 = interpolated(v, n, 0.75);
}

uint32_t stats_quantile_u32(const uint32_t *sorted, size_t n, double q)
{
    double rank = ceil(q * (double)n);
    size_t i = rank < 1 ? 0 : (size_t)rank - 1;
    return sorted[i < n ? i : n - 1];
}

/* The continued fraction of the incomplete beta function, evaluated by the modified Lentz method;
 * converges quickly for x < (a + 1) / (a + b + 2). */
static double beta_fraction(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    d = fabs(d) < tiny ? tiny : d;
    d = 1 / d;
    double f = d;
    for (int m = 1; m < 1000; m++) {
        for (int half = 0; half < 2; half++) {
            double num = half == 0 ? m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
                                   : -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
            d = 1 + num * d;
            d = fabs(d) < tiny ? tiny : d;
            c = 1 + num / c;
            c = fabs(c) < tiny ? tiny : c;
            d = 1 / d;
            f *= c * d;
            if (half == 1 && fabs(c * d - 1) < 1e-15)
                return f;
        }
    }
    return f;
}

/* I_x(a, b), the regularised incomplete beta function. */
static double incomplete_beta(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1) / (a + b + 2))
        return front * beta_fraction(a, b, x) / a;
    return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double stats_t_cdf(double t, double df)
{
    double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
    return t >= 0 ? 1 - tail : tail;
}

double stats_t_quantile(double p, double df)
{
    if (p == 0.5)
        return 0;
    if (p < 0.5)
        return -stats_t_quantile(1 - p, df);
    /* Bisection: the CDF is monotonic; 200 halvings of [0, 1e7] reach double precision. */
    double lo = 0, hi = 1e7;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        double mid = (lo + hi) / 2;
        if (stats_t_cdf(mid, df) < p)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

int stats_ministat(size_t na, double mean_a, double sd_a, size_t nb, double mean_b, double sd_b,
                   double confidence, struct stats_difference *d)
{
    if (na < 2 || nb < 2)
        return -1;
    double df = (double)(na + nb - 2);
    d->pooled_s = sqrt(((double)(na - 1) * sd_a * sd_a + (double)(nb - 1) * sd_b * sd_b) / df);
    double t = stats_t_quantile(1 - (1 - confidence) / 2, df);
    d->diff = mean_b - mean_a;
    d->halfwidth = t * d->pooled_s * sqrt(1.0 / (double)na + 1.0 / (double)nb);
    d->pct = mean_a != 0 ? d->diff * 100 / mean_a : 0;
    /* The percentage's half-width is that of the ratio of the means, whose variance the delta
     * method gives: both means vary, not only the numerator (as FreeBSD's ministat computes it
     * since 2020, matching seed 003's output). */
    double ma2 = mean_a * mean_a;
    d->pct_halfwidth = mean_a != 0 ? t * 100 *
                                         sqrt(sd_b * sd_b / ((double)nb * ma2) +
                                              mean_b * mean_b * sd_a * sd_a / ((double)na * ma2 * ma2))
                                   : 0;
    d->significant = fabs(d->diff) > d->halfwidth;
    return 0;
}
