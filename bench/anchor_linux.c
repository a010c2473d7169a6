/* An anchor for the small sizes (issue 27): Linux's x86-64 csum_partial algorithm as of v6.8,
 * written for this benchmark from its description, not from its code: general-purpose registers
 * only, one chain of 64-bit add-with-carry; a 64-byte loop of eight of them, then one step each
 * for 32, 16 and 8 bytes that remain, the last 1-7 bytes from one 8-byte load masked by shifts; a
 * straight-line case for exactly 40 bytes (the IPv6 header); the 64-bit sum folded to 32 bits by
 * adding its rotation.  No vector state, nothing to reduce: what a plain loop costs at 40-576 B,
 * where it beat the library's dispatched sum on three CPU generations.  Called out of line, as
 * csum_partial is called (DPDK's __rte_raw_cksum, a header function, is inlined as its users get it).
 *
 * As in the kernel, the masked tail loads 8 bytes at the last 1-7, reading up to 7 bytes past the
 * buffer (the kernel's load_unaligned_zeropad copes with a page end there; the benchmark's buffers
 * have 128 bytes of slack).  Only the benchmark calls it. */
#include "anchors.h"
#include "timing.h"

#if defined(__x86_64__)
#include <string.h>

#define ADC8(s, p, off) "adcq " #off "(%[p]), %[s]\n\t"

__attribute__((no_sanitize_address)) static inline uint64_t tail_word(const uint8_t *p, size_t n)
{
    uint64_t w;
    memcpy(&w, p, 8);
    const unsigned shift = (unsigned)(8 - n) * 8; /* keep the n bytes at the low addresses */
    return (w << shift) >> shift;
}

/* Out of line, as the kernel's callers reach csum_partial (an exported function): inlined into the
 * timing loop it would be timed as no caller of Linux's ever runs it. */
static TIMED_ALIGN uint32_t linux_partial(const void *buf, size_t len, uint32_t seed)
{
    const uint8_t *p = buf;
    uint64_t s = seed;
    if (len == 40) {
        __asm__("addq 0(%[p]), %[s]\n\t" ADC8(s, p, 8) ADC8(s, p, 16) ADC8(s, p, 24) ADC8(s, p, 32)
                "adcq $0, %[s]"
                : [s] "+&r"(s)
                : [p] "r"(p), "m"(*(const uint8_t(*)[40])p));
    } else {
        for (; len >= 64; p += 64, len -= 64)
            __asm__("addq 0(%[p]), %[s]\n\t" ADC8(s, p, 8) ADC8(s, p, 16) ADC8(s, p, 24) ADC8(s, p, 32)
                        ADC8(s, p, 40) ADC8(s, p, 48) ADC8(s, p, 56) "adcq $0, %[s]"
                    : [s] "+&r"(s)
                    : [p] "r"(p), "m"(*(const uint8_t(*)[64])p));
        if (len & 32) {
            __asm__("addq 0(%[p]), %[s]\n\t" ADC8(s, p, 8) ADC8(s, p, 16) ADC8(s, p, 24) "adcq $0, %[s]"
                    : [s] "+&r"(s)
                    : [p] "r"(p), "m"(*(const uint8_t(*)[32])p));
            p += 32;
        }
        if (len & 16) {
            __asm__("addq 0(%[p]), %[s]\n\t" ADC8(s, p, 8) "adcq $0, %[s]"
                    : [s] "+&r"(s)
                    : [p] "r"(p), "m"(*(const uint8_t(*)[16])p));
            p += 16;
        }
        if (len & 8) {
            __asm__("addq 0(%[p]), %[s]\n\tadcq $0, %[s]" : [s] "+&r"(s) : [p] "r"(p), "m"(*(const uint64_t *)p));
            p += 8;
        }
        if (len & 7) {
            const uint64_t t = tail_word(p, len & 7);
            __asm__("addq %[t], %[s]\n\tadcq $0, %[s]" : [s] "+&r"(s) : [t] "r"(t));
        }
    }
    /* Fold: the high half of s + (s rotated by 32) is the sum of the halves with its end-around
     * carry (the low halves' sum carries into it exactly when the high halves' wraps). */
    const uint64_t r = (s >> 32) | (s << 32);
    return (uint32_t)((s + r) >> 32);
}

int anchor_have_linux(void)
{
    return 1;
}

uint32_t anchor_linux_partial(const void *buf, size_t len, uint32_t seed)
{
    return linux_partial(buf, len, seed);
}

DEFINE_TIMED_LOOP(, loop_linux, linux_partial(src, len, 0))
DEFINE_LATENCY_LOOP(, loop_linux_latency, linux_partial(src, len, 0))

#else /* callers check anchor_have_linux() first; these only keep the link whole */
int anchor_have_linux(void)
{
    return 0;
}

uint32_t anchor_linux_partial(const void *buf, size_t len, uint32_t seed)
{
    (void)buf;
    (void)len;
    return seed;
}

uint64_t loop_linux(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps)
{
    (void)src, (void)dst, (void)len, (void)reps;
    return 0;
}

uint64_t loop_linux_latency(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps)
{
    return loop_linux(src, dst, len, reps);
}
#endif
