/* AVX2 kernel (compiled with -mavx2; only called when the CPU and OS support AVX2).
 *
 * Widening by multiply-add: each 16-bit word w is biased into signed range (w ^ 0x8000 reads as
 * w - 32768), vpmaddwd against ones adds adjacent biased words into a signed 32-bit lane, and the
 * bias, 32768 for every word loaded, is added back once at the end.  The XOR takes its operand
 * straight from memory, so a vector costs three macro-ops (load+xor, madd, add).  On Zen 3 the
 * loop is bound by macro-op dispatch, not by any one unit: measured at 0.61 TSC ticks per vector
 * against 0.77 for the shift-based widening (add, shift, add; four macro-ops).
 *
 * Bounds: a vector moves a lane by at most 2^16 either way.  A chunk of FLUSH_STEPS = 2^9 steps of
 * four vectors, plus the tail's four, moves a lane of the merged accumulator by at most 2^27.1, and
 * the eight lanes' total by at most 2^30.1: it is added into a 64-bit scalar total before anything
 * can overflow.
 *
 * Tails: full vectors, then the last < 32 bytes with one load that ends at the buffer's end, the
 * bytes already summed cleared by a mask (cleared words count as words of bias like any other), a
 * lone odd byte added in scalar code.  Nothing outside the buffer is read or written.  Inputs under
 * 32 bytes use the scalar code. */
#include <immintrin.h>

#include "../kernels.h"

#define FLUSH_STEPS 512

/* 32 zero bytes then 32 0xFF bytes: loading 32 bytes at offset k keeps the last k bytes. */
static const uint8_t tail_mask[64] __attribute__((aligned(64))) = {
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
};

/* The biased pair sums of one vector: eight signed lanes. */
static inline __attribute__((always_inline)) __m256i pairs(__m256i v)
{
    return _mm256_madd_epi16(_mm256_xor_si256(v, _mm256_set1_epi16((short)0x8000)), _mm256_set1_epi16(1));
}

static inline __attribute__((always_inline)) __m256i load_copy(const uint8_t *s, uint8_t *d,
                                                               const int copy)
{
    __m256i v = _mm256_loadu_si256((const __m256i *)s);
    if (copy)
        _mm256_storeu_si256((__m256i *)d, v);
    return v;
}

/* Sum of eight signed 32-bit lanes whose total fits in int32 (see the bounds above). */
static inline __attribute__((always_inline)) int64_t hsum(__m256i v)
{
    __m128i x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, _MM_SHUFFLE(1, 0, 3, 2)));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1)));
    return (int32_t)_mm_cvtsi128_si32(x);
}

/* One step of the main loop: four vectors summed into four accumulators.  Written out because
 * GCC 12 copies each accumulator once per step when this is written with intrinsics (a
 * register-allocation artifact); the loop is bound by macro-op dispatch, so the copies cost a
 * quarter of its speed.  In/out operands keep the accumulators in place.
 * The summing step folds each load into its XOR: three macro-ops per vector.  The copying step
 * loads, stores, then biases in the register: five macro-ops per vector, with one store per vector
 * as the bound (as for memcpy).  Both end with the same widening and accumulation. */
#define MADD_ACCUMULATE4                                                                           \
    "vpmaddwd %[ones], %[t0], %[t0]\n\t"                                                            \
    "vpmaddwd %[ones], %[t1], %[t1]\n\t"                                                            \
    "vpmaddwd %[ones], %[t2], %[t2]\n\t"                                                            \
    "vpmaddwd %[ones], %[t3], %[t3]\n\t"                                                            \
    "vpaddd %[t0], %[a0], %[a0]\n\t"                                                                \
    "vpaddd %[t1], %[a1], %[a1]\n\t"                                                                \
    "vpaddd %[t2], %[a2], %[a2]\n\t"                                                                \
    "vpaddd %[t3], %[a3], %[a3]"
#define STEP_OUTPUTS(acc)                                                                          \
    [a0] "+x"(acc[0]), [a1] "+x"(acc[1]), [a2] "+x"(acc[2]), [a3] "+x"(acc[3]), [t0] "=&x"(t0),     \
        [t1] "=&x"(t1), [t2] "=&x"(t2), [t3] "=&x"(t3)

static inline __attribute__((always_inline)) void step_sum(const uint8_t *src, __m256i bias, __m256i ones,
                                                           __m256i acc[4])
{
    __m256i t0, t1, t2, t3; /* scratch; separate variables, or GCC keeps them in memory */
    __asm__("vpxor 0(%[s]), %[bias], %[t0]\n\t"
            "vpxor 32(%[s]), %[bias], %[t1]\n\t"
            "vpxor 64(%[s]), %[bias], %[t2]\n\t"
            "vpxor 96(%[s]), %[bias], %[t3]\n\t" MADD_ACCUMULATE4
            : STEP_OUTPUTS(acc)
            : [s] "r"(src), [bias] "x"(bias), [ones] "x"(ones), "m"(*(const uint8_t(*)[128])src));
}

static inline __attribute__((always_inline)) void step_copy(const uint8_t *src, uint8_t *dst, __m256i bias,
                                                            __m256i ones, __m256i acc[4])
{
    __m256i t0, t1, t2, t3; /* scratch; separate variables, or GCC keeps them in memory */
    __asm__("vmovdqu 0(%[s]), %[t0]\n\t"
            "vmovdqu 32(%[s]), %[t1]\n\t"
            "vmovdqu 64(%[s]), %[t2]\n\t"
            "vmovdqu 96(%[s]), %[t3]\n\t"
            "vmovdqu %[t0], 0(%[d])\n\t"
            "vmovdqu %[t1], 32(%[d])\n\t"
            "vmovdqu %[t2], 64(%[d])\n\t"
            "vmovdqu %[t3], 96(%[d])\n\t"
            "vpxor %[t0], %[bias], %[t0]\n\t"
            "vpxor %[t1], %[bias], %[t1]\n\t"
            "vpxor %[t2], %[bias], %[t2]\n\t"
            "vpxor %[t3], %[bias], %[t3]\n\t" MADD_ACCUMULATE4
            : STEP_OUTPUTS(acc), "=m"(*(uint8_t(*)[128])dst)
            : [s] "r"(src), [d] "r"(dst), [bias] "x"(bias), [ones] "x"(ones),
              "m"(*(const uint8_t(*)[128])src));
}

static inline __attribute__((always_inline)) uint32_t sum_avx2(uint8_t *dst, const uint8_t *src,
                                                              size_t len, uint32_t sum, const int copy)
{
    if (len < 32)
        return copy ? ics_copy_small(dst, src, len, sum) : ics_partial_small(src, len, sum);
    const uint8_t *const end = src + len;
    /* Vectors loaded, each 16 words of bias: the full ones plus the masked tail if any. */
    const uint64_t vectors = len / 32 + ((len & 31) > 1);
    __m256i acc = _mm256_setzero_si256();
    int64_t total = 0; /* signed: the lanes hold biased sums */

    while (len >= 128) {
        size_t steps = len / 128;
        if (steps > FLUSH_STEPS)
            steps = FLUSH_STEPS;
        len -= steps * 128;
        /* Fresh accumulators per chunk keep the loop free of register copies. */
        __m256i a[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                        _mm256_setzero_si256()};
        const __m256i bias = _mm256_set1_epi16((short)0x8000), ones = _mm256_set1_epi16(1);
        do {
            if (copy)
                step_copy(src, dst, bias, ones, a);
            else
                step_sum(src, bias, ones, a);
            src += 128;
            dst += 128;
        } while (--steps);
        acc = _mm256_add_epi32(acc, _mm256_add_epi32(_mm256_add_epi32(a[0], a[1]), _mm256_add_epi32(a[2], a[3])));
        if (len >= 128) { /* another full chunk follows: make room */
            total += hsum(acc);
            acc = _mm256_setzero_si256();
        }
    }
    /* Now len < 128: up to three full vectors and a partial one. */
    for (; len >= 32; len -= 32, src += 32, dst += 32)
        acc = _mm256_add_epi32(acc, pairs(load_copy(src, dst, copy)));
    uint64_t odd = 0;
    if (len & 1)
        odd = ics_odd_byte(end[-1]);
    size_t even = len & ~(size_t)1;
    if (even) {
        /* The 32 bytes ending at the last even byte start an even distance from buf, so the
         * pairing of bytes into words is unchanged. */
        __m256i v = _mm256_loadu_si256((const __m256i *)(src + even - 32));
        __m256i m = _mm256_loadu_si256((const __m256i *)(tail_mask + even));
        acc = _mm256_add_epi32(acc, pairs(_mm256_and_si256(v, m)));
    }
    if (copy && len)
        _mm256_storeu_si256((__m256i *)(dst + len - 32), _mm256_loadu_si256((const __m256i *)(end - 32)));
    total += hsum(acc);

    /* The true word sum is a nonnegative integer below 2^63, so wrapping arithmetic is exact. */
    uint64_t words = (uint64_t)total + (vectors << 19); /* 16 words * 32768 per vector */
    ICS_ADC2(words, sum, odd);
    return ics_reduce64_x86(words);
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
