/* CRC32c by folding with VPCLMULQDQ on 512-bit vectors (compiled with -mavx512f -mavx512bw
 * -mvpclmulqdq -mpclmul -msse4.2; only called when CPUID reports them all).
 *
 * The crc32 instruction retires 8 bytes a cycle at best, however many streams run (one port).
 * Folding moves each 16-byte block of the message forward by a fixed distance with two carry-less
 * products and XORs it into the block there, keeping the CRC's value (the message changes by a
 * multiple of the polynomial): sixteen 16-byte lanes in four zmm accumulators take 256 bytes a
 * step, the products of one step independent of each other.  At the end the lanes are folded into
 * one 16-byte block, and the crc32 instruction runs over it and the last bytes: a CRC over the
 * folded message from a zero register (the incoming register was XORed into its first 4 bytes,
 * which is what the register does to the first bytes in any case).
 *
 * The constants (lib/crc32c_tables.c, fold[]): a block is two 64-bit halves; the first 8 bytes are
 * the higher-degree half, so moving the block d bytes forward multiplies that half by x^(8d+64)
 * and the other by x^(8d), both reduced mod P to 32 bits; one factor of x less, because the
 * carry-less product of two reflected operands gains one.  Inputs under 256 bytes go to the
 * three-stream kernel, which is faster there. */
#ifdef ICS_EMULATE_AVX512
/* The tests' build through SIMDe, for CPUs without these instructions: same source, another name,
 * and the portable kernel for the mid sizes (the CPU may lack PCLMULQDQ too). */
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>
#include <simde/x86/clmul.h>
#include <simde/x86/sse4.2.h>
#define KERNEL_NAME ics_crc32c_vpclmul_emu
#define MID_SIZES ics_crc32c_table
#else
#include <immintrin.h>
#define KERNEL_NAME ics_crc32c_vpclmul
#define MID_SIZES ics_crc32c_clmul
#endif

#include "../crc32c.h"
#include "../crc32c_interleave.h"

#include "crc32c_steps.h"

/* x moved forward by the distance k holds (k: {first half's constant, last half's}, per lane). */
static inline __attribute__((always_inline)) __m512i fold512(__m512i x, __m512i k)
{
    return _mm512_xor_si512(_mm512_clmulepi64_epi128(x, k, 0x00), _mm512_clmulepi64_epi128(x, k, 0x11));
}

static inline __attribute__((always_inline)) __m128i fold128(__m128i x, __m128i k)
{
    return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

static inline __m512i constant512(const uint64_t k[2])
{
    return _mm512_broadcast_i32x4(_mm_set_epi64x((long long)k[1], (long long)k[0]));
}

#define FOLD_MIN 256

/* Below this many bytes one crc32 stream, inline: joining streams (or building the tables on a
 * first call) costs more than it saves.  At 64 bytes: 11.3 ticks against 15.5 through the
 * three-stream kernel (inetcsum bench crc32c, Zen 4). */
#define SERIAL_MAX 128

uint32_t KERNEL_NAME(uint32_t reg, const uint8_t *p, size_t len);
uint32_t KERNEL_NAME(uint32_t reg, const uint8_t *p, size_t len)
{
    if (len < SERIAL_MAX) {
        CRC_SERIAL(reg, p, len);
        return reg;
    }
    if (len < FOLD_MIN)
        return MID_SIZES(reg, p, len);
    const struct ics_crc32c_tables *t = ics_crc32c_init();
    /* The register into the first 4 bytes, every other lane zero (a cast from 128 bits would leave
     * the upper lanes undefined: SIMDe fills them, and the test through it failed). */
    const __m512i first = _mm512_set_epi64(0, 0, 0, 0, 0, 0, 0, (long long)reg);
    __m512i a0 = _mm512_xor_si512(_mm512_loadu_si512((const void *)p), first);
    __m512i a1 = _mm512_loadu_si512((const void *)(p + 64));
    __m512i a2 = _mm512_loadu_si512((const void *)(p + 128));
    __m512i a3 = _mm512_loadu_si512((const void *)(p + 192));
    p += 256;
    len -= 256;
    const __m512i k256 = constant512(t->fold[4]);
    for (; len >= 256; p += 256, len -= 256) {
        a0 = _mm512_xor_si512(fold512(a0, k256), _mm512_loadu_si512((const void *)p));
        a1 = _mm512_xor_si512(fold512(a1, k256), _mm512_loadu_si512((const void *)(p + 64)));
        a2 = _mm512_xor_si512(fold512(a2, k256), _mm512_loadu_si512((const void *)(p + 128)));
        a3 = _mm512_xor_si512(fold512(a3, k256), _mm512_loadu_si512((const void *)(p + 192)));
    }
    /* Four accumulators 64 bytes apart into one, then whole 64-byte blocks. */
    const __m512i k64 = constant512(t->fold[2]);
    a1 = _mm512_xor_si512(fold512(a0, k64), a1);
    a2 = _mm512_xor_si512(fold512(a1, k64), a2);
    a0 = _mm512_xor_si512(fold512(a2, k64), a3);
    for (; len >= 64; p += 64, len -= 64)
        a0 = _mm512_xor_si512(fold512(a0, k64), _mm512_loadu_si512((const void *)p));
    /* Four lanes 16 bytes apart into one, then whole 16-byte blocks. */
    const __m128i k16 = _mm_set_epi64x((long long)t->fold[0][1], (long long)t->fold[0][0]);
    __m128i x = _mm512_extracti32x4_epi32(a0, 0);
    x = _mm_xor_si128(fold128(x, k16), _mm512_extracti32x4_epi32(a0, 1));
    x = _mm_xor_si128(fold128(x, k16), _mm512_extracti32x4_epi32(a0, 2));
    x = _mm_xor_si128(fold128(x, k16), _mm512_extracti32x4_epi32(a0, 3));
    for (; len >= 16; p += 16, len -= 16)
        x = _mm_xor_si128(fold128(x, k16), _mm_loadu_si128((const __m128i *)(const void *)p));
    /* The folded block is now the message's first 16 bytes: a CRC over it from zero, then the rest. */
    uint32_t r = 0;
    CRC_STEP64(r, (uint64_t)_mm_cvtsi128_si64(x));
    CRC_STEP64(r, (uint64_t)_mm_extract_epi64(x, 1));
    CRC_SERIAL(r, p, len);
    return r;
}
