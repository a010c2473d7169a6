/* x86-64 scalar kernel: 64-bit add-with-carry in several independent chains.
 *
 * One adc chain retires 8 bytes per cycle at best, because each adc waits for the previous one's
 * carry flag.  Each chain here is short (add, adc, adc $0) and opens with a plain add, which does
 * not read CF, so the core renames the flags and runs the four chains of a 64-byte step in
 * parallel: 12 ALU operations and 8 loads per 64 bytes instead of a 9-long dependency chain. */
#include "../kernels.h"

#define ADC2 ICS_ADC2

static inline uint64_t fold4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    return ics_add64(ics_add64(a, b), ics_add64(c, d));
}

/* The part of len below 64 bytes (any len < 64), added to a. */
static inline uint64_t sum_tail63(const uint8_t *p, size_t len, uint64_t a)
{
    uint64_t b = 0;
    if (len & 32) {
        ADC2(a, ics_load64(p), ics_load64(p + 8));
        ADC2(b, ics_load64(p + 16), ics_load64(p + 24));
        p += 32;
    }
    if (len & 16) {
        ADC2(a, ics_load64(p), ics_load64(p + 8));
        p += 16;
    }
    if (len & 8) {
        ADC2(b, ics_load64(p), 0);
        p += 8;
    }
    return ics_add64(ics_add64(a, b), ics_tail7(p, len & 7));
}

uint32_t ics_partial_x86_64(const void *buf, size_t len, uint32_t sum)
{
    const uint8_t *p = (const uint8_t *)buf;
    uint64_t a = sum, b = 0, c = 0, d = 0;
    for (; len >= 64; p += 64, len -= 64) {
        ADC2(a, ics_load64(p), ics_load64(p + 8));
        ADC2(b, ics_load64(p + 16), ics_load64(p + 24));
        ADC2(c, ics_load64(p + 32), ics_load64(p + 40));
        ADC2(d, ics_load64(p + 48), ics_load64(p + 56));
    }
    return ics_reduce64(sum_tail63(p, len, fold4(a, b, c, d)));
}

uint32_t ics_copy_x86_64(void *dst, const void *src, size_t len, uint32_t sum)
{
    uint8_t *o = (uint8_t *)dst;
    const uint8_t *p = (const uint8_t *)src;
    uint64_t a = sum, b = 0, c = 0, d = 0;
    for (; len >= 64; p += 64, o += 64, len -= 64) {
        uint64_t w[8];
        memcpy(w, p, 64); /* one pass: the words are summed from registers, not re-read */
        memcpy(o, w, 64);
        ADC2(a, w[0], w[1]);
        ADC2(b, w[2], w[3]);
        ADC2(c, w[4], w[5]);
        ADC2(d, w[6], w[7]);
    }
    if (len) /* memcpy needs valid pointers even for 0 bytes */
        memcpy(o, p, len);
    return ics_reduce64(sum_tail63(o, len, fold4(a, b, c, d)));
}
