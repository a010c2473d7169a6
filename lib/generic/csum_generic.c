/* Portable C kernel: 32-bit loads added into 64-bit accumulators, so no carry is ever lost and no
 * add-with-carry is needed.  Runs on any architecture and is the fallback every build has. */
#include "../kernels.h"

/* Each 16-byte step adds < 2^32 to each of four accumulators; a block of 2^32 bytes (2^28 steps)
 * keeps each below 2^60, and their sum below 2^62, before it is folded into the running total. */
#define GENERIC_BLOCK ((size_t)1 << 32)

static uint64_t sum_block(const uint8_t *p, size_t len)
{
    uint64_t a = 0, b = 0, c = 0, d = 0;
    for (; len >= 16; p += 16, len -= 16) {
        a += ics_load32(p);
        b += ics_load32(p + 4);
        c += ics_load32(p + 8);
        d += ics_load32(p + 12);
    }
    if (len & 8) {
        a += ics_load32(p);
        b += ics_load32(p + 4);
        p += 8;
    }
    return (a + b) + (c + d) + ics_tail7(p, len & 7);
}

uint32_t ics_partial_generic(const void *buf, size_t len, uint32_t sum)
{
    const uint8_t *p = (const uint8_t *)buf;
    uint64_t total = sum;
    /* Blocks are a multiple of 2 bytes long, so the word pairing never shifts between them. */
    while (len > GENERIC_BLOCK) {
        total = ics_add64(total, sum_block(p, GENERIC_BLOCK));
        p += GENERIC_BLOCK;
        len -= GENERIC_BLOCK;
    }
    return ics_reduce64(ics_add64(total, sum_block(p, len)));
}

uint32_t ics_copy_generic(void *dst, const void *src, size_t len, uint32_t sum)
{
    /* Copy and sum in cache-sized pieces so the sum reads what the copy just brought into L1. */
    const size_t piece = 2048;
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
    uint64_t total = sum;
    while (len > 0) {
        size_t n = len < piece ? len : piece;
        memcpy(d, s, n);
        total = ics_add64(total, sum_block(d, n));
        d += n;
        s += n;
        len -= n;
    }
    return ics_reduce64(total);
}

/* A message in pieces: a call a piece (its fixed cost is a few adds). */
ICS_IOV_BY_PARTIAL(generic)
