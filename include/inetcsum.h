/* inetcsum: the RFC 1071 Internet checksum (ones'-complement sum), fast and exact, for packet code
 * outside a kernel.
 *
 * Byte order.  Every value here is in host memory order, as Linux's __wsum/__sum16 and DPDK's
 * rte_raw_cksum: the data is summed as 16-bit words loaded from memory in the host's order, so a
 * 16-bit result stored with memcpy (or a plain uint16_t store) into a packet writes the right wire
 * bytes, with no htons.  Fields passed to the update functions are likewise read from the packet as
 * they lie in memory.
 *
 * Partial sums.  The uint32_t "partial" values are unfolded ones'-complement sums.  They are NOT
 * canonical: two kernels, or the same kernel on the same bytes at another address, may return
 * different 32-bit values for the same data.  Only inetcsum_fold() of a partial is canonical.  Any
 * partial may be passed back in as a seed.  A folded sum is 0 only when the data and seed are all
 * zero (+0); otherwise it is 1..0xFFFF, and 0xFFFF (-0) is kept distinct from 0.
 *
 * Memory.  No function reads outside [buf, buf+len) or writes outside [dst, dst+len), at any
 * alignment and any length, including 0 (for which buf/dst may be NULL).
 *
 * Threads.  Every function is thread-safe.  The kernel in use is chosen on first use (CPU features,
 * then the INETCSUM_IMPL environment variable); inetcsum_set_impl() may be called at any time, and a
 * call running concurrently with it uses either the old or the new kernel, both correct.
 */
#ifndef INETCSUM_H
#define INETCSUM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h> /* memcpy in the inline path */
#include <sys/uio.h> /* struct iovec */

#ifdef __cplusplus
extern "C" {
#endif

#define INETCSUM_VERSION_MAJOR 0
#define INETCSUM_VERSION_MINOR 1
#define INETCSUM_VERSION_PATCH 0
#define INETCSUM_VERSION_STRING "0.1.0"
/* One number that grows with every release: MAJOR*10000 + MINOR*100 + PATCH. */
#define INETCSUM_VERSION_NUMBER \
    (INETCSUM_VERSION_MAJOR * 10000 + INETCSUM_VERSION_MINOR * 100 + INETCSUM_VERSION_PATCH)

#if defined(_WIN32) && defined(INETCSUM_SHARED_BUILD)
#define INETCSUM_API __declspec(dllexport)
#elif defined(__GNUC__)
#define INETCSUM_API __attribute__((visibility("default")))
#else
#define INETCSUM_API
#endif

/* ---- Sums -------------------------------------------------------------------------------------- */

/* Ones'-complement sum of buf[0..len) added to the seed `sum` (any 32-bit value).  Like Linux
 * csum_partial().  An odd trailing byte is summed as if followed by a zero byte. */
INETCSUM_API uint32_t inetcsum_partial(const void *buf, size_t len, uint32_t sum);

/* The inline path (below) is always inlined: at -O2, GCC's default and distributions', GCC 12 and
 * clang 14 kept it out of line once it held the vector code (a static copy in each file, called: the
 * call the path exists to save), and a caller built with -O2 -march=native read 1.04-1.25x the best
 * other way's time at 40-575 B on the Zen 3 guest where the same caller at -O3 read 0.74-0.90
 * (`inetcsum bench sweep`, "inlined -O2", docs/perf.md). */
#if defined(__GNUC__)
#define INETCSUM_ALWAYS_INLINE_ __attribute__((always_inline))
#define INETCSUM_EXPECT_(x, v) __builtin_expect((x), (v))
#else
#define INETCSUM_ALWAYS_INLINE_
#define INETCSUM_EXPECT_(x, v) (x)
#endif

/* The scalar pieces of the inline path on x86-64 (GCC and clang): the 64 -> 32-bit fold, the seed, and
 * the two header lengths.  INETCSUM_INLINE_HEADERS is 1 where they are compiled in, else 0. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(INETCSUM_NO_INLINE)
#define INETCSUM_INLINE_HEADERS 1

/* 64 -> 32 bits with the end-around carry (add, adc $0), and a 32-bit total added to a seed
 * likewise: the ends the inline paths share.  (The asm here is written in both dialects, {AT&T|Intel},
 * for callers built with -masm=intel.) */
static inline uint32_t inetcsum_fold64_(uint64_t a)
{
    uint32_t lo = (uint32_t)a;
    __asm__("{addl %[h], %[l]|add %[l], %[h]}\n\t{adcl $0, %[l]|adc %[l], 0}" : [l] "+r"(lo) : [h] "r"((uint32_t)(a >> 32)) : "cc");
    return lo;
}

static inline uint32_t inetcsum_add_seed_(uint32_t total, uint32_t sum)
{
    const uint32_t r = total + sum;
    return r + (r < sum); /* the end-around carry */
}

/* The IPv6 and IPv4 headers' lengths (40 and 20 bytes) as one add-with-carry chain each, as the
 * library's entry special-cases them (and Linux's csum_partial the 40): straight-line scalar code,
 * 2.9 TSC ticks through the library on the Zen 5 guest against the vector path's 3.5, and a third
 * of its latency.  A caller with the vector path takes them for any length that is 20 or 40 (a
 * call into the library costs it more); any other x86-64 caller where the length is a constant
 * (the macro below): there a call cost 2.4-3.1 ticks linked statically and 3.6-4.2 through the
 * shared library's PLT, the chain 1.3-1.6 (Zen 5 guest, 2026-11-28), and two compares for every
 * length that is not a constant would be paid by callers that never sum a header. */
static inline uint32_t inetcsum_partial_40_(const void *buf, uint32_t sum)
{
    const unsigned char *p = (const unsigned char *)buf;
    uint64_t a = sum, w0, w1, w2, w3, w4;
    memcpy(&w0, p, 8);
    memcpy(&w1, p + 8, 8);
    memcpy(&w2, p + 16, 8);
    memcpy(&w3, p + 24, 8);
    memcpy(&w4, p + 32, 8);
    __asm__("{addq %[w0], %[a]|add %[a], %[w0]}\n\t{adcq %[w1], %[a]|adc %[a], %[w1]}\n\t"
            "{adcq %[w2], %[a]|adc %[a], %[w2]}\n\t{adcq %[w3], %[a]|adc %[a], %[w3]}\n\t"
            "{adcq %[w4], %[a]|adc %[a], %[w4]}\n\t{adcq $0, %[a]|adc %[a], 0}"
            : [a] "+&r"(a) /* early clobber: the chain reads inputs after writing a */
            : [w0] "rm"(w0), [w1] "rm"(w1), [w2] "rm"(w2), [w3] "rm"(w3), [w4] "rm"(w4)
            : "cc");
    return inetcsum_fold64_(a);
}

static inline uint32_t inetcsum_partial_20_(const void *buf, uint32_t sum)
{
    const unsigned char *p = (const unsigned char *)buf;
    uint64_t a = sum, w0, w1;
    uint32_t w2;
    memcpy(&w0, p, 8);
    memcpy(&w1, p + 8, 8);
    memcpy(&w2, p + 16, 4);
    __asm__("{addq %[w0], %[a]|add %[a], %[w0]}\n\t{adcq %[w1], %[a]|adc %[a], %[w1]}\n\t"
            "{adcq %[w2], %[a]|adc %[a], %[w2]}\n\t{adcq $0, %[a]|adc %[a], 0}"
            : [a] "+&r"(a) /* early clobber: the chain reads inputs after writing a */
            : [w0] "rm"(w0), [w1] "rm"(w1), [w2] "r"((uint64_t)w2)
            : "cc");
    return inetcsum_fold64_(a);
}

#else
#define INETCSUM_INLINE_HEADERS 0
#endif

/* The vector half of the inline path (issue 35): callers compiled for AVX-512BW (-march=native on
 * Zen 4 and 5, Ice Lake and later; -march=x86-64-v4) or AVX2 (-march=native on Zen 3, Haswell and
 * later; -march=x86-64-v3) sum inputs from INETCSUM_INLINE_VECTOR_MIN bytes up to (not including)
 * INETCSUM_INLINE_VECTOR_MAX in their own code, as VPP's clib_ip_csum and DPDK's rte_raw_cksum are
 * summed.  A call into the library costs its entry (size class, kernel pointer), the kernel's
 * constants and a vzeroupper every time; inlined, none of that, and the compiler interleaves the
 * sum with the caller's code.  The IPv4 and IPv6 header lengths (20 and 40 B) take straight-line
 * add-with-carry code instead, as in the library's entry.  Measured on the Zen 5 guest
 * (docs/perf.md, `inetcsum bench sweep`, "inetcsum inlined", three runs), with AVX-512: at 16-63 B
 * 0.87 of the best other way's time, 64-255 B 1.02 (VPP's sum inlined is as fast), 256-575 B
 * 0.90, 576-1023 B 0.87-0.88; 20 and 40 B 1.8-2.0 TSC ticks (`bench sizes`; Linux's algorithm 4.7
 * and 3.5, the library's call 3.0 and 2.9).  Its AVX2 build, there in a harness against the AVX2
 * kernel through the library (medians of two runs): 63 B 4.3 ticks against 4.8, 128 B 5.1 against
 * 6.1, 576 B 10.9 against 14.2, 1,023 B 17.4 against 20.4; on the Zen 3 guest (AVX2 only, `bench
 * sweep`) 0.85-0.91, 0.80-0.81, 0.73-0.74 and 0.79 of the best other way's time at 64-127, 128-255,
 * 256-575 and 576-1023 B built -O3, 0.84-0.88, 0.86, 0.78-0.80 and 0.81-0.82 built -O2 (GCC 12),
 * where the library's call read 1.04-1.25.
 * From 1 KiB the library's AVX-512 kernels lead (eight chains, aligned loads); below 16 B the scalar
 * code does.  On a CPU with AVX2 alone the inline loop stays ahead of the call beyond 1 KiB too
 * (0.75-0.90 of its time at 1-2.5 KiB on the Zen 3 guest), but a caller built for AVX2 may run
 * where the library has AVX-512 kernels, so AVX2 callers keep the same bound (raise
 * INETCSUM_INLINE_VECTOR_MAX where the code only runs on AVX2-only CPUs).  Costs: 0.5-0.9 KB of
 * code at each call site (1.3-1.5 KB at -O3 and with clang); in a caller that has this path, a call
 * the path does not take (from 1 KiB) pays a vzeroupper and its branches, 0.3-1.3 ticks (0.5-4 on
 * the Zen 3 guest, where GCC 12 also reloads the path's constants after the call); and a sum's
 * latency when the next sum's address depends on it (no real caller chains so: seeds chain at the
 * last add) is 21-24 ticks at 16-63 B against the library's scalar code's 8-10
 * (INETCSUM_INLINE_VECTOR_MIN=64 sends those sizes to it).
 * This path does not look at INETCSUM_IMPL or inetcsum_set_impl(): a caller who wants every sum of
 * 16 B or more to go through the chosen kernel defines INETCSUM_NO_INLINE_VECTOR (or
 * INETCSUM_NO_INLINE) before including.
 * INETCSUM_INLINE_VECTOR is 1 where the path is compiled in, else 0. */
#if defined(__x86_64__) && (defined(__AVX512BW__) || defined(__AVX2__)) && !defined(INETCSUM_NO_INLINE_VECTOR) && \
    !defined(INETCSUM_NO_INLINE)
#define INETCSUM_INLINE_VECTOR 1
#include <immintrin.h>
#ifndef INETCSUM_INLINE_VECTOR_MIN
#define INETCSUM_INLINE_VECTOR_MIN 16
#endif
#ifndef INETCSUM_INLINE_VECTOR_MAX
#define INETCSUM_INLINE_VECTOR_MAX 1024
#endif
#if INETCSUM_INLINE_VECTOR_MIN < 16
#error "INETCSUM_INLINE_VECTOR_MIN: at least 16 bytes"
#endif
#if INETCSUM_INLINE_VECTOR_MAX <= INETCSUM_INLINE_VECTOR_MIN || INETCSUM_INLINE_VECTOR_MAX > 65536
#error "INETCSUM_INLINE_VECTOR_MAX: above INETCSUM_INLINE_VECTOR_MIN and at most 65536"
#endif

#if defined(__AVX512BW__)
/* One 64-byte vector into a chain.  Each 16-bit word w is biased into signed range (w ^ 0x8000
 * reads as w - 32768) and adjacent pairs are added into a 32-bit lane: one vpdpwssd against ones
 * with AVX-512 VNNI, vpmaddwd then vpaddd without. */
static inline __attribute__((always_inline)) __m512i inetcsum_vector_step_(__m512i acc, __m512i v, __m512i bias, __m512i ones)
{
#if defined(__AVX512VNNI__)
    return _mm512_dpwssd_epi32(acc, _mm512_xor_si512(v, bias), ones);
#else
    return _mm512_add_epi32(acc, _mm512_madd_epi16(_mm512_xor_si512(v, bias), ones));
#endif
}

/* (g++ 12 at -O2 -Wall reports GCC's own _mm512_extracti64x4_epi64 and _mm512_unpack{lo,hi}_epi32
 * as using an uninitialized value, their _mm*_undefined_*(): maybe where the length varies, for
 * certain where it is a constant.
 * A false report (GCC bug 105593), silenced here so that C++ callers' -Werror holds.) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
/* 1 to 64 bytes: one byte-masked load (a 32-byte one to 32 B where AVX-512VL allows) whose 32-bit
 * words are widened into 64-bit lanes and added, as VPP's clib_ip_csum does: no constants to
 * make (the path below makes two 64-byte ones a call) and a shorter reduction.  Summing 32-bit
 * words is summing their 16-bit halves, since 2^16 = 1 in ones'-complement arithmetic; the 64-bit
 * total (at most 16 words under 2^32, plus the seed) is folded to 32 bits with the end-around
 * carry.  Zen 4 guest (`bench sweep`, the "inlined" columns, starts 0, 1, 34, 54, 31 trials,
 * 2026-12-05): 16-31 B 5.6-5.8 -> 4.1 TSC ticks, 32-63 B 5.7 -> 4.85, 64 B 5.85 -> 4.9, where VPP's
 * algorithm, inlined alike, takes 5.1 and 5.6 at 64 B; in a harness of its own a 32-byte vector for
 * 33-64 B in two halves took 4.9 where one 64-byte vector took 4.7. */
static inline __attribute__((always_inline)) uint32_t inetcsum_partial_one_vector_(const void *buf, size_t len, uint32_t sum)
{
    __m128i x;
#if defined(__AVX512VL__)
    if (len <= 32) {
        const __m256i zero = _mm256_setzero_si256();
        const __m256i v = _mm256_maskz_loadu_epi8((__mmask32)(~(uint32_t)0 >> (32 - len)), buf);
        const __m256i y = _mm256_add_epi64(_mm256_unpacklo_epi32(v, zero), _mm256_unpackhi_epi32(v, zero));
        x = _mm_add_epi64(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));
    } else
#endif
    {
        const __m512i zero = _mm512_setzero_si512();
        const __m512i v = _mm512_maskz_loadu_epi8((__mmask64)(~(uint64_t)0 >> (64 - len)), buf);
        const __m512i w = _mm512_add_epi64(_mm512_unpacklo_epi32(v, zero), _mm512_unpackhi_epi32(v, zero));
        const __m256i y = _mm256_add_epi64(_mm512_castsi512_si256(w), _mm512_extracti64x4_epi64(w, 1));
        x = _mm_add_epi64(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));
    }
    /* (Each half under 2^36 with the seed: their sum has no carry out of 64 bits.) */
    return inetcsum_fold64_((uint64_t)_mm_cvtsi128_si64(x) + (uint64_t)_mm_extract_epi64(x, 1) + sum);
}

/* 65 to 65,535 bytes: two chains over 128 bytes a round (one chain was latency-bound from 256 B),
 * then a whole vector, then the last 1-64 bytes by one byte-masked load, which reads nothing
 * outside [buf, buf+len) and fills with zeros, so an odd last byte pairs with a zero as RFC 1071
 * pads it.  Loads are from the start as it is: a split line costs less than aligning at these
 * sizes.  The constants are made on each call (the empty asm): left visible, GCC 12 kept one in a
 * register across the caller's loop and reloaded it after every call the loop made elsewhere, or
 * spilled it, 0.5 ticks a sum.  Exact: each vector loaded moves the biased total by at most 2^20
 * either way and at most 1,024 are loaded, so it stays in int32; the lanes and their sum wrap mod
 * 2^32, and adding back the bias (2^20 for every vector, the masked one included) gives the true
 * word sum, under 2^31. */
/* (The tests also build this path through SIMDe, to run it on CPUs without AVX-512, where a 64-byte
 * vector has no register for the empty asm to name: they define this to nothing.) */
#ifndef INETCSUM_OPAQUE_512_
#define INETCSUM_OPAQUE_512_(x, y) __asm__("" : "+v"(x), "+v"(y))
#endif
static inline __attribute__((always_inline)) uint32_t inetcsum_partial_vector_(const void *buf, size_t len, uint32_t sum)
{
    if (len <= 64)
        return inetcsum_partial_one_vector_(buf, len, sum);
    const unsigned char *p = (const unsigned char *)buf;
    __m512i bias = _mm512_set1_epi16((short)0x8000), ones = _mm512_set1_epi16(1);
    INETCSUM_OPAQUE_512_(bias, ones);
    __m512i a = _mm512_setzero_si512(), b = _mm512_setzero_si512();
    const uint32_t vectors = (uint32_t)((len + 63) >> 6);
/* One round of the two chains, and one vector into the second: macros, not functions, so that the
 * code GCC lays out is the same as written out at each use (a helper function changed the layout). */
#define INETCSUM_VECTOR_ROUND_()                                                                 \
    do {                                                                                         \
        a = inetcsum_vector_step_(a, _mm512_loadu_si512((const void *)p), bias, ones);           \
        b = inetcsum_vector_step_(b, _mm512_loadu_si512((const void *)(p + 64)), bias, ones);    \
        p += 128;                                                                                \
        len -= 128;                                                                              \
    } while (0)
#define INETCSUM_VECTOR_ONE_()                                                                   \
    do {                                                                                         \
        b = inetcsum_vector_step_(b, _mm512_loadu_si512((const void *)p), bias, ones);           \
        p += 64;                                                                                 \
        len -= 64;                                                                               \
    } while (0)
    if (len > 128) {
        if (len <= 256) /* one round, outside the loop (its exits are taken jumps) */
            INETCSUM_VECTOR_ROUND_();
        else
            do
                INETCSUM_VECTOR_ROUND_();
            while (len > 128);
        if (len > 64)
            INETCSUM_VECTOR_ONE_();
    } else /* 65-128 B without the loop's jumps (Zen 5: 1.02 -> 1.00 of VPP's time, worst 1.14 -> 1.03) */
        INETCSUM_VECTOR_ONE_();
#undef INETCSUM_VECTOR_ROUND_
#undef INETCSUM_VECTOR_ONE_
    a = inetcsum_vector_step_(a, _mm512_maskz_loadu_epi8((__mmask64)(~(uint64_t)0 >> (64 - len)), p), bias, ones);
    a = _mm512_add_epi32(a, b);
    const __m256i y = _mm256_add_epi32(_mm512_castsi512_si256(a), _mm512_extracti64x4_epi64(a, 1));
    __m128i x = _mm_add_epi32(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));
    x = _mm_add_epi32(x, _mm_unpackhi_epi64(x, x));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 1));
    const uint32_t total = (uint32_t)_mm_cvtsi128_si32(x) + (vectors << 20);
    return inetcsum_add_seed_(total, sum);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#else
/* The AVX2 ends' mask: 32 zero bytes, then 32 of 0xFF; a load at offset k clears the first 32 - k
 * bytes of a 32-byte window, or of a 16-byte one the first 32 - k (k from 16). */
static inline __attribute__((always_inline)) const unsigned char *inetcsum_keep_last_(void)
{
    static const unsigned char keep_last[64] = {
        0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
        0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    return keep_last;
}

/* AVX2 (no byte masks): 32 to 65,535 bytes.  The same sum on 32-byte vectors (vpmaddwd, vpaddd),
 * two chains over 128 bytes a round, then 64 bytes, then a whole vector (32-63 B: that vector
 * alone); the bytes left before the last even byte
 * come from one load that ends there, its earlier bytes (summed already) cleared by AND with a
 * mask read from keep_last at their count (an even distance from the start, so the pairing holds),
 * and an odd last byte is added as the low byte of its word.  Nothing outside [buf, buf+len) is
 * read.  Exact as above: 2^19 of bias a vector, at most 2,048 of them. */
static inline __attribute__((always_inline)) uint32_t inetcsum_partial_vector_(const void *buf, size_t len, uint32_t sum)
{
    const unsigned char *const keep_last = inetcsum_keep_last_();
    const unsigned char *p = (const unsigned char *)buf;
    const unsigned char *const even_end = p + (len & ~(size_t)1);
    const uint32_t odd_byte = (len & 1) ? p[len - 1] : 0;
    __m256i bias = _mm256_set1_epi16((short)0x8000), ones = _mm256_set1_epi16(1);
    __asm__("" : "+x"(bias), "+x"(ones));
    __m256i a = _mm256_setzero_si256(), b = _mm256_setzero_si256();
    const uint32_t vectors = (uint32_t)(len >> 5) + 1;
    /* The rounds' four loads per 128 B: at -O2 (a loop kept, a taken jump back each round) that
     * halves the jumps of 64 B rounds, and at -O3 (peeled) it reads as before; 32-63 B take their
     * one vector first, apart from the rest (docs/perf.md: GCC 12 -O2 callers 5-15% faster at
     * 32-1023 B on Zen 3, -O3 within 3%). */
#define INETCSUM_AVX2_ROUND_(at)                                                                            \
    do {                                                                                                    \
        a = _mm256_add_epi32(a, _mm256_madd_epi16(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(p + (at))), bias), ones)); \
        b = _mm256_add_epi32(b, _mm256_madd_epi16(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(p + (at) + 32)), bias), ones)); \
    } while (0)
    if (len < 64) {
        a = _mm256_madd_epi16(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)p), bias), ones);
        p += 32;
    } else {
        for (; len >= 128; p += 128, len -= 128) {
            INETCSUM_AVX2_ROUND_(0);
            INETCSUM_AVX2_ROUND_(64);
        }
        if (len >= 64) {
            INETCSUM_AVX2_ROUND_(0);
            p += 64;
            len -= 64;
        }
        if (len >= 32) {
            b = _mm256_add_epi32(b, _mm256_madd_epi16(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)p), bias), ones));
            p += 32;
        }
    }
#undef INETCSUM_AVX2_ROUND_
    const __m256i last = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(const void *)(even_end - 32)),
                                          _mm256_loadu_si256((const __m256i *)(const void *)(keep_last + (even_end - p))));
    a = _mm256_add_epi32(a, _mm256_madd_epi16(_mm256_xor_si256(last, bias), ones));
    a = _mm256_add_epi32(a, b);
    __m128i x = _mm_add_epi32(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
    x = _mm_add_epi32(x, _mm_unpackhi_epi64(x, x));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 1));
    const uint32_t total = (uint32_t)_mm_cvtsi128_si32(x) + (vectors << 19) + odd_byte;
    return inetcsum_add_seed_(total, sum);
}

/* AVX2, 16-31 bytes: the same sum on two 16-byte halves, the first from the start, the second
 * ending at the last even byte with the bytes the first summed cleared (the mask read at that
 * byte's offset: as many zeros first as the halves share).  Tested apart from the 32-byte path
 * (inetcsum_partial_inline sends it only these lengths): the call it replaces, with the vzeroupper
 * a caller using vectors pays before one, took 1.5-1.7x its time on the Zen 3 guest (docs/perf.md).
 * Exact: 2^18 of bias a half. */
static inline __attribute__((always_inline)) uint32_t inetcsum_partial_halves_(const void *buf, size_t len, uint32_t sum)
{
    const unsigned char *p = (const unsigned char *)buf;
    const size_t even = len & ~(size_t)1;
    const uint32_t odd_byte = (len & 1) ? p[len - 1] : 0;
    /* The constants from all ones, by two shifts: behind the empty asm the 32-byte path uses, GCC 12
     * built each from a 64-bit immediate (six instructions; 10-16% of this path's time on Zen 3),
     * and visible it would keep them in registers across the caller's loop (above).  The asm's
     * operands are one register thrice, the same in AT&T and Intel syntax. */
    __m128i all;
    __asm__("vpcmpeqd %0, %0, %0" : "=x"(all));
    const __m128i bias = _mm_slli_epi16(all, 15), ones = _mm_srli_epi16(all, 15);
    const __m128i tail = _mm_and_si128(_mm_loadu_si128((const __m128i *)(const void *)(p + even - 16)),
                                       _mm_loadu_si128((const __m128i *)(const void *)(inetcsum_keep_last_() + even)));
    __m128i x = _mm_add_epi32(_mm_madd_epi16(_mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)p), bias), ones),
                              _mm_madd_epi16(_mm_xor_si128(tail, bias), ones));
    x = _mm_add_epi32(x, _mm_unpackhi_epi64(x, x));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 1));
    return inetcsum_add_seed_((uint32_t)_mm_cvtsi128_si32(x) + (2u << 18) + odd_byte, sum);
}
#endif
#else
#define INETCSUM_INLINE_VECTOR 0
#endif

/* inetcsum_partial with short inputs summed inline, in the caller: under 16 bytes in scalar code
 * (for those a call costs more than the sum: 8 bytes take half the time of an out-of-line call on
 * Zen 3, and compilers inline DPDK's rte_raw_cksum at every call site), and with AVX-512BW or AVX2
 * in the caller's flags from 16 B to under 1 KiB in vector code (above; 16-31 B with AVX2 alone as
 * two 16-byte halves); on
 * x86-64 a constant 20 or 40 in straight-line scalar code (the header lengths, above).  Other
 * inputs go to the exported function.  inetcsum_partial(...) below is a macro for this;
 * (inetcsum_partial)(...) or a function pointer reaches the exported function.  Define
 * INETCSUM_NO_INLINE before including to turn all of it off. */
static inline INETCSUM_ALWAYS_INLINE_ uint32_t inetcsum_partial_inline(const void *buf, size_t len, uint32_t sum)
{
    /* (The branch hints keep the layout GCC 12 chose before the 16-31 B path existed, the vector
     * path falling through: left to itself it moved that path behind a taken jump, 10-20% slower
     * at 32-95 B on the Zen 3 guest.) */
    if (INETCSUM_EXPECT_(len < 16, 0)) {
        const unsigned char *p = (const unsigned char *)buf;
        uint64_t s = sum; /* 32-bit words into 64 bits: no carry is lost below 2^32 words */
        uint32_t w;
        uint16_t h;
        if (len & 8) {
            memcpy(&w, p, 4);
            s += w;
            memcpy(&w, p + 4, 4);
            s += w;
            p += 8;
        }
        if (len & 4) {
            memcpy(&w, p, 4);
            s += w;
            p += 4;
        }
        if (len & 2) {
            memcpy(&h, p, 2);
            s += h;
            p += 2;
        }
        if (len & 1) /* a lone last byte is the first byte of a word whose second byte is 0 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            s += (uint32_t)*p << 8;
#else
            s += *p;
#endif
        s = (s & 0xFFFFFFFFu) + (s >> 32); /* < 2^32 + 7 */
        return (uint32_t)s + (uint32_t)(s >> 32);
    }
#if INETCSUM_INLINE_VECTOR
    if (len == 40)
        return inetcsum_partial_40_(buf, sum);
    if (len == 20)
        return inetcsum_partial_20_(buf, sum);
#if defined(__AVX512BW__)
    /* One vector's worth (16-64 B but the two header lengths), after those two compares and out of
     * line: of the orders tried on the Zen 4 guest (`bench sweep`, its "inlined" columns), the one
     * that kept 20 and 40 B at 2.8 ticks and 65-255 B no slower (this test first, falling through,
     * cost 65-255 B 8%; out of line but first, the header lengths 25%). */
    if (INETCSUM_EXPECT_(len <= 64 && len >= INETCSUM_INLINE_VECTOR_MIN && len < INETCSUM_INLINE_VECTOR_MAX, 0))
        return inetcsum_partial_one_vector_(buf, len, sum);
#endif
#if defined(__AVX512BW__) || INETCSUM_INLINE_VECTOR_MIN >= 32
    /* One compare for both bounds. */
    if (len - INETCSUM_INLINE_VECTOR_MIN < (size_t)(INETCSUM_INLINE_VECTOR_MAX - INETCSUM_INLINE_VECTOR_MIN))
        return inetcsum_partial_vector_(buf, len, sum);
#else
    /* AVX2: whole 32-byte vectors from 32 B, two 16-byte halves below; the lengths from 32 B
     * tested first, so that the halves cost them no compare. */
#if INETCSUM_INLINE_VECTOR_MAX > 32
    if (INETCSUM_EXPECT_(len - 32 < (size_t)(INETCSUM_INLINE_VECTOR_MAX - 32), 1))
        return inetcsum_partial_vector_(buf, len, sum);
#define INETCSUM_HALVES_END_ 32
#else
#define INETCSUM_HALVES_END_ INETCSUM_INLINE_VECTOR_MAX
#endif
    if (len - INETCSUM_INLINE_VECTOR_MIN < (size_t)(INETCSUM_HALVES_END_ - INETCSUM_INLINE_VECTOR_MIN))
        return inetcsum_partial_halves_(buf, len, sum);
#undef INETCSUM_HALVES_END_
#endif
#endif
    return inetcsum_partial(buf, len, sum);
}
#if !defined(INETCSUM_NO_INLINE)
#if INETCSUM_INLINE_HEADERS && !INETCSUM_INLINE_VECTOR
/* A constant 40 or 20 takes the header lengths' chain; any other length is as before (len is
 * evaluated once: only where it is a constant is it compared). */
#define inetcsum_partial(buf, len, sum)                                                             \
    (__builtin_constant_p(len) && (len) == 40   ? inetcsum_partial_40_(buf, sum)                   \
     : __builtin_constant_p(len) && (len) == 20 ? inetcsum_partial_20_(buf, sum)                   \
                                                : inetcsum_partial_inline(buf, len, sum))
#else
#define inetcsum_partial(buf, len, sum) inetcsum_partial_inline(buf, len, sum)
#endif
#endif

/* Copies src[0..len) to dst (the regions must not overlap) and returns the same value
 * inetcsum_partial(src, len, sum) would fold to, in one pass over the data. */
INETCSUM_API uint32_t inetcsum_partial_copy(void *dst, const void *src, size_t len, uint32_t sum);

/* Folds a partial sum to 16 bits with end-around carry.  NOT complemented (unlike Linux csum_fold):
 * inetcsum_fold(0) == 0, any nonzero partial folds to 1..0xFFFF. */
INETCSUM_API uint16_t inetcsum_fold(uint32_t sum);

/* The checksum field value: the complement of the folded sum (Linux csum_fold()).  For a header
 * whose checksum field was zero while summing, store this value into the field. */
static inline uint16_t inetcsum_final(uint32_t sum)
{
    return (uint16_t)~inetcsum_fold(sum);
}

/* inetcsum_final(inetcsum_partial(buf, len, 0)): the checksum of one contiguous buffer. */
INETCSUM_API uint16_t inetcsum_checksum(const void *buf, size_t len);

/* Ones'-complement addition and subtraction of partial sums (Linux csum_add / csum_sub). */
INETCSUM_API uint32_t inetcsum_add(uint32_t a, uint32_t b);
INETCSUM_API uint32_t inetcsum_sub(uint32_t a, uint32_t b);

/* Adds the partial sum of a block that starts `offset` bytes into the data being summed (Linux
 * csum_block_add).  A block at an odd offset pairs its bytes the other way round, so its sum is
 * byte-swapped before it is added (RFC 1071 section 2(B)).  For example, with any split point k:
 *   inetcsum_block_add(inetcsum_partial(p, k, seed), inetcsum_partial(p + k, n - k, 0), k)
 * folds to the same value as inetcsum_partial(p, n, seed). */
INETCSUM_API uint32_t inetcsum_block_add(uint32_t sum, uint32_t block_sum, size_t offset);
/* Removes such a block again (Linux csum_block_sub). */
INETCSUM_API uint32_t inetcsum_block_sub(uint32_t sum, uint32_t block_sum, size_t offset);

/* Sum over a scatter-gather list: the segments are summed as one contiguous byte stream, so any
 * segment may have any length (odd, zero) and any address.  iov may be NULL when iovcnt is 0.
 * One kernel call for the whole list (the kernel its total length would take), which keeps its
 * constants and ends once: cheaper than a call a segment (17 segments of 512 B: 140 TSC ticks
 * against 221 on Zen 5). */
INETCSUM_API uint32_t inetcsum_partial_iov(const struct iovec *iov, size_t iovcnt, uint32_t sum);

/* ---- Incremental update (RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m')) ------------------------------- */
/* `check` is the checksum field as it lies in the packet, and `old_field`/`new_field` the field's
 * old and new contents as they lie in the packet.  When `check` was right for the old data, the
 * result equals a full recomputation over the new data (RFC 1141's form could yield 0xFFFF where
 * recomputation gives 0x0000; eqn. 3 does not), unless the new data other than the checksum is all
 * zero, which no real header is: eqn. 3 then gives 0x0000 for recomputation's 0xFFFF (its sum
 * cannot be +0, and nothing else about the data is known).  Protocol rules such as UDP's "0 means
 * no checksum" are the caller's.  16-, 32- and 128-bit fields must start an even number of bytes after the start
 * of the checksummed data (true of every header field the Internet checksum covers); use
 * inetcsum_update_bytes otherwise. */
INETCSUM_API uint16_t inetcsum_update16(uint16_t check, uint16_t old_field, uint16_t new_field);
INETCSUM_API uint16_t inetcsum_update32(uint16_t check, uint32_t old_field, uint32_t new_field);
/* 16-byte fields (IPv6 addresses), given by pointer; any alignment. */
INETCSUM_API uint16_t inetcsum_update128(uint16_t check, const void *old_field, const void *new_field);
/* Any changed byte range: `len` bytes at `offset` bytes from the start of the checksummed data
 * (offset may be odd) changed from old_bytes to new_bytes. */
INETCSUM_API uint16_t inetcsum_update_bytes(uint16_t check, const void *old_bytes,
                                            const void *new_bytes, size_t len, size_t offset);

/* ---- Kernels ----------------------------------------------------------------------------------- */
/* Kernel names: "avx512vnni", "avx512vnni_ymm", "avx512", "avx512_ymm" (AVX-512 on 512-bit or
 * 256-bit vectors), "avx2", "avxvnni" (AVX-VNNI on 256-bit vectors), "x86_64" (scalar, independent
 * carry chains), "neon", "generic" (portable C).  Which exist depends on the build's architecture. */

/* The kernel in use, e.g. "avx2": the one INETCSUM_IMPL or inetcsum_set_impl chose, or else the
 * best one for this CPU.  Never NULL.  Unless a kernel was chosen by name, the library may sum some
 * sizes with another kernel, where measurements on this CPU model showed it faster (a tuning row);
 * inetcsum_impl_name_at tells which. */
INETCSUM_API const char *inetcsum_impl_name(void);

/* The kernel that sums `len` bytes now: a kernel name, or "inline" for the short inputs summed in
 * scalar code without a kernel.  Never NULL. */
INETCSUM_API const char *inetcsum_impl_name_at(size_t len);

/* Selects a kernel by name; NULL selects the best one for this CPU (ignoring INETCSUM_IMPL).
 * Returns 0, or -1 (and changes nothing) if the name is unknown or this CPU cannot run it. */
INETCSUM_API int inetcsum_set_impl(const char *name);

/* Writes the names of the kernels this CPU can run, best first, into names[0..max) and returns
 * how many there are (which may exceed max; names may be NULL when max is 0). */
INETCSUM_API size_t inetcsum_impl_list(const char **names, size_t max);

/* The same for every kernel compiled into this build, whether or not this CPU can run it. */
INETCSUM_API size_t inetcsum_impl_list_built(const char **names, size_t max);

/* ---- Version ----------------------------------------------------------------------------------- */
/* The library's version string at run time, e.g. "0.1.0" (compare with INETCSUM_VERSION_STRING). */
INETCSUM_API const char *inetcsum_version(void);

#ifdef __cplusplus
}
#endif

#endif /* INETCSUM_H */
