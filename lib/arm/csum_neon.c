/* aarch64 NEON kernel.  UADALP (vpadalq_u16) adds adjacent 16-bit words into 32-bit lanes and
 * accumulates, one instruction per 16 bytes, so no separate widening step is needed.  A 32-bit
 * lane gains < 2^17 per vector; flushing into 64-bit lanes (UADALP again, u32 -> u64) every
 * FLUSH_STEPS steps of 4 vectors per accumulator (2^13 * 2^17 = 2^30) keeps it exact.
 * Tails under 16 bytes are scalar. */
#include <arm_neon.h>

#include "../kernels.h"

#define FLUSH_STEPS 8192

static inline __attribute__((always_inline)) uint16x8_t load_copy(const uint8_t *s, uint8_t *d,
                                                                  const int copy)
{
    uint8x16_t v = vld1q_u8(s);
    if (copy)
        vst1q_u8(d, v);
    return vreinterpretq_u16_u8(v);
}

static inline __attribute__((always_inline)) uint32_t sum_neon(uint8_t *dst, const uint8_t *src,
                                                              size_t len, uint32_t sum, const int copy)
{
    uint64x2_t t = vdupq_n_u64(0);
    while (len >= 64) {
        uint32x4_t a0 = vdupq_n_u32(0), a1 = a0, a2 = a0, a3 = a0;
        size_t steps = len / 64;
        if (steps > FLUSH_STEPS)
            steps = FLUSH_STEPS;
        len -= steps * 64;
        do {
            a0 = vpadalq_u16(a0, load_copy(src, dst, copy));
            a1 = vpadalq_u16(a1, load_copy(src + 16, dst + 16, copy));
            a2 = vpadalq_u16(a2, load_copy(src + 32, dst + 32, copy));
            a3 = vpadalq_u16(a3, load_copy(src + 48, dst + 48, copy));
            src += 64;
            dst += 64;
        } while (--steps);
        t = vpadalq_u32(t, a0);
        t = vpadalq_u32(t, a1);
        t = vpadalq_u32(t, a2);
        t = vpadalq_u32(t, a3);
    }
    uint32x4_t a = vdupq_n_u32(0);
    for (; len >= 16; len -= 16, src += 16, dst += 16)
        a = vpadalq_u16(a, load_copy(src, dst, copy));
    t = vpadalq_u32(t, a);
    if (copy && len) /* memcpy needs valid pointers even for 0 bytes */
        memcpy(dst, src, len);
    /* Each 64-bit lane is < 2^62 for any buffer that fits in a 48-bit address space. */
    uint64_t total = ics_add64(vgetq_lane_u64(t, 0), vgetq_lane_u64(t, 1));
    total = ics_add64(total, ics_add64(ics_tail7(src + (len & 8), len & 7), sum));
    if (len & 8)
        total = ics_add64(total, (uint64_t)ics_load32(src) + ics_load32(src + 4));
    return ics_reduce64(total);
}

uint32_t ics_partial_neon(const void *buf, size_t len, uint32_t sum)
{
    /* dst is never written when copy == 0; passing buf keeps the pointer arithmetic defined. */
    return sum_neon((uint8_t *)(uintptr_t)buf, (const uint8_t *)buf, len, sum, 0);
}

uint32_t ics_copy_neon(void *dst, const void *src, size_t len, uint32_t sum)
{
    return sum_neon((uint8_t *)dst, (const uint8_t *)src, len, sum, 1);
}

/* A message in pieces: a call a piece (its fixed cost is a few adds). */
ICS_IOV_BY_PARTIAL(neon)
