/* CRC32c with SSE4.2's crc32 and PCLMULQDQ (compiled with -msse4.2 -mpclmul; only called when
 * CPUID reports both).
 *
 * The three-stream loop of crc32c_sse42.c joins its streams with a table per stream length, so
 * what is left under three short streams (384 bytes) ran as one serial stream: most of a
 * 1500-byte packet's last 348 bytes, all of a 256-byte one.  A carry-less multiply joins streams of
 * any length with one 32-bit constant per length, so here the remainder is split into three equal
 * streams of whole 8-byte words too, and at most 23 bytes run serially.
 *
 * Advancing a register R over n zero bytes is R x^(8n) mod P.  With K = x^(8n-33) mod P, the
 * carry-less product of the reflected R and K is R K x (reflected products gain one factor of x),
 * a 63-bit value; the crc32 instruction over those 8 bytes from a zero register multiplies by x^32
 * and reduces mod P, giving R x^(8n) mod P. */
#include <nmmintrin.h>
#include <wmmintrin.h>

#include "../crc32c_interleave.h"

/* Remainders from this many bytes are split three ways: below it the two joins (a multiply and a
 * crc32 each, on the critical path) cost more than the parallel streams save.  It was 72; on the
 * Zen 3 guest one stream was faster to about 240 B (`bench crc32c`, slow spell: 100 B 33 TSC
 * ticks against 42-48 split, 128 B 42-44 against 48-54, 200 B 59-62 against 64-66; 255 B 73-75
 * against 64-70), and on Sapphire Rapids the split gained only 11% over one stream at 256 B (the
 * sse42 kernel, README), so it cannot gain much below there (a prediction). */
#define CLMUL_SPLIT_MIN 256

static inline uint32_t shift(uint32_t reg, uint32_t k)
{
    __m128i prod = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)reg), _mm_cvtsi32_si128((int)k), 0);
    return (uint32_t)_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(prod));
}

/* Three streams of `block` (a multiple of 8) bytes from p, joined: the register after all three. */
static inline __attribute__((always_inline)) uint32_t three_streams(uint32_t reg, const uint8_t *p, size_t block,
                                                                    uint32_t k)
{
    uint64_t r0 = reg, r1 = 0, r2 = 0;
    for (size_t i = 0; i < block; i += 8) {
        r0 = _mm_crc32_u64(r0, crc_load64le(p + i));
        r1 = _mm_crc32_u64(r1, crc_load64le(p + block + i));
        r2 = _mm_crc32_u64(r2, crc_load64le(p + 2 * block + i));
    }
    return shift(shift((uint32_t)r0, k) ^ (uint32_t)r1, k) ^ (uint32_t)r2;
}

#include "crc32c_steps.h"

uint32_t ics_crc32c_clmul(uint32_t reg, const uint8_t *p, size_t len)
{
    if (len >= CLMUL_SPLIT_MIN) { /* (shorter inputs need no table: see INTERLEAVED_CRC32C) */
        const struct ics_crc32c_tables *t = ics_crc32c_init();
        for (; len >= 3 * ICS_CRC32C_LONG; p += 3 * ICS_CRC32C_LONG, len -= 3 * ICS_CRC32C_LONG)
            reg = three_streams(reg, p, ICS_CRC32C_LONG, t->clmul_long);
        for (; len >= 3 * ICS_CRC32C_SHORT; p += 3 * ICS_CRC32C_SHORT, len -= 3 * ICS_CRC32C_SHORT)
            reg = three_streams(reg, p, ICS_CRC32C_SHORT, t->clmul_k[ICS_CRC32C_SHORT / 8]);
        if (len >= CLMUL_SPLIT_MIN) {
            size_t block = len / 24 * 8; /* 24..120 bytes per stream */
            reg = three_streams(reg, p, block, t->clmul_k[block / 8]);
            p += 3 * block;
            len -= 3 * block;
        }
    }
    CRC_SERIAL(reg, p, len);
    return reg;
}
