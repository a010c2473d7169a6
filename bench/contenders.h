/* The checksum contenders `inetcsum bench` times side by side: the read-bandwidth limit, DPDK's
 * __rte_raw_cksum (when built), Linux's algorithm (x86-64), the public entry inetcsum_partial, and each kernel this CPU runs
 * (or only the --impl one), each as a throughput loop, a latency loop and a plain call. */
#ifndef ICS_BENCH_CONTENDERS_H
#define ICS_BENCH_CONTENDERS_H

#include <stddef.h>
#include <stdint.h>

#include "timing.h"

#define MAX_CONTENDERS 24 /* anchors (4), the two subjects, every kernel (10 on x86) and the inline code, with room */
#define MAX_TRIALS 64 /* --trials takes at most this */

enum contender_role { ROLE_ANCHOR, ROLE_SUBJECT, ROLE_KERNEL };

struct contender {
    const char *name;
    enum contender_role role;
    timed_loop throughput, latency;
    uint32_t (*partial)(const void *buf, size_t len, uint32_t seed);
    /* Run before each of its timed loops when set, with prepare_arg: a contender that is the public
     * entry under another plan publishes that plan here (`inetcsum bench row`). */
    void (*prepare)(const void *arg);
    const void *prepare_arg;
};

struct contenders {
    struct contender c[MAX_CONTENDERS];
    int n;
    int read_limit, dpdk, linux_alg, vpp, subject; /* indices, or -1 when absent */
    int inlined; /* inetcsum_partial inlined with the anchors' flags (subject_inlined.h), or -1 */
    int o2; /* ... and at -O2 with those flags' -march (subject_inlined.c again), or -1 */
};

/* Fills `cs`; impl: only that kernel (NULL: all; with one, the inlined subject, which no kernel
 * choice reaches, is left out).  Anchors compiled for features this CPU lacks are left out (with
 * *why saying so), and the inlined subject with them. */
void contenders_init(struct contenders *cs, const char *impl, const char **why);

/* Adds the inline scalar code (what inetcsum_partial runs below a plan's inline_below) as one more
 * kernel, called through a pointer as the kernels are: the sweep times it at every size, so that
 * where a kernel overtakes it shows. */
void contenders_add_inline(struct contenders *cs);

/* Whether this CPU has what the anchors (anchors.c, -march=native) were compiled for. */
int contenders_anchors_runnable(void);

/* One trial: every contender timed at (src, len), reps calls each, its ticks per call in
 * t[j][trial].  The order changes from trial to trial (a permutation drawn from the trial number),
 * and each contender runs reps/8 untimed calls right before its timed ones: what ran before it
 * must not count.  (On an Intel core the first 512-bit instructions after scalar code run slowly
 * while the core changes its power licence: in a fixed order the contender timed after a scalar
 * one paid it, 20% at 64 KiB on a Sapphire Rapids guest.) */
void contenders_trial(const struct contenders *cs, int latency, const uint8_t *src, uint8_t *dst, size_t len,
                      unsigned reps, int trial, double t[][MAX_TRIALS]);

/* Two 64-byte-aligned buffers of cap bytes for timing the sum: *src a fixed pattern, *dst zeros
 * (free both).  -1, with a message on stderr, without memory. */
int contenders_buffers(size_t cap, uint8_t **src, uint8_t **dst);

/* The public entry inetcsum_partial as a contender named `name` (its loops and its function);
 * prepare and prepare_arg are left for the caller. */
struct contender contender_public(const char *name);
/* The same for the fused copy inetcsum_partial_copy (from src into dst). */
struct contender contender_public_copy(const char *name);

/* Ticks for `reps` calls of c at (src, len): independent calls, or dependent ones when latency. */
uint64_t contender_time(const struct contender *c, int latency, const uint8_t *src, uint8_t *dst, size_t len,
                        unsigned reps);

#endif
