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

/* Every timed loop, and every out-of-line function it calls that the benchmark defines (the
 * anchors), starts on a 64-byte boundary (the library's inetcsum_partial does too): at 16-63 B on
 * the Zen 5 guest the same loop 32 bytes further along timed the same sum 0.4-0.5 ticks (10%)
 * slower, so a change anywhere in the benchmark moved figures that an A/B of two builds compares. */
#define TIMED_ALIGN __attribute__((aligned(64), noinline))

/* A timed loop: reps independent calls, returns ticks for all of them. */
typedef uint64_t (*timed_loop)(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps);

/* Defines a timed_loop named NAME (with storage class STORAGE, possibly empty) that evaluates EXPR
 * (which may use src, dst and len) reps times, with src, dst and len made opaque on every call and
 * the results XORed into a sink, so every contender is timed by the identical harness. */
#define DEFINE_TIMED_LOOP(STORAGE, NAME, EXPR)                                                     \
    STORAGE TIMED_ALIGN uint64_t NAME(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps) \
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

/* A timed loop of reps dependent calls: each call's buffer address depends on the previous call's
 * result (through a mask the compiler cannot know is zero), so a call cannot start before the one
 * before it has finished: the latency a caller chaining sums (scatter-gather) sees. */
#define DEFINE_LATENCY_LOOP(STORAGE, NAME, EXPR)                                                   \
    STORAGE TIMED_ALIGN uint64_t NAME(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps) \
    {                                                                                              \
        uint64_t prev_ = 0, zero_ = 0;                                                             \
        const uint8_t *base_ = src;                                                                \
        OPAQUE(zero_);                                                                             \
        uint64_t t0_ = ticks();                                                                    \
        for (unsigned i_ = 0; i_ < reps; i_++) {                                                   \
            src = base_ + (prev_ & zero_);                                                         \
            OPAQUE(dst);                                                                           \
            OPAQUE(len);                                                                           \
            prev_ = (uint64_t)(EXPR);                                                              \
        }                                                                                          \
        uint64_t t_ = ticks() - t0_;                                                               \
        OPAQUE(prev_);                                                                             \
        return t_;                                                                                 \
    }

#endif
