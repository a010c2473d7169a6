/* An anchor (issue 35): VPP's checksum, clib_ip_csum (vppinfra/vector/ip_csum.h, 2021 on), as its
 * AVX-512 build computes it, written for this benchmark from its description, not from its code.
 * Issue 35 holds the library to the best of Linux, VPP and DPDK at every size; VPP is not packaged
 * for Debian, so the algorithm is here.
 *
 * The algorithm: one accumulator of eight 64-bit lanes.  Each 64-byte vector, loaded from the
 * start as it is (unaligned), is taken as sixteen 32-bit words; each word is widened to 64 bits
 * (interleaved with zeros, the low and the high halves of each 128-bit lane apart) and both halves
 * are added into the accumulator: no carries to fold, no bias.  512 bytes a round, then 64 at a
 * time, then the last 1-63 bytes by one byte-masked load (zero-filled, so an odd last byte pairs
 * with a zero as RFC 1071 pads it).  The lanes are added up in the end and folded from 64 bits.
 * Without AVX-512 (VPP's AVX2 build) the same on 32-byte vectors, 256 bytes a round, then 32 at a
 * time, then 16-bit words and a last byte in scalar code.  VPP's function is always inlined into
 * its caller, as DPDK's is: so it is here, into the timing loop.  Only the benchmark calls it. */
#include "anchors.h"
#include "timing.h"

#if defined(__x86_64__) && (defined(__AVX512BW__) || defined(__AVX2__))
#include <immintrin.h>
#include <string.h>

static inline __attribute__((always_inline)) uint64_t vpp_sum(const uint8_t *p, size_t n)
{
#if defined(__AVX512BW__)
    const __m512i zero = _mm512_setzero_si512();
    __m512i acc = zero;
#define VPP_WIDEN_ADD(v)                                                                                     \
    acc = _mm512_add_epi64(acc, _mm512_add_epi64(_mm512_unpacklo_epi32((v), zero), _mm512_unpackhi_epi32((v), zero)))
    for (; n >= 512; p += 512, n -= 512)
        for (int i = 0; i < 8; i++)
            VPP_WIDEN_ADD(_mm512_loadu_si512((const void *)(p + 64 * i)));
    for (; n >= 64; p += 64, n -= 64)
        VPP_WIDEN_ADD(_mm512_loadu_si512((const void *)p));
    if (n)
        VPP_WIDEN_ADD(_mm512_maskz_loadu_epi8((__mmask64)((1ull << n) - 1), p));
#undef VPP_WIDEN_ADD
    const __m256i y = _mm256_add_epi64(_mm512_castsi512_si256(acc), _mm512_extracti64x4_epi64(acc, 1));
    const __m128i x = _mm_add_epi64(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));
    return (uint64_t)_mm_cvtsi128_si64(x) + (uint64_t)_mm_extract_epi64(x, 1);
#else
    const __m256i zero = _mm256_setzero_si256();
    __m256i acc = zero;
#define VPP_WIDEN_ADD(v)                                                                                     \
    acc = _mm256_add_epi64(acc, _mm256_add_epi64(_mm256_unpacklo_epi32((v), zero), _mm256_unpackhi_epi32((v), zero)))
    for (; n >= 256; p += 256, n -= 256)
        for (int i = 0; i < 8; i++)
            VPP_WIDEN_ADD(_mm256_loadu_si256((const __m256i *)(p + 32 * i)));
    for (; n >= 32; p += 32, n -= 32)
        VPP_WIDEN_ADD(_mm256_loadu_si256((const __m256i *)p));
#undef VPP_WIDEN_ADD
    const __m128i x = _mm_add_epi64(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    uint64_t s = (uint64_t)_mm_cvtsi128_si64(x) + (uint64_t)_mm_extract_epi64(x, 1);
    for (; n >= 2; p += 2, n -= 2) {
        uint16_t w;
        memcpy(&w, p, 2);
        s += w;
    }
    if (n)
        s += p[0]; /* the low byte of a little-endian word: the pad RFC 1071 adds */
    return s;
#endif
}

/* 64 -> 32 bits with the end-around carry, the seed added as a caller adds its initial sum. */
static inline __attribute__((always_inline)) uint32_t vpp_partial(const void *buf, size_t len, uint32_t seed)
{
    const uint64_t s = vpp_sum((const uint8_t *)buf, len) + seed;
    const uint64_t t = (s & 0xFFFFFFFFu) + (s >> 32);
    return (uint32_t)((t & 0xFFFFFFFFu) + (t >> 32));
}

int anchor_have_vpp(void)
{
    return 1;
}

uint32_t anchor_vpp_partial(const void *buf, size_t len, uint32_t seed)
{
    return vpp_partial(buf, len, seed);
}

DEFINE_TIMED_LOOP(, loop_vpp, vpp_partial(src, len, 0))
DEFINE_LATENCY_LOOP(, loop_vpp_latency, vpp_partial(src, len, 0))

#else /* callers check anchor_have_vpp() first; these only keep the link whole */
int anchor_have_vpp(void)
{
    return 0;
}

uint32_t anchor_vpp_partial(const void *buf, size_t len, uint32_t seed)
{
    (void)buf;
    (void)len;
    return seed;
}

uint64_t loop_vpp(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps)
{
    (void)src, (void)dst, (void)len, (void)reps;
    return 0;
}

uint64_t loop_vpp_latency(const uint8_t *src, uint8_t *dst, size_t len, unsigned reps)
{
    return loop_vpp(src, dst, len, reps);
}
#endif
