/* The experiments of `inetcsum bench` (one file each, after the seed documents they reproduce). */
#ifndef ICS_BENCH_EXPERIMENTS_H
#define ICS_BENCH_EXPERIMENTS_H

#include "harness.h"

/* Each prints its tables on r->out and records its figures; 0, or -1 (with a message on stderr)
 * when it could not run. */
int exp_sizes(struct bench_run *r);    /* seed 001: per-size latency and throughput, every kernel */
int exp_sweep(struct bench_run *r);    /* issue 27: every size, the dispatched sum vs the best other */
int exp_row(struct bench_run *r);      /* issue 35: this CPU's tuning row vs the plan it replaces */
int exp_copy(struct bench_run *r);     /* seed 000: fused copy+sum vs memcpy then sum, distributions */
int exp_jitter(struct bench_run *r);   /* seed 000: the same, idle and with a cache thrasher */
int exp_cold(struct bench_run *r);     /* seed 004: random 1500-byte slices of cold buffers */
int exp_prefetch(struct bench_run *r); /* seeds 002, 004: software prefetch on cold data */
int exp_offload(struct bench_run *r);  /* seed 003: IPv4 header checksum in software vs device */
int exp_crc32c(struct bench_run *r);   /* SCTP's CRC32c, every kernel against DPDK's rte_hash_crc */
int exp_packet(struct bench_run *r);   /* the packet layer per packet against DPDK's helpers */
int exp_dram(struct bench_run *r);     /* 64 MiB far beyond the caches, GB/s */
int exp_gso(struct bench_run *r);      /* software segmentation of a 64 KB super-packet vs memcpy */
int exp_capture(struct bench_run *r);  /* issue 27: fix vs cp, fix in place vs verify, in tmpfs */
int exp_dpdk(struct bench_run *r);     /* issue 34: the DPDK layer against DPDK's software route */
int exp_xsk(struct bench_run *r);      /* issue 38: the AF_XDP layer's fallback, through a socket and alone */

struct experiment {
    const char *name, *what;
    int (*run)(struct bench_run *r);
};
extern const struct experiment bench_experiments[];
extern const size_t bench_experiment_count;

/* inetcsum bench compare: ministat's judgement of every figure two --json files share. */
struct compare_opts {
    double confidence; /* e.g. 0.95 */
    int all;           /* print every figure, not only the differing ones */
};
/* 0 when compared, 2 when a file could not be read (message on stderr). */
int bench_compare(const char *a_path, const char *b_path, const struct compare_opts *o, FILE *out);

#endif
