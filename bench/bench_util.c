/* Helpers shared by the benchmarks: medians, the TSC frequency, pinning to one CPU. */
#define _GNU_SOURCE
#include "bench_util.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timing.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double tsc_hz(void)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    uint64_t t0 = ticks();
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec) < 2e8);
    uint64_t t1 = ticks();
    return (double)(t1 - t0) / ((b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9);
}

void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (cpu < 0) {
        sched_getaffinity(0, sizeof set, &set);
        for (cpu = CPU_SETSIZE - 1; cpu > 0 && !CPU_ISSET(cpu, &set); cpu--)
            ;
        CPU_ZERO(&set);
    }
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) == 0)
        printf("pinned to CPU %d\n", cpu);
}


void bench_args(int argc, char **argv, int default_trials, int quick_trials, struct bench_opts *o)
{
    o->trials = default_trials;
    o->cpu = -1;
    o->quick = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            o->quick = 1, o->trials = quick_trials;
        else if (strcmp(argv[i], "--trials") == 0 && i + 1 < argc)
            o->trials = atoi(argv[++i]);
        else if (strcmp(argv[i], "--cpu") == 0 && i + 1 < argc)
            o->cpu = atoi(argv[++i]);
    }
    if (o->trials < 1)
        o->trials = 1;
    if (o->trials > 31)
        o->trials = 31;
}
