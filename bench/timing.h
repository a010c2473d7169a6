/* Timing helpers shared by the benchmark's translation units: lfence-serialised rdtsc, and a
 * barrier that makes a value opaque.  Every timed loop passes its buffer and length through it on
 * each call, so no contender (least of all an inlined one) can hoist work out of the loop: as in a
 * packet loop, where each packet's address and length are new. */
#ifndef BENCH_TIMING_H
#define BENCH_TIMING_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t ticks(void)
{
#if defined(__x86_64__)
    uint32_t lo, hi;
    __asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
    return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v)::"memory");
    return v;
#else
#error "no cycle counter for this architecture"
#endif
}

#define OPAQUE(p) __asm__ volatile("" : "+r"(p)::"memory")

/* A timed loop: reps independent calls, returns ticks for all of them. */
typedef uint64_t (*timed_loop)(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);

/* Defines a timed_loop named NAME (with storage class STORAGE, possibly empty) that evaluates EXPR
 * (which may use src, dst and len) reps times, with src, dst and len made opaque on every call and
 * the results XORed into a sink, so every contender is timed by the identical harness. */
#define DEFINE_TIMED_LOOP(STORAGE, NAME, EXPR)                                                     \
    STORAGE uint64_t NAME(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps)             \
    {                                                                                              \
        uint64_t sink_ = 0, t0_ = ticks();                                                         \
        for (unsigned i_ = 0; i_ < reps; i_++) {                                                   \
            OPAQUE(src);                                                                           \
            OPAQUE(dst);                                                                           \
            OPAQUE(len);                                                                           \
            sink_ ^= (uint64_t)(EXPR);                                                             \
        }                                                                                          \
        uint64_t t_ = ticks() - t0_;                                                               \
        OPAQUE(sink_);                                                                             \
        return t_;                                                                                 \
    }

/* Anchors, compiled with -O3 -march=native in anchors.c. */
uint64_t loop_read_limit(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);
uint64_t loop_dpdk(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);
uint64_t loop_memcpy(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);
uint64_t loop_memcpy_dpdk(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);
uint32_t anchor_dpdk_sum(const void *buf, size_t len);
uint32_t anchor_read_all(const void *buf, size_t len); /* the read limit's body, one call */
const char *anchor_read_limit_isa(void);
/* DPDK's known-layout packet checksums on an Ethernet/IPv4-or-IPv6/TCP-or-UDP frame (src for
 * verify, dst for fill, which writes). */
uint64_t loop_dpdk_crc32c(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);
uint32_t anchor_dpdk_crc32c(const void *buf, size_t len, uint32_t crc); /* as inetcsum_crc32c */
uint64_t loop_dpdk_verify(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);
uint64_t loop_dpdk_fill(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);

#endif
