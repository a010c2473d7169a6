/* Makes the AVX-512 (and AVX-VNNI) kernel sources compile to portable code through SIMDe (Debian libsimde-dev), so
 * their logic is tested on CPUs without AVX-512 (tests only; never part of the library).  The
 * byte-masked moves this SIMDe release lacks are written out here with the instructions' meaning:
 * masked-out bytes are neither read nor written. */
#ifndef ICS_AVX512_EMULATION_H
#define ICS_AVX512_EMULATION_H

#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>

/* The first n (64 or 32) bytes at p under byte mask k into b, masked-out ones 0; and back. */
static inline void ics_emu_masked_read(uint8_t *b, uint64_t k, const void *p, int n)
{
    for (int i = 0; i < n; i++)
        b[i] = (k >> i & 1) ? ((const uint8_t *)p)[i] : 0;
}

static inline void ics_emu_masked_write(void *p, uint64_t k, const uint8_t *b, int n)
{
    for (int i = 0; i < n; i++)
        if (k >> i & 1)
            ((uint8_t *)p)[i] = b[i];
}

static inline simde__m512i ics_emu_maskz_loadu_epi8(uint64_t k, const void *p)
{
    uint8_t b[64];
    ics_emu_masked_read(b, k, p, 64);
    return simde_mm512_loadu_si512(b);
}

static inline void ics_emu_mask_storeu_epi8(void *p, uint64_t k, simde__m512i v)
{
    uint8_t b[64];
    simde_mm512_storeu_si512(b, v);
    ics_emu_masked_write(p, k, b, 64);
}

static inline simde__m256i ics_emu_maskz_loadu_epi8_256(uint32_t k, const void *p)
{
    uint8_t b[32];
    ics_emu_masked_read(b, k, p, 32);
    return simde_mm256_loadu_si256(b);
}

static inline void ics_emu_mask_storeu_epi8_256(void *p, uint32_t k, simde__m256i v)
{
    uint8_t b[32];
    simde_mm256_storeu_si256(b, v);
    ics_emu_masked_write(p, k, b, 32);
}

#undef _mm512_maskz_loadu_epi8
#undef _mm512_mask_storeu_epi8
#undef _mm256_maskz_loadu_epi8
#undef _mm256_mask_storeu_epi8
#define _mm512_maskz_loadu_epi8(k, p) ics_emu_maskz_loadu_epi8(k, p)
#define _mm512_mask_storeu_epi8(p, k, v) ics_emu_mask_storeu_epi8(p, k, v)
#define _mm256_maskz_loadu_epi8(k, p) ics_emu_maskz_loadu_epi8_256(k, p)
#define _mm256_mask_storeu_epi8(p, k, v) ics_emu_mask_storeu_epi8_256(p, k, v)
/* AVX-VNNI's VEX form computes what AVX-512 VNNI's does on ymm; this SIMDe release has only the latter. */
#define _mm256_dpwssd_avx_epi32(acc, a, b) simde_mm256_dpwssd_epi32(acc, a, b)
/* This SIMDe release aliases _mm512_madd_epi16 with the masked form's four arguments. */
#undef _mm512_madd_epi16
#define _mm512_madd_epi16(a, b) simde_mm512_madd_epi16(a, b)

#endif
