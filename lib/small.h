/* Internal: the scalar sum and copy+sum for short inputs, inlined into the public entry points and
 * used by kernels for their last bytes. */
#ifndef ICS_SMALL_H
#define ICS_SMALL_H

#include "onescomp.h"
#if defined(__x86_64__)
#include "x86/adc.h"
#endif

/* Below this many bytes inetcsum_partial sums inline in scalar code: the vector kernels' call,
 * setup and horizontal reduction cost more than they save there.  Measured with inetcsum bench
 * sizes, libraries built with -DICS_SMALL_MAX=128 and 256 side by side: on Zen 4 (EPYC 9004) a
 * 128-byte sum takes 7.7 TSC ticks inline against 12.0 through the size-class jump into the
 * fastest kernel for that size (DPDK's inlined loop: 7.4); at 256 bytes a vector kernel is ahead.
 * On Zen 3 (an earlier run of the older benchmark) inline and the AVX2 kernel were even at 256. */
#ifndef ICS_SMALL_MAX
#if defined(__x86_64__)
#define ICS_SMALL_MAX 256
#else
#define ICS_SMALL_MAX 128 /* aarch64: not measured again; NEON may be ahead sooner */
#endif
#endif

/* Below this the sum is inline on every CPU; from here to ICS_SMALL_MAX a tuning row may send it
 * to a kernel instead (lib/tuning.c, inline_below): the plan is looked at only from here up.
 * 64 bytes included: the public entry sums exactly 64 in straight-line code, as it does 20 and 40,
 * where a kernel took 1.6x its time on the Zen 5 guest (issue 35); the entry's shape assumes 65
 * (lib/dispatch.c). */
#define ICS_SMALL_MIN 65

/* The same for inetcsum_partial_copy, whose inline code copies 8 bytes at a time: on Zen 4 (inetcsum
 * bench copy) it takes 7.7 ticks at 32 bytes, the best of all ways, but 10.8-11.2 at 64 against
 * 9.9 through the 512-bit kernel, and 19.5-19.9 at 128 against 12.7 (memcpy then sum: 14.6). */
#ifndef ICS_COPY_SMALL_MAX
#if defined(__x86_64__)
#define ICS_COPY_SMALL_MAX 64
#else
#define ICS_COPY_SMALL_MAX 128
#endif
#endif

#if defined(__x86_64__)
/* The last len (1..63) bytes from p to end, at least 8 bytes after the start (so that one 8-byte load
 * may end at end), into the chains a and b: whole 32, 16 and 8 bytes, then the last len % 8 from one
 * load ending at the buffer's end, shifted so only the new bytes remain (they start a multiple of 8
 * bytes in: their pairing is unchanged).  The 64-bit total, reduced to 32. */
static inline __attribute__((always_inline)) uint32_t ics_small_rest(const uint8_t *p, const uint8_t *end, size_t len,
                                                                     uint64_t a, uint64_t b)
{
    if (len & 32) {
        ICS_ADC4(a, p);
        p += 32;
    }
    if (len & 16) {
        ICS_ADC2(b, ics_load64(p), ics_load64(p + 8));
        p += 16;
    }
    if (len & 8)
        ICS_ADC1(a, ics_load64(p));
    if (len & 7)
        ICS_ADC1(b, ics_last_bytes(ics_load64(end - 8), len & 7));
    ICS_ADC1(a, b);
    return ics_reduce64_x86(a);
}
#endif

/* The scalar sum for short buffers, inlined into inetcsum_partial so that headers and other small
 * inputs pay neither an indirect call nor a SIMD reduction.  The 20- and 40-byte cases (IPv4 and
 * IPv6 headers) unroll to straight-line code where len is a constant.
 * x86-64: 64-bit add-with-carry in two chains of up to four words (add, adc x3, adc $0), so 8
 * bytes cost about one instruction with its load folded in.  Branches are kept few because taken
 * branches, not adds, bound it at these sizes.  The last len % 8 bytes (when 8 or more precede
 * them) come from one 8-byte load ending at the buffer's end, shifted so only the new bytes
 * remain: they start a multiple of 8 bytes in, so their pairing is unchanged.
 * Elsewhere: 32-bit loads into 64-bit accumulators, exact for len < 16 GiB.
 * Used only below ICS_SMALL_MAX. */
static inline __attribute__((always_inline)) uint32_t ics_partial_small(const void *buf, size_t len,
                                                                        uint32_t sum)
{
    const uint8_t *p = (const uint8_t *)buf;
#if defined(__x86_64__)
    if (__builtin_constant_p(len) && len == 40) { /* one chain: see ICS_ADC5 */
        uint64_t a = sum;
        ICS_ADC5(a, p);
        return ics_reduce64_x86(a);
    }
    if (__builtin_constant_p(len) && len == 20) {
        uint64_t a = sum;
        ICS_ADC_20(a, p);
        return ics_reduce64_x86(a);
    }
    if (len < 8)
        return ics_reduce64_x86((uint64_t)sum + ics_tail7(p, len));
    const uint8_t *end = p + len;
    uint64_t a = sum, b = 0;
    for (; len >= 64; p += 64, len -= 64) {
        ICS_ADC4(a, p);
        ICS_ADC4(b, p + 32);
    }
    /* Whole 64-byte blocks (64 is the minimum frame) skip the four tests below: each is a taken
     * jump when its bit is clear, and Zen 3 retires about one taken branch per cycle. */
    if (len == 0) {
        ICS_ADC1(a, b);
        return ics_reduce64_x86(a);
    }
    return ics_small_rest(p, end, len, a, b);
#else
    uint64_t a = sum, b = 0;
    while (len >= 16) {
        a += (uint64_t)ics_load32(p) + ics_load32(p + 4);
        b += (uint64_t)ics_load32(p + 8) + ics_load32(p + 12);
        p += 16;
        len -= 16;
    }
    if (len & 8) {
        a += ics_load32(p);
        b += ics_load32(p + 4);
        p += 8;
    }
    if (len & 7)
        a += ics_tail7(p, len & 7);
    return ics_reduce64(ics_add64(a, b));
#endif
}

/* ics_partial_small for len < 64, without the loop: the public entry's path below the kernels'
 * sizes.  Sharing the tests after the loop, 8-63 B reached them through two taken jumps (a `ja`
 * past the short case and a `jmp` into the shared code). */
static inline __attribute__((always_inline)) uint32_t ics_partial_under64(const void *buf, size_t len, uint32_t sum)
{
#if defined(__x86_64__)
    const uint8_t *p = (const uint8_t *)buf;
    if (len < 8)
        return ics_reduce64_x86((uint64_t)sum + ics_tail7(p, len));
    return ics_small_rest(p, p + len, len, sum, 0);
#else
    return ics_partial_small(buf, len, sum);
#endif
}

/* Adds a 64-bit word of data into a 64-bit accumulator: add-with-carry on x86-64; elsewhere its two
 * 32-bit halves (exact below 2^31 words). */
#if defined(__x86_64__)
#define ICS_ADD_WORD64(acc, x) ICS_ADC1(acc, x)
#else
#define ICS_ADD_WORD64(acc, x) ((acc) += (uint64_t)(uint32_t)(x) + ((uint64_t)(x) >> 32))
#endif

/* Copy and sum for short buffers in one pass over registers: each 8-byte word is loaded once,
 * stored, and added.  memcpy then a sum costs a call and reads every byte twice, which at these
 * sizes is most of the work.  The last len % 8 bytes (when 8 or more precede them) are copied as
 * one 8-byte word ending at the buffer's end, overlapping bytes already written with the same
 * values, and summed shifted as in ics_partial_small. */
static inline __attribute__((always_inline)) uint32_t ics_copy_small(void *dst, const void *src, size_t len,
                                                                     uint32_t sum)
{
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
    if (len < 8) {
        if (len & 4)
            memcpy(d, s, 4), d += 4, s += 4;
        if (len & 2)
            memcpy(d, s, 2), d += 2, s += 2;
        if (len & 1)
            *d = *s;
        return ics_reduce64((uint64_t)sum + ics_tail7((const uint8_t *)src, len));
    }
    const uint64_t last = ics_load64(s + len - 8);
    uint8_t *const dlast = d + len - 8;
    uint64_t a = sum, b = 0;
    for (; len >= 16; len -= 16, s += 16, d += 16) {
        uint64_t x = ics_load64(s), y = ics_load64(s + 8);
        ics_store64(d, x);
        ics_store64(d + 8, y);
        ICS_ADD_WORD64(a, x);
        ICS_ADD_WORD64(b, y);
    }
    if (len & 8) {
        uint64_t x = ics_load64(s);
        ics_store64(d, x);
        ICS_ADD_WORD64(a, x);
    }
    if (len & 7) {
        ics_store64(dlast, last);
        ICS_ADD_WORD64(b, ics_last_bytes(last, len & 7));
    }
    return ics_reduce64(ics_add64(a, b));
}

#endif /* ICS_SMALL_H */
