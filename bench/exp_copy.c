/* Experiments `copy` and `jitter` (seed 000, Xenomai's csum_partial_copy_nocheck thread): each
 * call timed on its own, a million times, the three ways of getting a checksummed copy taking
 * turns call by call: the fused inetcsum_partial_copy, memcpy then inetcsum_partial, and memcpy
 * alone.  The seed's question is the tail: min/avg hide a fused copy's rare 30-microsecond calls,
 * so min, max, average and p50/p99/p99.9 are reported, idle and (jitter) while a second process
 * streams 128 MiB copies through the caches on the other core.  `copy` then times every copy
 * kernel in ticks per call (copy_kernels.c). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "copy_kernels.h"
#include "experiments.h"
#include "inetcsum.h"
#include "timing.h"

static const size_t sizes[] = {32, 1024, 1500, 9000};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define NWAYS 3
#define BATCHES 20 /* compare judges per-batch means: 20 samples of a figure */

static const char *const ways[NWAYS] = {"inetcsum copy", "memcpy+inetcsum", "memcpy"};

/* The contenders, not inlined, so each timed call is one real call as a stack makes it. */
static __attribute__((noinline)) uint32_t way_fused(uint8_t *dst, const uint8_t *src, size_t len)
{
    return inetcsum_partial_copy(dst, src, len, 0);
}
static __attribute__((noinline)) uint32_t way_memcpy_sum(uint8_t *dst, const uint8_t *src, size_t len)
{
    memcpy(dst, src, len);
    return inetcsum_partial(dst, len, 0);
}
static __attribute__((noinline)) uint32_t way_memcpy(uint8_t *dst, const uint8_t *src, size_t len)
{
    memcpy(dst, src, len);
    OPAQUE(dst);
    return 0;
}
static uint32_t (*const way_fn[NWAYS])(uint8_t *, const uint8_t *, size_t) = {way_fused, way_memcpy_sum, way_memcpy};

static size_t calls_for(const struct bench_run *r)
{
    return r->scale == BENCH_FULL ? 1000000 : r->scale == BENCH_QUICK ? 200000 : 2000;
}

/* What an empty timed region costs (the lfence/rdtsc pair): subtracted from every call. */
static uint32_t timer_overhead(void)
{
    enum { N = 20001 };
    static double v[N];
    for (int i = 0; i < N; i++) {
        uint64_t t0 = ticks();
        v[i] = (double)(ticks() - t0);
    }
    struct stats_summary s;
    stats_summarise(v, N, &s);
    return (uint32_t)s.min;
}

/* The finest step the timer shows: the least gap between back-to-back reads (under some
 * hypervisors reading the TSC costs tens of ticks, and a call's time is a multiple of that). */
static uint32_t timer_resolution(void)
{
    uint64_t least = UINT64_MAX, prev = ticks();
    for (int i = 0; i < 100000; i++) {
        uint64_t t = ticks();
        if (t != prev && t - prev < least)
            least = t - prev;
        prev = t;
    }
    return (uint32_t)least;
}

/* The timer's line above each table, and its figures in the notes. */
static uint32_t describe_timer(struct bench_run *r, size_t calls)
{
    uint32_t overhead = timer_overhead(), step = timer_resolution();
    fprintf(r->out,
            "ns per call over %zu calls of each, taking turns; the timer's own %.1f ns removed; back-to-back "
            "timer reads %.1f ns apart, so finer differences are not resolved\n\n",
            calls, overhead * 1e9 / r->hz, step * 1e9 / r->hz);
    return overhead;
}

struct distribution {
    uint32_t *ticks; /* per call, timer overhead removed */
    size_t n;
};

/* Times `calls` rounds of the three ways at `len`, taking turns call by call. */
static void measure(size_t len, size_t calls, uint32_t overhead, struct distribution d[NWAYS], uint8_t *src,
                    uint8_t *dst)
{
    uint32_t sink = 0;
    for (int w = 0; w < NWAYS; w++) /* warm */
        for (int i = 0; i < 1000; i++)
            sink ^= way_fn[w](dst, src, len);
    for (size_t i = 0; i < calls; i++)
        for (int w = 0; w < NWAYS; w++) {
            uint64_t t0 = ticks();
            sink ^= way_fn[w](dst, src, len);
            uint64_t t = ticks() - t0;
            d[w].ticks[i] = t > overhead ? (uint32_t)(t - overhead) : 0;
        }
    OPAQUE(sink);
    for (int w = 0; w < NWAYS; w++)
        d[w].n = calls;
}

static const double quantile_points[] = {0, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.995, 0.999, 0.9999, 1};
#define NQ (sizeof quantile_points / sizeof quantile_points[0])

struct summary {
    double min, max, avg, p50, p99, p999; /* ns */
};

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Records one way's distribution (per-batch means as its samples, for compare; the summary and
 * quantiles for the tables and the plot) and returns its summary. */
static struct summary record(struct bench_run *r, const char *experiment, const char *load, int way, size_t len,
                             struct distribution *d)
{
    double ns = 1e9 / r->hz, batch[BATCHES], total = 0;
    size_t per = d->n / BATCHES;
    for (int b = 0; b < BATCHES; b++) {
        double s = 0;
        for (size_t i = (size_t)b * per; i < (size_t)(b + 1) * per; i++)
            s += d->ticks[i];
        batch[b] = per ? s / (double)per * ns : 0;
    }
    for (size_t i = 0; i < d->n; i++)
        total += d->ticks[i];
    qsort(d->ticks, d->n, sizeof *d->ticks, cmp_u32);
    struct summary s = {d->ticks[0] * ns,
                        d->ticks[d->n - 1] * ns,
                        total / (double)d->n * ns,
                        stats_quantile_u32(d->ticks, d->n, 0.5) * ns,
                        stats_quantile_u32(d->ticks, d->n, 0.99) * ns,
                        stats_quantile_u32(d->ticks, d->n, 0.999) * ns};
    struct figure_key key = {experiment, "call time", ways[way], load, (long)len};
    struct stats_summary bs;
    json_t *f = bench_record(r, &key, "ns", batch, BATCHES, &bs);
    json_t *q = json_array();
    for (size_t i = 0; i < NQ; i++)
        json_array_append_new(q, json_pack("[f, f]", quantile_points[i],
                                           stats_quantile_u32(d->ticks, d->n, quantile_points[i]) * ns));
    json_object_set_new(f, "calls", json_integer((json_int_t)d->n));
    json_object_set_new(f, "distribution", json_pack("{s:f, s:f, s:f, s:f, s:f, s:f}", "min", s.min, "max", s.max,
                                                     "avg", s.avg, "p50", s.p50, "p99", s.p99, "p99.9", s.p999));
    json_object_set_new(f, "quantiles", q);
    return s;
}

struct buffers {
    uint8_t *src, *dst;
    struct distribution d[NWAYS];
};

static void buffers_free(struct buffers *b)
{
    free(b->src);
    free(b->dst);
    for (int w = 0; w < NWAYS; w++)
        free(b->d[w].ticks);
}

/* The source, destination and per-call records; -1 (all freed, message printed) when short of
 * memory. */
static int buffers_init(struct buffers *b, size_t calls)
{
    memset(b, 0, sizeof *b);
    b->src = aligned_alloc(64, 9024);
    b->dst = aligned_alloc(64, 9024);
    int ok = b->src && b->dst;
    for (int w = 0; w < NWAYS; w++)
        ok = ok && (b->d[w].ticks = malloc(calls * sizeof(uint32_t))) != NULL;
    if (!ok) {
        buffers_free(b);
        fprintf(stderr, "inetcsum bench: out of memory\n");
        return -1;
    }
    for (size_t i = 0; i < 9024; i++)
        b->src[i] = (uint8_t)(i * 7 + 3);
    /* The fused copy must copy and sum as memcpy then sum does. */
    for (size_t s = 0; s < NSIZES; s++) {
        memset(b->dst, 0, 9024);
        uint16_t fused = inetcsum_fold(way_fused(b->dst, b->src + 1, sizes[s]));
        if (memcmp(b->dst, b->src + 1, sizes[s]) != 0 ||
            fused != inetcsum_fold(way_memcpy_sum(b->dst, b->src + 1, sizes[s]))) {
            buffers_free(b);
            fprintf(stderr, "inetcsum bench: inetcsum_partial_copy disagrees with memcpy then sum at %zu bytes\n",
                    sizes[s]);
            return -1;
        }
    }
    return 0;
}

int exp_copy(struct bench_run *r)
{
    size_t calls = calls_for(r);
    struct buffers b;
    if (buffers_init(&b, calls) != 0)
        return -1;
    fprintf(r->out, "\n## copy: fused copy+sum against memcpy then sum (seed 000)\n\n");
    uint32_t overhead = describe_timer(r, calls);
    static const char *const cols[] = {"size (B)", "way", "min", "p50", "avg", "p99", "p99.9", "max"};
    bench_table_head(r->out, cols, 8);
    for (size_t s = 0; s < NSIZES; s++) {
        measure(sizes[s], calls, overhead, b.d, b.src, b.dst);
        for (int w = 0; w < NWAYS; w++) {
            struct summary m = record(r, "copy", "idle", w, sizes[s], &b.d[w]);
            fprintf(r->out, "| %zu | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f |\n", sizes[s], ways[w], m.min, m.p50,
                    m.avg, m.p99, m.p999, m.max);
        }
        fflush(r->out);
    }
    buffers_free(&b);
    return copy_kernels(r);
}

/* The cache thrasher: a child process on `cpu` copying 128 MiB from one buffer to another, again
 * and again, until killed.  Returns its pid once it is copying, or -1. */
static pid_t thrasher_start(int cpu)
{
    int ready[2];
    if (pipe(ready) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(ready[0]);
        if (cpu >= 0)
            bench_pin(cpu);
        const size_t size = (size_t)128 << 20;
        uint8_t *from = malloc(size), *to = malloc(size);
        if (!from || !to)
            _exit(1);
        memset(from, 0x5A, size);
        memset(to, 0, size);
        if (write(ready[1], "r", 1) != 1)
            _exit(1);
        for (;;) {
            memcpy(to, from, size);
            OPAQUE(to);
        }
    }
    close(ready[1]);
    char c;
    ssize_t got = pid > 0 ? read(ready[0], &c, 1) : -1;
    close(ready[0]);
    if (pid > 0 && got != 1) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        return -1;
    }
    return pid;
}

static void thrasher_stop(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

int exp_jitter(struct bench_run *r)
{
    size_t calls = calls_for(r);
    struct buffers b;
    if (buffers_init(&b, calls) != 0)
        return -1;
    int other = bench_other_cpu(r->cpu);
    fprintf(r->out, "\n## jitter: the copy experiment idle and beside a cache thrasher (seed 000)\n\n");
    if (other < 0)
        bench_note(r, "jitter: no second CPU: the thrasher shares this one, so 'busy' includes its time slices");
    fprintf(r->out, "busy: another process streams 128 MiB copies on CPU %d (the benchmark runs on CPU %d)\n", other,
            r->cpu);
    uint32_t overhead = describe_timer(r, calls);
    static const char *const cols[] = {"size (B)",    "way",         "p50 idle", "p50 busy", "p99 idle",
                                       "p99 busy",    "p99.9 idle",  "p99.9 busy", "max idle", "max busy"};
    bench_table_head(r->out, cols, 10);
    int rc = 0;
    for (size_t s = 0; s < NSIZES && rc == 0; s++) {
        struct summary idle[NWAYS], busy[NWAYS];
        measure(sizes[s], calls, overhead, b.d, b.src, b.dst);
        for (int w = 0; w < NWAYS; w++)
            idle[w] = record(r, "jitter", "idle", w, sizes[s], &b.d[w]);
        pid_t pid = thrasher_start(other);
        if (pid < 0) {
            fprintf(stderr, "inetcsum bench: cannot start the cache thrasher: %m\n");
            rc = -1;
            break;
        }
        measure(sizes[s], calls, overhead, b.d, b.src, b.dst);
        thrasher_stop(pid);
        for (int w = 0; w < NWAYS; w++) {
            busy[w] = record(r, "jitter", "busy", w, sizes[s], &b.d[w]);
            fprintf(r->out, "| %zu | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f | %.0f |\n", sizes[s], ways[w],
                    idle[w].p50, busy[w].p50, idle[w].p99, busy[w].p99, idle[w].p999, busy[w].p999, idle[w].max,
                    busy[w].max);
        }
        fflush(r->out);
    }
    buffers_free(&b);
    return rc;
}
