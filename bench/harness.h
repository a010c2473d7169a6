/* What every `inetcsum bench` experiment shares: the run's settings, pinning and the TSC, and
 * the record of figures (each a set of samples, summarised, kept for --json and compare). */
#ifndef ICS_BENCH_HARNESS_H
#define ICS_BENCH_HARNESS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stats.h"

/* How much work a run does: the full run, --quick (the whole of `all` under two minutes), or
 * --smoke (a few seconds, to check the tool works; its figures mean nothing). */
enum bench_scale { BENCH_FULL, BENCH_QUICK, BENCH_SMOKE };

/* --starts: where the sums of `sizes`, `sweep` and `row` begin, in bytes past a 64-byte boundary.  The
 * default is 0 and 1 ("even" and "odd"); packets' checksummed data starts elsewhere (TCP or UDP
 * over IPv4 at 34 bytes into a frame that starts on a boundary, as DPDK's and AF_XDP's headroom
 * and Linux's NET_SKB_PAD place it; over IPv6 at 54), and a kernel that loads without aligning
 * can win or lose there against one that aligns first (issue 35). */
#define BENCH_MAX_STARTS 8
#define BENCH_PACKET_STARTS "0,1,34,54"

struct bench_run {
    enum bench_scale scale;
    int trials;       /* interleaved trials per figure (--trials overrides the scale's) */
    int cpu;          /* the CPU the run is pinned to, or -1 when pinning failed */
    const char *impl; /* --impl: only this kernel is timed beside the anchors; NULL: every kernel */
    size_t starts[BENCH_MAX_STARTS]; /* --starts, each 0..63 */
    int nstarts;
    double hz;        /* TSC ticks per second */
    FILE *out;        /* the tables */
    json_t *figures;  /* every figure recorded, in order */
    json_t *notes;    /* what the reader should know: too noisy, no second CPU, ... */
    size_t recorded, noisy;
};

/* Pins to `cpu`, or to the last allowed CPU when cpu < 0; returns the CPU or -1. */
int bench_pin(int cpu);
/* Another CPU this process may run on than `cpu`, or -1. */
int bench_other_cpu(int cpu);
/* TSC ticks per second, against CLOCK_MONOTONIC. */
double bench_tsc_hz(void);

/* A figure's identity: what compare matches across runs ("sizes/throughput/avx2/odd/1500"). */
struct figure_key {
    const char *experiment, *metric, *contender, *variant;
    long size; /* bytes, or -1 */
};

/* Records samples[0..n) (sorted in place) under `key` in `unit`: lower is better for "ticks", "ns"
 * and "time ratio", higher for "GB/s", "pps" and "speed ratio" (compare relies on it); a figure whose interquartile range exceeds 10% of its median counts as noisy.
 * Returns the figure's JSON object (owned by the run) for extra fields; *s gets the summary. */
json_t *bench_record(struct bench_run *r, const struct figure_key *key, const char *unit, double *samples,
                     size_t n, struct stats_summary *s);

/* Whether a figure counts as noisy: its interquartile range over 10% of its median (with at
 * least 3 samples to have quartiles). */
int bench_noisy(const struct stats_summary *s);

/* How many calls one timed loop makes at `len` bytes: enough bytes (plus a per-call allowance)
 * that the rdtsc pair is noise, few enough that a trial of every contender sees the same machine. */
unsigned bench_reps(const struct bench_run *r, size_t len);
/* A start's name in tables and figure keys: "even" (0), "odd" (1), else "+N". */
const char *bench_start_name(size_t start);
/* The run's starts by name, comma-separated, to r->out (the line above a table). */
void bench_print_starts(const struct bench_run *r);
/* Parses --starts ("0,1,34,54", or "packet" for BENCH_PACKET_STARTS) into r; -1 (with *why) if bad. */
int bench_parse_starts(struct bench_run *r, const char *text, const char **why);

/* Adds a note for the reader (stdout now, and the JSON). */
void bench_note(struct bench_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The machine: CPU model and flags, TSC frequency, CPUs, OS, compiler, kernels, anchors. */
json_t *bench_machine(const struct bench_run *r);

/* Prints a markdown table's header row and its separator: "| a | b |\n|---|---|\n". */
void bench_table_head(FILE *out, const char *const *columns, int n);

#endif
