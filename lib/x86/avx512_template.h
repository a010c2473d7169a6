/* AVX-512 kernel template, included once per variant with AVX512_VNNI set to 0 or 1 and
 * KERNEL(op) naming the instance (csum_avx512.c, csum_avx512vnni.c, and the SIMDe-emulated builds
 * the tests use on CPUs without AVX-512).
 *
 * AVX512_VNNI == 0 widens as the AVX2 kernel does (a += v; b += v >> 16; recover sum(lo) as
 * a - (b << 16) at a flush): three operations per 64-byte vector.
 * AVX512_VNNI == 1 uses one dot-product per vector: words are biased to signed range (w ^ 0x8000 =
 * w - 32768 as int16), vpdpwssd adds each pair times 1 into a 32-bit lane, and the bias, 32768 per
 * word, is added back once at the end.  Two operations per vector.
 *
 * Tails use byte-masked loads (and stores, when copying), which never touch masked-out bytes, so
 * any length from 0 up reads exactly [src, src+len) and writes exactly [dst, dst+len). */
#include "../kernels.h"

/* Steps of 4 vectors between flushes: 2^12 steps = 2^14 vectors, 2^13 per accumulator. */
#define FLUSH_STEPS 4096

#if AVX512_VNNI
/* Lanes start at 2^30, so with at most 2^13 vectors (each moving a lane by less than 2^16) between
 * flushes they stay in (0, 2^31) and widen as unsigned; the starting values are taken off again
 * at the end, `flushes` times 16 lanes of 2^30. */
#define LANE_START (1u << 30)
struct acc {
    __m512i d;
    uint64_t flushes;
};
static inline __attribute__((always_inline)) void acc_init(struct acc *x)
{
    x->d = _mm512_set1_epi32((int)LANE_START);
    x->flushes = 0;
}
static inline __attribute__((always_inline)) void acc_add(struct acc *x, __m512i v)
{
    x->d = _mm512_dpwssd_epi32(x->d, _mm512_xor_si512(v, _mm512_set1_epi16((short)0x8000)),
                               _mm512_set1_epi16(1));
}
static inline __attribute__((always_inline)) __m512i acc_flush(struct acc *x, __m512i t)
{
    t = _mm512_add_epi64(t, _mm512_and_si512(x->d, _mm512_set1_epi64(0xFFFFFFFF)));
    t = _mm512_add_epi64(t, _mm512_srli_epi64(x->d, 32));
    x->d = _mm512_set1_epi32((int)LANE_START);
    x->flushes++;
    return t;
}
#else
struct acc {
    __m512i a, b;
};
static inline __attribute__((always_inline)) void acc_init(struct acc *x)
{
    x->a = x->b = _mm512_setzero_si512();
}
static inline __attribute__((always_inline)) void acc_add(struct acc *x, __m512i v)
{
    x->a = _mm512_add_epi32(x->a, v);
    x->b = _mm512_add_epi32(x->b, _mm512_srli_epi32(v, 16));
}
static inline __attribute__((always_inline)) __m512i acc_flush(struct acc *x, __m512i t)
{
    const __m512i low32 = _mm512_set1_epi64(0xFFFFFFFF);
    __m512i lo = _mm512_sub_epi32(x->a, _mm512_slli_epi32(x->b, 16));
    t = _mm512_add_epi64(t, _mm512_and_si512(lo, low32));
    t = _mm512_add_epi64(t, _mm512_srli_epi64(lo, 32));
    t = _mm512_add_epi64(t, _mm512_and_si512(x->b, low32));
    t = _mm512_add_epi64(t, _mm512_srli_epi64(x->b, 32));
    x->a = x->b = _mm512_setzero_si512();
    return t;
}
#endif

static inline __attribute__((always_inline)) __m512i load_copy(const uint8_t *s, uint8_t *d,
                                                               const int copy)
{
    __m512i v = _mm512_loadu_si512((const void *)s);
    if (copy)
        _mm512_storeu_si512((void *)d, v);
    return v;
}

static inline __attribute__((always_inline)) uint32_t sum_avx512(uint8_t *dst, const uint8_t *src,
                                                                size_t len, uint32_t sum,
                                                                const int copy)
{
    struct acc x, y;
    acc_init(&x);
    acc_init(&y);
    __m512i t = _mm512_setzero_si512();
#if AVX512_VNNI
    /* Vectors summed, each 32 words of bias 32768 to add back: (len + 63) / 64 without overflow. */
    const uint64_t vectors = len / 64 + (len % 64 != 0);
#endif

    while (len >= 256) {
        size_t steps = len / 256;
        if (steps > FLUSH_STEPS)
            steps = FLUSH_STEPS;
        len -= steps * 256;
        do {
            __m512i v0 = load_copy(src, dst, copy);
            __m512i v1 = load_copy(src + 64, dst + 64, copy);
            __m512i v2 = load_copy(src + 128, dst + 128, copy);
            __m512i v3 = load_copy(src + 192, dst + 192, copy);
            acc_add(&x, v0);
            acc_add(&y, v1);
            acc_add(&x, v2);
            acc_add(&y, v3);
            src += 256;
            dst += 256;
        } while (--steps);
        t = acc_flush(&x, t);
        t = acc_flush(&y, t);
    }
    for (; len >= 64; len -= 64, src += 64, dst += 64)
        acc_add(&x, load_copy(src, dst, copy));
    if (len) {
        /* A lone last byte is loaded with a zero partner: the word pairing stays right. */
        __mmask64 m = (__mmask64)(((uint64_t)1 << len) - 1);
        __m512i v = _mm512_maskz_loadu_epi8(m, (const void *)src);
        if (copy)
            _mm512_mask_storeu_epi8((void *)dst, m, v);
        acc_add(&y, v);
    }
    t = acc_flush(&x, t);
    t = acc_flush(&y, t);

    uint64_t l[8];
    _mm512_storeu_si512((void *)l, t);
#if AVX512_VNNI
    /* The true total is a nonnegative integer below 2^63 (fewer than 2^47 words of < 2^16), so
     * wrapping arithmetic on the offset lanes gives it exactly. */
    uint64_t total = l[0] + l[1] + l[2] + l[3] + l[4] + l[5] + l[6] + l[7] + vectors * 32 * 32768 -
                     (x.flushes + y.flushes) * 16 * (uint64_t)LANE_START;
    return ics_reduce64(ics_add64(total, sum));
#else
    uint64_t total = ics_add64(ics_add64(ics_add64(l[0], l[1]), ics_add64(l[2], l[3])),
                               ics_add64(ics_add64(l[4], l[5]), ics_add64(l[6], l[7])));
    return ics_reduce64(ics_add64(total, sum));
#endif
}

uint32_t KERNEL(partial)(const void *buf, size_t len, uint32_t sum)
{
    /* dst is never written when copy == 0; passing buf keeps the pointer arithmetic defined. */
    return sum_avx512((uint8_t *)(uintptr_t)buf, (const uint8_t *)buf, len, sum, 0);
}

uint32_t KERNEL(copy)(void *dst, const void *src, size_t len, uint32_t sum)
{
    return sum_avx512((uint8_t *)dst, (const uint8_t *)src, len, sum, 1);
}
