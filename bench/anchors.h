/* The benchmark's anchors (anchors.c, compiled -O3 -march=native as their users compile them):
 * the read-bandwidth limit, memcpy, and DPDK's checksums from Debian's libdpdk-dev when the build
 * found it (anchor_have_dpdk(); without it the DPDK loops are absent and must not be called). */
#ifndef ICS_BENCH_ANCHORS_H
#define ICS_BENCH_ANCHORS_H

#include <stddef.h>
#include <stdint.h>

/* Timed loops (timing.h's timed_loop): independent calls, and dependent calls (_latency). */
uint64_t loop_read_limit(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);
uint64_t loop_read_limit_latency(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);
uint64_t loop_dpdk(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);
uint64_t loop_dpdk_latency(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);
uint64_t loop_memcpy(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);
uint64_t loop_memcpy_dpdk(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);

/* One call each, as the library's kernels are called (the seed is added, for DPDK, as DPDK
 * callers add one: as the initial sum). */
uint32_t anchor_read_all(const void *buf, size_t len); /* the read limit's body */
uint32_t anchor_read_limit_partial(const void *buf, size_t len, uint32_t seed);
uint32_t anchor_dpdk_sum(const void *buf, size_t len);
uint32_t anchor_dpdk_partial(const void *buf, size_t len, uint32_t seed);

/* DPDK's known-layout packet checksums on an Ethernet/IPv4-or-IPv6/TCP-or-UDP frame (src for
 * verify, dst for fill, which writes), and its CRC32c (rte_hash_crc). */
uint64_t loop_dpdk_verify(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);
uint64_t loop_dpdk_fill(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);
uint64_t loop_dpdk_crc32c(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);
uint32_t anchor_dpdk_crc32c(const void *buf, size_t len, uint32_t crc); /* as inetcsum_crc32c */

/* Linux's x86-64 csum_partial algorithm (v6.8: one add-with-carry chain, GPRs only), written for
 * the benchmark (anchor_linux.c); x86-64 only (anchor_have_linux()). */
int anchor_have_linux(void);
uint32_t anchor_linux_partial(const void *buf, size_t len, uint32_t seed);
uint64_t loop_linux(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);
uint64_t loop_linux_latency(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);

/* VPP's clib_ip_csum algorithm (its AVX-512 build, or its AVX2 one), written for the benchmark
 * (anchor_vpp.c); x86-64 with AVX2 at least, as the anchors are compiled (anchor_have_vpp()). */
int anchor_have_vpp(void);
uint32_t anchor_vpp_partial(const void *buf, size_t len, uint32_t seed);
uint64_t loop_vpp(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);
uint64_t loop_vpp_latency(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);

const char *anchor_read_limit_isa(void); /* "avx512", "avx2", or "scalar" */
int anchor_have_dpdk(void);
const char *anchor_dpdk_version(void); /* "DPDK 22.11.x", or "no DPDK" */
/* The CPU features (ICS_CPU_* of lib/kernels.h) the anchors were compiled to assume: a binary
 * built with -march=native and run on a lesser CPU must not call them. */
uint32_t anchor_compiled_features(void);

#endif
