/* Part of experiment `copy`: every copy+sum kernel in TSC ticks per call (copy_kernels.c). */
#ifndef ICS_BENCH_COPY_KERNELS_H
#define ICS_BENCH_COPY_KERNELS_H

#include "harness.h"

/* Prints the tables and records the figures; 0, or -1 (with a message on stderr). */
int copy_kernels(struct bench_run *r);

#endif
