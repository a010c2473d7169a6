/* AVX2 kernel (compiled with -mavx2; only called when the CPU and OS support AVX2).
 *
 * Widening without shuffles: for each 32-byte vector v, viewed as eight 32-bit lanes hi:lo,
 *   a += v          (32-bit adds, wrapping: a = sum(lo) + 2^16 * sum(hi)  mod 2^32)
 *   b += v >> 16    (exact: sum(hi), each term < 2^16)
 * Three operations per vector.  As long as sum(lo) < 2^32, it is recovered exactly at a flush as
 * a - (b << 16) mod 2^32, and the lane's true sum is sum(lo) + sum(hi), added into 64-bit lanes.
 * A lane gains < 2^16 per vector in each of sum(lo) and sum(hi), so flushing every FLUSH_STEPS
 * steps of 4 vectors (2^13 * 4 < 2^16 additions) keeps both below 2^32.
 *
 * Tails: full vectors, then the last < 32 bytes with one load that ends at the buffer's end
 * (overlapping bytes already summed, which a mask clears), so nothing outside the buffer is read.
 * Inputs shorter than one vector use the scalar code. */
#include <immintrin.h>

#include "../kernels.h"

#define FLUSH_STEPS 8192

struct acc2 {
    __m256i a, b;
};

static inline __attribute__((always_inline)) void acc_add(struct acc2 *x, __m256i v)
{
    x->a = _mm256_add_epi32(x->a, v);
    x->b = _mm256_add_epi32(x->b, _mm256_srli_epi32(v, 16));
}

/* Moves the exact lane sums of x into the 64-bit lanes of t and clears x. */
static inline __attribute__((always_inline)) __m256i acc_flush(struct acc2 *x, __m256i t)
{
    const __m256i low32 = _mm256_set1_epi64x(0xFFFFFFFF);
    __m256i lo = _mm256_sub_epi32(x->a, _mm256_slli_epi32(x->b, 16));
    t = _mm256_add_epi64(t, _mm256_and_si256(lo, low32));
    t = _mm256_add_epi64(t, _mm256_srli_epi64(lo, 32));
    t = _mm256_add_epi64(t, _mm256_and_si256(x->b, low32));
    t = _mm256_add_epi64(t, _mm256_srli_epi64(x->b, 32));
    x->a = x->b = _mm256_setzero_si256();
    return t;
}

static inline __attribute__((always_inline)) __m256i load_copy(const uint8_t *s, uint8_t *d,
                                                               const int copy)
{
    __m256i v = _mm256_loadu_si256((const __m256i *)s);
    if (copy)
        _mm256_storeu_si256((__m256i *)d, v);
    return v;
}

/* 32 zero bytes then 32 0xFF bytes: loading 32 bytes at offset k keeps the last k bytes. */
static const uint8_t tail_mask[64] __attribute__((aligned(64))) = {
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
};

static inline __attribute__((always_inline)) uint32_t sum_avx2(uint8_t *dst, const uint8_t *src,
                                                              size_t len, uint32_t sum, const int copy)
{
    if (len < 32) {
        if (copy && len) /* memcpy's pointers must be valid even for 0 bytes */
            memcpy(dst, src, len);
        return ics_partial_small(src, len, sum);
    }
    const uint8_t *const end = src + len;
    struct acc2 x = {_mm256_setzero_si256(), _mm256_setzero_si256()};
    struct acc2 y = x;
    __m256i t = _mm256_setzero_si256();

    while (len >= 128) {
        size_t steps = len / 128;
        if (steps > FLUSH_STEPS)
            steps = FLUSH_STEPS;
        len -= steps * 128;
        do {
            __m256i v0 = load_copy(src, dst, copy);
            __m256i v1 = load_copy(src + 32, dst + 32, copy);
            __m256i v2 = load_copy(src + 64, dst + 64, copy);
            __m256i v3 = load_copy(src + 96, dst + 96, copy);
            acc_add(&x, v0);
            acc_add(&y, v1);
            acc_add(&x, v2);
            acc_add(&y, v3);
            src += 128;
            dst += 128;
        } while (--steps);
        if (len >= 128) { /* another full chunk follows: make room */
            t = acc_flush(&x, t);
            t = acc_flush(&y, t);
        }
    }
    /* Now len < 128.  x and y hold at most 2 * FLUSH_STEPS vectors each; the four more the tail
     * may add to the merged pair keep its lanes below 2^32 (2 * (2^14 + 4) * 0xFFFF < 2^32). */
    x.a = _mm256_add_epi32(x.a, y.a);
    x.b = _mm256_add_epi32(x.b, y.b);
    for (; len >= 32; len -= 32, src += 32, dst += 32)
        acc_add(&x, load_copy(src, dst, copy));
    uint64_t odd = 0;
    if (len & 1)
        odd = ics_odd_byte(end[-1]);
    size_t even = len & ~(size_t)1;
    if (even) {
        /* The 32 bytes ending at the last even byte start an even distance from buf, so the
         * pairing of bytes into words is unchanged. */
        __m256i v = _mm256_loadu_si256((const __m256i *)(src + even - 32));
        __m256i m = _mm256_loadu_si256((const __m256i *)(tail_mask + even));
        acc_add(&x, _mm256_and_si256(v, m));
    }
    if (copy && len)
        _mm256_storeu_si256((__m256i *)(dst + len - 32), _mm256_loadu_si256((const __m256i *)(end - 32)));
    t = acc_flush(&x, t);

    __m128i h = _mm_add_epi64(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
    uint64_t total = ics_add64((uint64_t)_mm_cvtsi128_si64(h), (uint64_t)_mm_extract_epi64(h, 1));
    return ics_reduce64(ics_add64(ics_add64(total, sum), odd));
}

uint32_t ics_partial_avx2(const void *buf, size_t len, uint32_t sum)
{
    /* dst is never written when copy == 0; passing buf keeps the pointer arithmetic defined. */
    return sum_avx2((uint8_t *)(uintptr_t)buf, (const uint8_t *)buf, len, sum, 0);
}

uint32_t ics_copy_avx2(void *dst, const void *src, size_t len, uint32_t sum)
{
    return sum_avx2((uint8_t *)dst, (const uint8_t *)src, len, sum, 1);
}
