/* Helpers shared by the benchmarks. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

/* The median of v[0..n) (sorts v). */
double median(double *v, int n);
/* TSC ticks per second, measured against CLOCK_MONOTONIC over 0.2 s. */
double tsc_hz(void);
/* Pins the process to `cpu`, or to the last CPU it may run on when cpu < 0. */
void pin(int cpu);

/* The benchmarks' options: [--quick] [--trials N] [--cpu N]; trials clamped to 1..31. */
struct bench_opts {
    int trials, cpu, quick;
};
void bench_args(int argc, char **argv, int default_trials, int quick_trials, struct bench_opts *o);

#endif
