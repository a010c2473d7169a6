/* The checksum contenders `inetcsum bench` times side by side: the read-bandwidth limit, DPDK's
 * __rte_raw_cksum (when built), Linux's algorithm (x86-64), the public entry inetcsum_partial, and each kernel this CPU runs
 * (or only the --impl one), each as a throughput loop, a latency loop and a plain call. */
#ifndef ICS_BENCH_CONTENDERS_H
#define ICS_BENCH_CONTENDERS_H

#include <stddef.h>
#include <stdint.h>

#include "timing.h"

#define MAX_CONTENDERS 16

enum contender_role { ROLE_ANCHOR, ROLE_SUBJECT, ROLE_KERNEL };

struct contender {
    const char *name;
    enum contender_role role;
    timed_loop throughput, latency;
    uint32_t (*partial)(const void *buf, size_t len, uint32_t seed);
};

struct contenders {
    struct contender c[MAX_CONTENDERS];
    int n;
    int read_limit, dpdk, linux_alg, subject; /* indices, or -1 when absent */
};

/* Fills `cs`; impl: only that kernel (NULL: all).  Anchors compiled for features this CPU lacks
 * are left out (with *why saying so). */
void contenders_init(struct contenders *cs, const char *impl, const char **why);

/* Whether this CPU has what the anchors (anchors.c, -march=native) were compiled for. */
int contenders_anchors_runnable(void);

/* Two 64-byte-aligned buffers of cap bytes for timing the sum: *src a fixed pattern, *dst zeros
 * (free both).  -1, with a message on stderr, without memory. */
int contenders_buffers(size_t cap, uint8_t **src, uint8_t **dst);

/* Ticks for `reps` calls of c at (src, len): independent calls, or dependent ones when latency. */
uint64_t contender_time(const struct contender *c, int latency, const uint8_t *src, uint8_t *dst, size_t len,
                        unsigned reps);

#endif
