/* Experiments `cold` and `prefetch` (seed 004's test, and seed 002's dummy-read prefetch): random
 * 1500-byte slices of 16 separately allocated 2 MiB buffers, summed after a sweep through 128 MiB
 * has pushed them out of every cache level, in GB/s.  `cold` times every contender so;
 * `prefetch` asks whether software prefetch still pays when hardware prefetchers exist: the
 * public entry alone, against the same walk with prefetches issued a distance ahead (the seed's
 * 5 x 64 bytes among them), the whole slice prefetched first, and the next slice prefetched while
 * this one is summed, each judged against the plain call with Student's t. */
#include <stdlib.h>
#include <string.h>

#include "contenders.h"
#include "experiments.h"
#include "inetcsum.h"
#include "timing.h"

enum { BUFS = 16, SLICES = 4000, SLICE = 1500, LINE = 64 };
#define BUFSIZE ((size_t)2 << 20)
#define EVICT_SIZE ((size_t)128 << 20)
#define MAX_TRIALS 64

struct cold_set {
    uint8_t *bufs[BUFS], *evict;
    const uint8_t *slices[SLICES];
};

static int cold_init(struct cold_set *c)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < BUFS; i++) {
        if (!(c->bufs[i] = malloc(BUFSIZE)))
            return -1;
        memset(c->bufs[i], i * 17 + 1, BUFSIZE);
    }
    if (!(c->evict = malloc(EVICT_SIZE)))
        return -1;
    memset(c->evict, 1, EVICT_SIZE);
    uint64_t x = 4; /* seed 004's slices: a fixed pseudo-random choice, the same in every run */
    for (int i = 0; i < SLICES; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t v = x >> 17;
        c->slices[i] = c->bufs[v % BUFS] + (v / BUFS) % (BUFSIZE - SLICE);
    }
    return 0;
}

static void cold_free(struct cold_set *c)
{
    for (int i = 0; i < BUFS; i++)
        free(c->bufs[i]);
    free(c->evict);
}

/* Touches every line of 128 MiB: the slices leave L1, L2 and L3. */
static void evict(struct cold_set *c)
{
    for (size_t i = 0; i < EVICT_SIZE; i += LINE)
        c->evict[i]++;
    OPAQUE(c->evict);
}

typedef uint32_t (*slice_fn)(const uint8_t *slice, const uint8_t *next);

/* GB/s of one pass over the slices after an eviction sweep. */
static double pass(struct cold_set *c, slice_fn f, double hz)
{
    evict(c);
    uint32_t sink = 0;
    uint64_t t0 = ticks();
    for (int i = 0; i < SLICES; i++)
        sink ^= f(c->slices[i], c->slices[(i + 1) % SLICES]);
    uint64_t t = ticks() - t0;
    OPAQUE(sink);
    return (double)SLICES * SLICE / ((double)t / hz) / 1e9;
}

static int trials_for(const struct bench_run *r)
{
    return r->trials < MAX_TRIALS ? r->trials : MAX_TRIALS;
}

/* ---- cold: every contender on the same slices ---- */

static const struct contender *cold_current; /* the contender pass() runs, through cold_call */
static uint32_t cold_call(const uint8_t *slice, const uint8_t *next)
{
    (void)next;
    return cold_current->partial(slice, SLICE, 0);
}

int exp_cold(struct bench_run *r)
{
    struct contenders cs;
    const char *why;
    contenders_init(&cs, r->impl, &why);
    struct cold_set c;
    if (cold_init(&c) != 0) {
        cold_free(&c);
        fprintf(stderr, "inetcsum bench: out of memory\n");
        return -1;
    }
    int trials = trials_for(r);
    fprintf(r->out,
            "\n## cold: %d random %d-byte slices of %d x 2 MiB after an eviction sweep (seed 004)\n\n"
            "GB/s, median of %d interleaved trials\n\n",
            SLICES, SLICE, BUFS, trials);
    if (why)
        bench_note(r, "%s", why);
    const char *cols[MAX_CONTENDERS + 2];
    int nc = 0;
    for (int j = 0; j < cs.n; j++)
        cols[nc++] = cs.c[j].name;
    if (cs.read_limit >= 0)
        cols[nc++] = "inetcsum / read limit";
    if (cs.dpdk >= 0)
        cols[nc++] = "inetcsum / DPDK";
    bench_table_head(r->out, cols, nc);
    static double g[MAX_CONTENDERS][MAX_TRIALS], ratio[2][MAX_TRIALS];
    for (int k = 0; k < trials; k++) {
        for (int j = 0; j < cs.n; j++) {
            cold_current = &cs.c[j];
            g[j][k] = pass(&c, cold_call, r->hz);
        }
        /* Throughput ratios (the subject's GB/s over the anchor's): above 1 is faster. */
        if (cs.read_limit >= 0)
            ratio[0][k] = g[cs.subject][k] / g[cs.read_limit][k];
        if (cs.dpdk >= 0)
            ratio[1][k] = g[cs.subject][k] / g[cs.dpdk][k];
    }
    fputc('|', r->out);
    struct stats_summary s;
    for (int j = 0; j < cs.n; j++) {
        struct figure_key key = {"cold", "throughput", cs.c[j].name, NULL, SLICE};
        bench_record(r, &key, "GB/s", g[j], (size_t)trials, &s);
        fprintf(r->out, " %.2f |", s.median);
    }
    for (int q = 0; q < 2; q++) {
        int ref = q == 0 ? cs.read_limit : cs.dpdk;
        if (ref < 0)
            continue;
        char m[64];
        snprintf(m, sizeof m, "throughput ratio to %s", cs.c[ref].name);
        struct figure_key key = {"cold", m, "inetcsum", NULL, SLICE};
        bench_record(r, &key, "speed ratio", ratio[q], (size_t)trials, &s);
        fprintf(r->out, " %.2f |", s.median);
    }
    fputc('\n', r->out);
    cold_free(&c);
    return 0;
}

/* ---- prefetch: the public entry with and without software prefetch ---- */

#define CHUNK 256 /* the walk's step: even, so partial sums of chunks add without a byte swap */

static size_t prefetch_distance; /* bytes ahead, for the "ahead" variants */

static uint32_t plain(const uint8_t *slice, const uint8_t *next)
{
    (void)next;
    return inetcsum_partial(slice, SLICE, 0);
}

/* The slice in CHUNK steps, each step first prefetching what lies `distance` bytes ahead (within
 * the slice: past its end may be another buffer's, or unmapped).  distance 0: the same walk
 * without prefetches, which isolates the walk's own cost. */
static inline uint32_t walk(const uint8_t *slice, size_t distance)
{
    uint32_t sum = 0;
    for (size_t off = 0; off < SLICE; off += CHUNK) {
        if (distance)
            for (size_t p = off + distance; p < off + distance + CHUNK && p < SLICE; p += LINE)
                __builtin_prefetch(slice + p, 0, 3);
        size_t n = SLICE - off < CHUNK ? SLICE - off : CHUNK;
        sum = inetcsum_add(sum, inetcsum_partial(slice + off, n, 0));
    }
    return sum;
}

static uint32_t walk_plain(const uint8_t *slice, const uint8_t *next)
{
    (void)next;
    return walk(slice, 0);
}

static uint32_t walk_ahead(const uint8_t *slice, const uint8_t *next)
{
    (void)next;
    return walk(slice, prefetch_distance);
}

static uint32_t whole_first(const uint8_t *slice, const uint8_t *next)
{
    (void)next;
    for (size_t p = 0; p < SLICE; p += LINE)
        __builtin_prefetch(slice + p, 0, 3);
    return inetcsum_partial(slice, SLICE, 0);
}

/* As a packet loop prefetches packet i+1 while it works on packet i. */
static uint32_t next_slice(const uint8_t *slice, const uint8_t *next)
{
    for (size_t p = 0; p < SLICE; p += LINE)
        __builtin_prefetch(next + p, 0, 3);
    return inetcsum_partial(slice, SLICE, 0);
}

struct variant {
    const char *name;
    slice_fn f;
    size_t distance;
};

int exp_prefetch(struct bench_run *r)
{
    static const struct variant v[] = {
        {"plain call", plain, 0},
        {"256-byte walk, no prefetch", walk_plain, 0},
        {"walk, prefetch 2 x 64 B ahead", walk_ahead, 128},
        {"walk, prefetch 5 x 64 B ahead", walk_ahead, 320},
        {"walk, prefetch 10 x 64 B ahead", walk_ahead, 640},
        {"walk, prefetch 20 x 64 B ahead", walk_ahead, 1280},
        {"whole slice prefetched first", whole_first, 0},
        {"next slice prefetched meanwhile", next_slice, 0},
    };
    enum { NV = sizeof v / sizeof v[0] };
    struct cold_set c;
    if (cold_init(&c) != 0) {
        cold_free(&c);
        fprintf(stderr, "inetcsum bench: out of memory\n");
        return -1;
    }
    /* Every variant must give the plain call's sum. */
    for (int i = 0; i < 8; i++)
        for (int j = 1; j < NV; j++) {
            prefetch_distance = v[j].distance;
            uint32_t want = plain(c.slices[i], c.slices[i + 1]);
            if (inetcsum_fold(v[j].f(c.slices[i], c.slices[i + 1])) != inetcsum_fold(want)) {
                fprintf(stderr, "inetcsum bench: prefetch variant '%s' sums wrong\n", v[j].name);
                cold_free(&c);
                return -1;
            }
        }
    int trials = trials_for(r);
    static double g[NV][MAX_TRIALS];
    for (int k = 0; k < trials; k++)
        for (int j = 0; j < NV; j++) {
            prefetch_distance = v[j].distance;
            g[j][k] = pass(&c, v[j].f, r->hz);
        }
    fprintf(r->out,
            "\n## prefetch: software prefetch on cold slices (seeds 002, 004), inetcsum_partial with kernel %s\n\n"
            "GB/s over %d trials (variants interleaved), each against the plain call: Student's t at 95%%\n\n",
            inetcsum_impl_name(), trials);
    static const char *const cols[] = {"variant", "median GB/s", "mean GB/s", "stddev", "vs plain call", "verdict"};
    bench_table_head(r->out, cols, 6);
    struct stats_summary base, s;
    for (int j = 0; j < NV; j++) {
        struct figure_key key = {"prefetch", "throughput", v[j].name, NULL, SLICE};
        bench_record(r, &key, "GB/s", g[j], (size_t)trials, j == 0 ? &base : &s);
        if (j == 0) {
            fprintf(r->out, "| %s | %.2f | %.2f | %.2f | | |\n", v[j].name, base.median, base.mean, base.stddev);
            continue;
        }
        struct stats_difference d;
        if (stats_ministat(base.n, base.mean, base.stddev, s.n, s.mean, s.stddev, 0.95, &d) != 0)
            fprintf(r->out, "| %s | %.2f | %.2f | %.2f | | too few trials |\n", v[j].name, s.median, s.mean, s.stddev);
        else
            fprintf(r->out, "| %s | %.2f | %.2f | %.2f | %+.1f%% +/- %.1f%% | %s |\n", v[j].name, s.median, s.mean,
                    s.stddev, d.pct, d.pct_halfwidth,
                    !d.significant ? "no difference" : d.diff > 0 ? "faster" : "slower");
    }
    cold_free(&c);
    return 0;
}
