/* inetcsum_partial and inetcsum_crc32c as a C caller compiled like the anchors (-O3 -march=native)
 * calls them (subject_inlined.c): through the headers' macros, so that with AVX2 or AVX-512BW the
 * sum's vector path, and with SSE4.2 the CRC32c's short path, is inlined into the timing loop as
 * VPP's and DPDK's code is into theirs (issue 35). */
#ifndef ICS_BENCH_SUBJECT_INLINED_H
#define ICS_BENCH_SUBJECT_INLINED_H

#include <stddef.h>
#include <stdint.h>

#include "timing.h"

/* 1 when the header's vector path is compiled into subject_inlined.c (its flags include AVX2 or
 * AVX-512BW), else 0: then the contender would time the same code as "inetcsum" and is left out. */
int subject_inlined_compiled(void);
uint32_t subject_inlined_partial(const void *buf, size_t len, uint32_t seed);
uint64_t loop_inlined(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);
uint64_t loop_inlined_latency(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);

/* The same built with -O2 (GCC's default, and distributions') and the anchors' -march. */
int subject_inlined_compiled_o2(void);
uint32_t subject_inlined_partial_o2(const void *buf, size_t len, uint32_t seed);
uint64_t loop_inlined_o2(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);
uint64_t loop_inlined_latency_o2(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);

/* The same for inetcsum_crc32c (its header's inline path below INETCSUM_INLINE_CRC32C_MAX, with
 * SSE4.2): 1 when compiled in, else 0. */
int subject_inlined_crc32c_compiled(void);
uint32_t subject_inlined_crc32c(const void *buf, size_t len, uint32_t crc);
uint64_t loop_inlined_crc32c(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);

#endif
