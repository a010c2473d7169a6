/* x86-64 scalar kernel: 64-bit add-with-carry in several independent chains.
 *
 * One adc chain retires 8 bytes per cycle at best, because each adc waits for the previous one's
 * carry flag.  Each chain here is short (add, adc, adc $0) and opens with a plain add, which does
 * not read CF, so the core renames the flags and runs the four chains of a 64-byte step in
 * parallel: 12 ALU operations and 8 loads per 64 bytes instead of a 9-long dependency chain. */
#include "../kernels.h"

static inline uint64_t fold4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    ICS_ADC2(a, b, c);
    ICS_ADC1(a, d);
    return a;
}

uint32_t ics_partial_x86_64(const void *buf, size_t len, uint32_t sum)
{
    const uint8_t *p = (const uint8_t *)buf;
    uint64_t a = sum, b = 0, c = 0, d = 0;
    for (; len >= 64; p += 64, len -= 64) {
        ICS_ADC2(a, ics_load64(p), ics_load64(p + 8));
        ICS_ADC2(b, ics_load64(p + 16), ics_load64(p + 24));
        ICS_ADC2(c, ics_load64(p + 32), ics_load64(p + 40));
        ICS_ADC2(d, ics_load64(p + 48), ics_load64(p + 56));
    }
    /* The last < 64 bytes: the same scalar code inetcsum_partial uses for short inputs. */
    return ics_partial_small(p, len, ics_reduce64_x86(fold4(a, b, c, d)));
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
        ICS_ADC2(a, w[0], w[1]);
        ICS_ADC2(b, w[2], w[3]);
        ICS_ADC2(c, w[4], w[5]);
        ICS_ADC2(d, w[6], w[7]);
    }
    return ics_copy_small(o, p, len, ics_reduce64_x86(fold4(a, b, c, d)));
}

/* A message in pieces: a call a piece (its fixed cost is a few adds). */
ICS_IOV_BY_PARTIAL(x86_64)
