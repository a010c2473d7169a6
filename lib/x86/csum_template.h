/* The x86 vector sum kernels' template: eight independent accumulators, one horizontal reduction,
 * the sum and the fused copy from the same code.  Each instance (csum_avx512*.c, csum_avx2.c,
 * csum_avxvnni.c, and the SIMDe builds the tests use on CPUs without the instructions) sets,
 * before including it:
 *   VEC_BYTES   64 (zmm) or 32 (ymm);
 *   MASKED      1: AVX-512BW byte masks (on ymm through AVX-512VL): loads aligned, ends masked;
 *               0: no masks (AVX2, AVX-VNNI): unaligned loads, the tail by one overlapping load;
 *   WIDEN_VNNI  1: one vpdpwssd per vector (VNNI_VEX 1 for the VEX-encoded AVX-VNNI form);
 *               0: vpmaddwd then vpaddd;
 *   WIDEN_SPLIT 1 (masked only, instead of the two above): each 32-bit lane's two words added into
 *               it as they are, the high one shifted down, the low one masked (vpsrld, vpandd, two
 *               vpaddd): no multiply, no bias.  Four simple operations a vector where the others
 *               have two; its short path is the cheaper, so Zen 5's row copies with it below
 *               512 B (lib/tuning.c); longer copies and summing alone, it is the slower;
 *   KERNEL(op)  the instance's function names (op is partial or copy).
 *
 * How it sums.  Each 16-bit word w is biased into signed range (w ^ 0x8000 reads as w - 32768 in
 * int16), and adjacent biased words are added into a signed 32-bit lane (vpdpwssd against ones, or
 * vpmaddwd against ones then vpaddd).  Every vector loaded counts VEC_BYTES/2 words of bias, added
 * back once at the end in scalar code, masked-out or cleared bytes included (a zero word biases
 * like any other).  The XOR takes its operand from memory, so a vector costs a load+xor and a dot
 * product (and an add without VNNI).
 *
 * Why aligned loads (MASKED).  Loads are aligned down to the vector width (of the destination when
 * copying: its stores are the bound there), so no load splits a cache line, whatever the start
 * address.  The first and last vectors are byte-masked: masked-out bytes are neither read (no
 * fault, no access) nor written, so exactly [src, src+len) is read and [dst, dst+len) written.
 * When the aligned start is an odd distance before the data, every byte pairs with the other
 * neighbour: the sum is then the byte-swapped one, put right by rotating the 32-bit result by 8
 * bits (RFC 1071 2(B); 2^24 = 2^8 mod 0xFFFF).  Without masks an aligned start would read bytes
 * before the buffer, so those instances load from the start as it is and end with one load that
 * finishes at the last even byte, the bytes already summed cleared by AND with a mask (an even
 * distance from the start, so the pairing holds), a lone last byte added in scalar code; inputs
 * under one vector go to the scalar code.
 *
 * Why eight accumulators.  vpdpwssd has 4-5 cycles of latency and issues once or twice a cycle:
 * fewer chains leave the loop latency-bound (the previous AVX-512 kernel's two ran at about half
 * speed; four ran 10% slower at 9000 B on Zen 4).
 *
 * Exactness.  Lanes wrap mod 2^32, and the chains are added together mod 2^32; that is exact as
 * long as the true total of what is being added lies in int32.  A vector moves the total by at most
 * VEC_BYTES/2 * 32768 = VEC_BYTES * 2^14 either way, so CHUNK_VECTORS of them (plus the at most
 * ten the ends and remainders add) stay under 2^30.  Each chunk's total goes into a 64-bit scalar
 * before the next chunk starts.  Split: lanes only grow, a vector adding at most VEC_BYTES/2 *
 * 65535 to their total, so a chunk's (plus ten) stays under 2^32 and is read as unsigned (HSUM). */
#include "../kernels.h"

#if VEC_BYTES == 64
typedef __m512i vec;
typedef __mmask64 vmask;
#define V_AND(a, b) _mm512_and_si512(a, b)
#define V_ZERO() _mm512_setzero_si512()
#define V_LOAD(p) _mm512_load_si512((const void *)(p))
#define V_LOADU(p) _mm512_loadu_si512((const void *)(p))
#define V_STORE(p, v) _mm512_store_si512((void *)(p), v)
#define V_STORE_UNALIGNED(p, v) _mm512_storeu_si512((void *)(p), v)
#define V_MASKZ_LOADU(m, p) _mm512_maskz_loadu_epi8(m, (const void *)(p))
#define V_MASK_STOREU(p, m, v) _mm512_mask_storeu_epi8((void *)(p), m, v)
#define V_XOR(a, b) _mm512_xor_si512(a, b)
#define V_ADD32(a, b) _mm512_add_epi32(a, b)
#define V_SET16(x) _mm512_set1_epi16((short)(x))
#define V_DPWSSD(acc, a, b) _mm512_dpwssd_epi32(acc, a, b)
#define V_MADD(a, b) _mm512_madd_epi16(a, b)
#define LOG2_VEC 6
#else
typedef __m256i vec;
typedef __mmask32 vmask;
#define V_AND(a, b) _mm256_and_si256(a, b)
#define V_ZERO() _mm256_setzero_si256()
#define V_LOAD(p) _mm256_load_si256((const __m256i *)(p))
#define V_LOADU(p) _mm256_loadu_si256((const __m256i *)(p))
#define V_STORE(p, v) _mm256_store_si256((__m256i *)(p), v)
#define V_STORE_UNALIGNED(p, v) _mm256_storeu_si256((__m256i *)(p), v)
#define V_MASKZ_LOADU(m, p) _mm256_maskz_loadu_epi8(m, (const void *)(p))
#define V_MASK_STOREU(p, m, v) _mm256_mask_storeu_epi8((void *)(p), m, v)
#define V_XOR(a, b) _mm256_xor_si256(a, b)
#define V_ADD32(a, b) _mm256_add_epi32(a, b)
#define V_SET16(x) _mm256_set1_epi16((short)(x))
#if VNNI_VEX
#define V_DPWSSD(acc, a, b) _mm256_dpwssd_avx_epi32(acc, a, b)
#else
#define V_DPWSSD(acc, a, b) _mm256_dpwssd_epi32(acc, a, b)
#endif
#define V_MADD(a, b) _mm256_madd_epi16(a, b)
#define LOG2_VEC 5
#endif

/* 2^30 / (VEC_BYTES * 2^14): 1024 zmm (64 KiB) or 2048 ymm vectors per chunk. */
#define CHUNK_VECTORS ((size_t)1 << (16 - LOG2_VEC))
/* Independent chains in the main loop: eight for AVX-512 (32 registers; vpdpwssd's latency), four
 * where only 16 vector registers exist and the chain is one vpaddd (AVX2: with eight, GCC 12 spills
 * accumulators to the stack inside the loop). */
#ifndef ACCS
#define ACCS 8
#endif
#ifndef VNNI_VEX
#define VNNI_VEX 0
#endif
#ifndef WIDEN_SPLIT
#define WIDEN_SPLIT 0
#endif
#if WIDEN_SPLIT && !MASKED
#error "WIDEN_SPLIT is written for the masked kernels only"
#endif
/* How many vectors copies may take through the masked short path's four chains in a loop
 * (copy_mid below), or 0. */
#ifndef MID_COPY_VECTORS
#define MID_COPY_VECTORS 0
#endif
#if MID_COPY_VECTORS && (!MASKED || WIDEN_SPLIT)
#error "MID_COPY_VECTORS is written for the masked multiply-add kernels only"
#endif
/* The bias n vectors loaded add (VEC_BYTES/2 words of 2^15 each), added back at the end; none
 * when the words are added as they are. */
#define VEC_BIAS(n) (WIDEN_SPLIT ? 0 : (n) << (LOG2_VEC - 1 + 15))

/* The two constants (split: the low word of each 32-bit lane, and an unused one), made once per
 * call and kept in registers: left visible, GCC 12 rebuilds them
 * (mov, vpbroadcastd) before every use in the tail code, which doubled the cost of a 256-byte sum
 * on Zen 4, where each zmm broadcast takes two of the four vector pipes' slots. */
struct consts {
    vec bias, ones;
};
static inline __attribute__((always_inline)) struct consts consts_make(void)
{
#if WIDEN_SPLIT
    struct consts k = {_mm512_set1_epi32(0xFFFF), V_ZERO()};
#else
    struct consts k = {V_SET16(0x8000), V_SET16(1)};
#endif
#if !defined(ICS_EMULATE_AVX512)
    __asm__("" : "+v"(k.bias), "+v"(k.ones));
#endif
    return k;
}

/* acc + the biased pair sums of v. */
static inline __attribute__((always_inline)) vec widen(const struct consts *k, vec acc, vec v)
{
#if WIDEN_SPLIT /* (bias: the low-word mask) */
    return V_ADD32(V_ADD32(acc, V_AND(v, k->bias)), _mm512_srli_epi32(v, 16));
#elif WIDEN_VNNI
    return V_DPWSSD(acc, V_XOR(v, k->bias), k->ones);
#else
    return V_ADD32(acc, V_MADD(V_XOR(v, k->bias), k->ones));
#endif
}

/* The sum of the 32-bit lanes, mod 2^32 (exact when the true total lies in int32; split: in
 * uint32, which HSUM reads it as). */
static inline __attribute__((always_inline)) int32_t hsum(vec v)
{
#if VEC_BYTES == 64
    __m256i y = _mm256_add_epi32(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
#else
    __m256i y = v;
#endif
    __m128i x = _mm_add_epi32(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));
    x = _mm_add_epi32(x, _mm_unpackhi_epi64(x, x));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 1));
    return _mm_cvtsi128_si32(x);
}

#if WIDEN_SPLIT
#define HSUM(v) ((int64_t)(uint32_t)hsum(v))
#else
#define HSUM(v) ((int64_t)hsum(v))
#endif

/* One full vector.  MASKED: from the aligned source, or (copying) from anywhere in the source
 * into an aligned destination; otherwise from and to anywhere. */
static inline __attribute__((always_inline)) vec take(const uint8_t *s, uint8_t *d, const int copy)
{
#if MASKED
    if (!copy)
        return V_LOAD(s);
    vec v = V_LOADU(s);
    V_STORE(d, v);
#else
    vec v = V_LOADU(s);
    if (copy)
        V_STORE_UNALIGNED(d, v);
#endif
    return v;
}

#if MASKED
static inline __attribute__((always_inline)) vec take_masked(vmask m, const uint8_t *s, uint8_t *d,
                                                            const int copy)
{
    vec v = V_MASKZ_LOADU(m, s);
    if (copy)
        V_MASK_STOREU(d, m, v);
    return v;
}
#endif

/* The 64-bit total, bias added back, put into the seed's pairing; `vectors` is how many were
 * loaded, each VEC_BYTES/2 words of bias 2^15. */
static inline __attribute__((always_inline)) uint32_t finish(int64_t total, uint64_t vectors, size_t head,
                                                             uint32_t sum)
{
    /* The true word sum is a nonnegative integer below 2^63: wrapping arithmetic is exact. */
    uint32_t r = ics_reduce64_x86((uint64_t)total + VEC_BIAS(vectors));
    const unsigned rot = (unsigned)(head & 1) << 3; /* 0, or 8 to undo the swapped pairing */
    r = (r >> rot) | (r << ((32 - rot) & 31));
    return ics_add32(r, sum);
}

/* One vector from s (to d when copying) into accumulator a, written out in asm.  With intrinsics
 * GCC 12 computes each new accumulator (vpdpwssd and vpaddd overwrite an input) in another
 * register and copies it back every step: the AVX-512 VNNI loops held 16 zmm copies per eight
 * vectors, each taking vector-pipe slots the loop is bound by, and the AVX2 loop lost 10% at
 * 4-9 KiB on Zen 4 (a quarter on Zen 3); an empty asm barrier does not stop it.  An in/out operand
 * keeps the accumulator where it is.  Summing, the load folds into the XOR; copying, the vector is
 * loaded, stored (aligned with masks: the destination is aligned then), then biased in the
 * register.  The SIMDe builds keep the intrinsics. */
#if !defined(ICS_EMULATE_AVX512)
#define STEP_ASM 1
#if VEC_BYTES == 64
typedef __m512i_u vec_unaligned;
#else
typedef __m256i_u vec_unaligned;
#endif
#if MASKED /* EVEX forms: any of the 32 vector registers */
#define ASM_VREG "v"
#define ASM_XOR "vpxord"
#define ASM_LOAD "vmovdqu64"
#define ASM_STORE "vmovdqa64"
#else
#define ASM_VREG "x"
#define ASM_XOR "vpxor"
#define ASM_LOAD "vmovdqu"
#define ASM_STORE "vmovdqu"
#endif
#if WIDEN_VNNI && VNNI_VEX
#define ASM_WIDEN "%{vex%} vpdpwssd %[ones], %[t], %[a]"
#elif WIDEN_VNNI
#define ASM_WIDEN "vpdpwssd %[ones], %[t], %[a]"
#else
#define ASM_WIDEN "vpmaddwd %[ones], %[t], %[t]\n\tvpaddd %[t], %[a], %[a]"
#endif
#else
#define STEP_ASM 0
#endif

static inline __attribute__((always_inline)) vec step(const struct consts *k, vec a, const uint8_t *s, uint8_t *d,
                                                      const int copy)
{
#if STEP_ASM && WIDEN_SPLIT
    vec t, u;
    if (copy)
        __asm__("vmovdqu64 %[m], %[t]\n\tvmovdqa64 %[t], %[o]\n\tvpsrld $16, %[t], %[u]\n\tvpandd %[lo], %[t], %[t]\n\t"
                "vpaddd %[t], %[a], %[a]\n\tvpaddd %[u], %[a], %[a]"
                : [a] "+v"(a), [t] "=&v"(t), [u] "=&v"(u), [o] "=m"(*(vec_unaligned *)d)
                : [m] "m"(*(const vec_unaligned *)s), [lo] "v"(k->bias));
    else
        __asm__("vpsrld $16, %[m], %[u]\n\tvpandd %[m], %[lo], %[t]\n\tvpaddd %[t], %[a], %[a]\n\tvpaddd %[u], %[a], %[a]"
                : [a] "+v"(a), [t] "=&v"(t), [u] "=&v"(u)
                : [m] "m"(*(const vec_unaligned *)s), [lo] "v"(k->bias));
    return a;
#elif STEP_ASM
    vec t;
    if (copy)
        __asm__(ASM_LOAD " %[m], %[t]\n\t" ASM_STORE " %[t], %[o]\n\t" ASM_XOR " %[t], %[bias], %[t]\n\t" ASM_WIDEN
                : [a] "+" ASM_VREG(a), [t] "=&" ASM_VREG(t), [o] "=m"(*(vec_unaligned *)d)
                : [m] "m"(*(const vec_unaligned *)s), [bias] ASM_VREG(k->bias), [ones] ASM_VREG(k->ones));
    else
        __asm__(ASM_XOR " %[m], %[bias], %[t]\n\t" ASM_WIDEN
                : [a] "+" ASM_VREG(a), [t] "=&" ASM_VREG(t)
                : [m] "m"(*(const vec_unaligned *)s), [bias] ASM_VREG(k->bias), [ones] ASM_VREG(k->ones));
    return a;
#else
    return widen(k, a, take(s, d, copy));
#endif
}

#if MID_COPY_VECTORS
/* One vector from s to d (any alignment) into chain a: step() with an unaligned store. */
static inline __attribute__((always_inline)) vec step_copy_unaligned(const struct consts *k, vec a, const uint8_t *s,
                                                                     uint8_t *d)
{
#if STEP_ASM
    vec t;
    __asm__(ASM_LOAD " %[m], %[t]\n\tvmovdqu64 %[t], %[o]\n\t" ASM_XOR " %[t], %[bias], %[t]\n\t" ASM_WIDEN
            : [a] "+" ASM_VREG(a), [t] "=&" ASM_VREG(t), [o] "=m"(*(vec_unaligned *)d)
            : [m] "m"(*(const vec_unaligned *)s), [bias] ASM_VREG(k->bias), [ones] ASM_VREG(k->ones));
    return a;
#else
    const vec v = V_LOADU(s);
    V_STORE_UNALIGNED(d, v);
    return widen(k, a, v);
#endif
}
#endif

/* `full` whole vectors from *s (and to *d): ACCS chains in chunks of CHUNK_VECTORS, then the last
 * (4,) 2 and 1 into four of them.  Adds into acc[0..3] (acc[0] may hold one vector already),
 * advances *s and *d, and returns what it banked in 64 bits. */
static inline __attribute__((always_inline)) int64_t body(const struct consts *k, const uint8_t **sp, uint8_t **dp,
                                                          size_t full, vec acc[4], const int copy)
{
    const uint8_t *s = *sp;
    uint8_t *d = *dp;
    vec a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    int64_t total = 0;
    if (full >= ACCS) {
#if ACCS == 8
        vec a4 = V_ZERO(), a5 = V_ZERO(), a6 = V_ZERO(), a7 = V_ZERO();
#endif
        for (;;) {
            size_t steps = full / ACCS;
            if (steps > CHUNK_VECTORS / ACCS)
                steps = CHUNK_VECTORS / ACCS;
            full -= steps * ACCS;
            do {
                a0 = step(k, a0, s, d, copy);
                a1 = step(k, a1, s + VEC_BYTES, d + VEC_BYTES, copy);
                a2 = step(k, a2, s + 2 * VEC_BYTES, d + 2 * VEC_BYTES, copy);
                a3 = step(k, a3, s + 3 * VEC_BYTES, d + 3 * VEC_BYTES, copy);
#if ACCS == 8
                a4 = step(k, a4, s + 4 * VEC_BYTES, d + 4 * VEC_BYTES, copy);
                a5 = step(k, a5, s + 5 * VEC_BYTES, d + 5 * VEC_BYTES, copy);
                a6 = step(k, a6, s + 6 * VEC_BYTES, d + 6 * VEC_BYTES, copy);
                a7 = step(k, a7, s + 7 * VEC_BYTES, d + 7 * VEC_BYTES, copy);
#endif
                s += ACCS * VEC_BYTES;
                d += ACCS * VEC_BYTES;
            } while (--steps);
#if ACCS == 8
            a0 = V_ADD32(a0, a4);
            a1 = V_ADD32(a1, a5);
            a2 = V_ADD32(a2, a6);
            a3 = V_ADD32(a3, a7);
#endif
            if (full < ACCS)
                break;
            /* Another whole chunk follows: bank this one before the lanes could leave int32. */
            total += HSUM(V_ADD32(V_ADD32(a0, a1), V_ADD32(a2, a3)));
            a0 = a1 = a2 = a3 = V_ZERO();
#if ACCS == 8
            a4 = a5 = a6 = a7 = V_ZERO();
#endif
        }
    }
#if ACCS == 8
    if (full & 4) {
        a0 = step(k, a0, s, d, copy);
        a1 = step(k, a1, s + VEC_BYTES, d + VEC_BYTES, copy);
        a2 = step(k, a2, s + 2 * VEC_BYTES, d + 2 * VEC_BYTES, copy);
        a3 = step(k, a3, s + 3 * VEC_BYTES, d + 3 * VEC_BYTES, copy);
        s += 4 * VEC_BYTES;
        d += 4 * VEC_BYTES;
    }
#endif
    if (full & 2) {
        a2 = step(k, a2, s, d, copy);
        a3 = step(k, a3, s + VEC_BYTES, d + VEC_BYTES, copy);
        s += 2 * VEC_BYTES;
        d += 2 * VEC_BYTES;
    }
    if (full & 1) {
        a1 = step(k, a1, s, d, copy);
        s += VEC_BYTES;
        d += VEC_BYTES;
    }
    acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
    *sp = s;
    *dp = d;
    return total;
}

/* Short inputs (sum_short below, issue 27): one vector from anywhere (to anywhere). */
static inline __attribute__((always_inline)) vec take_unaligned(const uint8_t *s, uint8_t *d, const int copy)
{
    vec v = V_LOADU(s);
    if (copy)
        V_STORE_UNALIGNED(d, v);
    return v;
}

/* The first vector of a chain: vpmaddwd needs no accumulator to wait for. */
static inline __attribute__((always_inline)) vec widen_first(const struct consts *k, vec v)
{
#if WIDEN_SPLIT
    return V_ADD32(V_AND(v, k->bias), _mm512_srli_epi32(v, 16));
#else
    return V_MADD(V_XOR(v, k->bias), k->ones);
#endif
}

/* The short paths' four chains: vectors i .. full-1 from s (to d when copying), four at a time,
 * then two, then one. */
struct chains4 {
    vec a, b, c, e;
};
static inline __attribute__((always_inline)) struct chains4 four_chains(const struct consts *k, struct chains4 q,
                                                                       const uint8_t *s, uint8_t *d, size_t i,
                                                                       size_t full, const int copy)
{
    for (; i + 4 <= full; i += 4) {
        q.a = widen(k, q.a, take_unaligned(s + i * VEC_BYTES, d + i * VEC_BYTES, copy));
        q.b = widen(k, q.b, take_unaligned(s + (i + 1) * VEC_BYTES, d + (i + 1) * VEC_BYTES, copy));
        q.c = widen(k, q.c, take_unaligned(s + (i + 2) * VEC_BYTES, d + (i + 2) * VEC_BYTES, copy));
        q.e = widen(k, q.e, take_unaligned(s + (i + 3) * VEC_BYTES, d + (i + 3) * VEC_BYTES, copy));
    }
    if (i + 2 <= full) {
        q.a = widen(k, q.a, take_unaligned(s + i * VEC_BYTES, d + i * VEC_BYTES, copy));
        q.b = widen(k, q.b, take_unaligned(s + (i + 1) * VEC_BYTES, d + (i + 1) * VEC_BYTES, copy));
        i += 2;
    }
    if (i < full)
        q.c = widen(k, q.c, take_unaligned(s + i * VEC_BYTES, d + i * VEC_BYTES, copy));
    return q;
}

#if MASKED
/* Inputs under SHORT_VECTORS vectors (384 B on zmm, 192 B on ymm) take a path with less fixed cost
 * (issue 27, docs/perf.md): whole vectors loaded from the start as it is (a load may split a cache
 * line; at five loads or fewer that costs less than aligning), the rest by one byte-masked load
 * (masked-out bytes are not read, so nothing outside [src, src+len) is touched), two chains, and a
 * 32-bit end: the biased total lies in int32 and the bias added back fits a uint32 with no fold and,
 * the pairing being the buffer's own, no rotation.  On the Intel guest (Emerald Rapids class) this
 * takes the 512-bit VNNI kernel at 128-255 B from 12.1 to 8.5 TSC ticks and at 256-383 B from 13.3
 * to 10.6 (an aligned-load path with eight chains stays ahead from 384 B: there the split loads add
 * up).
 * An instance may set SHORT_VECTORS higher (avx512vnni_unaligned: 24, to 1,535 B): from six whole
 * vectors on, four chains in a loop.  On the Zen 5 guest split loads cost less than the aligned
 * path's setup up to 1.5 KiB (docs/perf.md, issue 35).  Exact while SHORT_VECTORS vectors move the
 * biased total by less than 2^31 (each at most VEC_BYTES * 2^14). */
#ifndef SHORT_VECTORS
#define SHORT_VECTORS 6
#endif
/* Copies may take the short path further (SHORT_COPY_VECTORS; avx512vnni_unaligned: 48, to 3,071 B;
 * avx512_split: 8, to 511 B): on the Zen 5 guest its four chains copied 1,536-3,071 B 10-16% faster
 * than the aligned path's eight, and split's 384-511 B copies took a quarter less time (docs/perf.md).
 * GCC unrolls the short path whole; a longer one is unrolled differently: split's to 3,071 B lost
 * that gain at 384-511 B, avx512vnni_unaligned's to 8,191 B ran 7% slower at 1,500 B.  So beyond
 * SHORT_COPY_VECTORS, to MID_COPY_VECTORS, copies take the same chains in a loop (copy_mid).  The
 * same bound on exactness holds for the largest of them. */
#ifndef SHORT_COPY_VECTORS
#define SHORT_COPY_VECTORS SHORT_VECTORS
#endif
#define SHORT_MAX_(a, b) ((a) > (b) ? (a) : (b))
_Static_assert((unsigned long long)SHORT_MAX_(SHORT_MAX_(SHORT_VECTORS, SHORT_COPY_VECTORS), MID_COPY_VECTORS) *
                           VEC_BYTES << 14 <
                   (1ull << 31),
               "the short path's 32-bit end would overflow");
#undef SHORT_MAX_
/* The short path's end, after `full` whole vectors in chains a and b: the bytes after them by one
 * byte-masked vector when there are any (an empty masked vector cost as much as one with bytes:
 * 1.2-1.5 TSC ticks a copy on the Zen 5 guest at 256-1,472 B, the copy 1.19 -> 1.10-1.15x memcpy at
 * 1,472 B; docs/perf.md), then the 32-bit total with its bias added back, and the seed. */
static inline __attribute__((always_inline)) uint32_t short_end(const struct consts *k, vec a, vec b, const uint8_t *s,
                                                                uint8_t *d, size_t len, size_t full, uint32_t sum,
                                                                const int copy)
{
    const size_t done = full << LOG2_VEC;
    size_t loaded = full; /* vectors loaded: each counts VEC_BYTES/2 words of bias */
    if (__builtin_expect(len != done, 1)) {
        const vmask rest = (vmask)(((vmask)1 << (len - done)) - 1);
        b = widen(k, b, take_masked(rest, s + done, d + done, copy));
        loaded++;
    }
    const uint32_t total = (uint32_t)hsum(V_ADD32(a, b)) + (uint32_t)VEC_BIAS(loaded);
    return ics_add32(total, sum);
}

/* Up to five whole vectors from s (to d when copying) into two chains, taking turns: the short
 * path's start, for a count known only when running (the ladder in sum_short) or a constant once
 * inlined (short_block, where the tests fold away). */
struct chains2 {
    vec a, b;
};
static inline __attribute__((always_inline)) struct chains2 two_chains(const struct consts *k, const uint8_t *s,
                                                                       uint8_t *d, size_t n, const int copy)
{
    struct chains2 q = {V_ZERO(), V_ZERO()};
    if (n >= 1)
        q.a = widen_first(k, take_unaligned(s, d, copy));
    if (n >= 2)
        q.b = widen_first(k, take_unaligned(s + VEC_BYTES, d + VEC_BYTES, copy));
    if (n >= 3)
        q.a = widen(k, q.a, take_unaligned(s + 2 * VEC_BYTES, d + 2 * VEC_BYTES, copy));
    if (n >= 4)
        q.b = widen(k, q.b, take_unaligned(s + 3 * VEC_BYTES, d + 3 * VEC_BYTES, copy));
    if (n >= 5)
        q.a = widen(k, q.a, take_unaligned(s + 4 * VEC_BYTES, d + 4 * VEC_BYTES, copy));
    return q;
}

/* Summing the lengths that touch m vectors (m a constant once inlined: 1 to 6): m - 1 whole, then
 * one byte-masked with 1 to VEC_BYTES bytes (never empty, so no branch: at a multiple of the vector
 * its mask is whole), two chains, the 32-bit end of short_end.  d is never written. */
static inline __attribute__((always_inline)) uint32_t short_block(const struct consts *k, uint8_t *d, const uint8_t *s,
                                                                  size_t len, uint32_t sum, const size_t m)
{
    const size_t whole = m - 1;
    const vmask rest = (vmask)(~(vmask)0 >> (VEC_BYTES - (len - (whole << LOG2_VEC))));
    const struct chains2 q = two_chains(k, s, d, whole, 0);
    vec a = q.a, b = q.b;
    const vec last = take_masked(rest, s + (whole << LOG2_VEC), d + (whole << LOG2_VEC), 0);
    if (whole & 1)
        a = widen(k, a, last);
    else if (whole)
        b = widen(k, b, last);
    else
        a = widen_first(k, last);
    return ics_add32((uint32_t)hsum(V_ADD32(a, b)) + (uint32_t)VEC_BIAS(m), sum);
}

static inline __attribute__((always_inline)) uint32_t sum_short(uint8_t *d, const uint8_t *s, size_t len,
                                                                uint32_t sum, const int copy)
{
    const struct consts k = consts_make();
    const size_t full = len >> LOG2_VEC; /* 0 .. SHORT_VECTORS - 1 (copying: SHORT_COPY_VECTORS - 1) */
#if SHORT_VECTORS <= 6
    /* Summing: one block of straight-line code for each count of vectors touched, reached through
     * a chain of compares, the last vector byte-masked even when whole.  The ladder below (the count
     * tested after each vector, its exits taken jumps to an end every count shares, a branch more
     * for an empty masked vector) cost 0.5-0.6 TSC ticks a sum on the Zen 5 guest, 8-12% at
     * 65-255 B (docs/perf.md).  The blocks hold only if the compiler keeps them apart: these
     * kernels are SHORT_BLOCKS in lib/kernels.cmake.  Not for copies (with the same flags the
     * blocks copied as fast at 65-127 B and 6-12% slower at 128-383 B) nor where the short path
     * goes on to four chains (avx512vnni_unaligned: no faster at 65-383 B, 2-7% slower at
     * 256-383 B in one layout). */
    if (!copy) {
        const size_t m = (len + VEC_BYTES - 1) >> LOG2_VEC; /* vectors touched: 0 to 6 */
        if (m == 1)
            return short_block(&k, d, s, len, sum, 1);
        if (m == 2)
            return short_block(&k, d, s, len, sum, 2);
        if (m == 3)
            return short_block(&k, d, s, len, sum, 3);
        if (m == 4)
            return short_block(&k, d, s, len, sum, 4);
        if (m == 5)
            return short_block(&k, d, s, len, sum, 5);
        if (m == 6)
            return short_block(&k, d, s, len, sum, 6);
        return ics_add32(0, sum); /* nothing to sum */
    }
#endif
    vec a = V_ZERO(), b = V_ZERO();
#if SHORT_VECTORS > 6 || SHORT_COPY_VECTORS > 6
    if (full >= 6) {
        const struct chains4 q = four_chains(&k, (struct chains4){a, b, V_ZERO(), V_ZERO()}, s, d, 0, full, copy);
        a = V_ADD32(q.a, q.c);
        b = V_ADD32(q.b, q.e);
    } else
#endif
    {
        const struct chains2 q = two_chains(&k, s, d, full, copy);
        a = q.a;
        b = q.b;
    }
    return short_end(&k, a, b, s, d, len, full, sum, copy);
}

#if MID_COPY_VECTORS
/* Copies of SHORT_COPY_VECTORS to MID_COPY_VECTORS - 1 whole vectors: the short path's four chains
 * in a loop, then its end.  The steps are asm (the short path's intrinsics, compiled by GCC 12 as a
 * loop, copied all four accumulators twice a round), and the four chains are folded into two before
 * the last whole vectors (with all four live after the loop, GCC moved two of them between
 * registers every round). */
_Static_assert(SHORT_COPY_VECTORS >= 4, "copy_mid's loop runs at least once");
static inline __attribute__((always_inline)) uint32_t copy_mid(uint8_t *d, const uint8_t *s, size_t len, uint32_t sum)
{
    const struct consts k = consts_make();
    const size_t full = len >> LOG2_VEC;
    vec a = V_ZERO(), b = V_ZERO(), c = V_ZERO(), e = V_ZERO();
    const uint8_t *p = s;
    uint8_t *q = d;
    size_t rounds = full / 4; /* at least SHORT_COPY_VECTORS / 4 */
    do {
        a = step_copy_unaligned(&k, a, p, q);
        b = step_copy_unaligned(&k, b, p + VEC_BYTES, q + VEC_BYTES);
        c = step_copy_unaligned(&k, c, p + 2 * VEC_BYTES, q + 2 * VEC_BYTES);
        e = step_copy_unaligned(&k, e, p + 3 * VEC_BYTES, q + 3 * VEC_BYTES);
        p += 4 * VEC_BYTES;
        q += 4 * VEC_BYTES;
    } while (--rounds);
    a = V_ADD32(a, c);
    b = V_ADD32(b, e);
    if (full & 2) {
        a = step_copy_unaligned(&k, a, p, q);
        b = step_copy_unaligned(&k, b, p + VEC_BYTES, q + VEC_BYTES);
        p += 2 * VEC_BYTES;
        q += 2 * VEC_BYTES;
    }
    if (full & 1)
        a = step_copy_unaligned(&k, a, p, q);
    return short_end(&k, a, b, s, d, len, full, sum, 1);
}
#endif

/* One buffer from its aligned start (the destination's, when copying; head: the data's offset in
 * that first vector): its biased word sum in 64 bits into *total, and the vectors loaded, for the
 * bias (the general path's body, and each piece of a message in pieces). */
static inline __attribute__((always_inline)) uint64_t sum_aligned(const struct consts *k, uint8_t *dst,
                                                                  const uint8_t *src, size_t len, size_t head,
                                                                  int64_t *total, const int copy)
{
    const uint8_t *s = (const uint8_t *)((uintptr_t)src - head);
    uint8_t *d = (uint8_t *)((uintptr_t)dst - head);
    const size_t span = head + len; /* bytes from the aligned start to the end */
    const uint64_t vectors = (span + VEC_BYTES - 1) >> LOG2_VEC;
    const vmask first = (vmask)~(vmask)0 << head;
    const size_t rest = span & (VEC_BYTES - 1);
    const vmask last = rest ? (vmask)(((vmask)1 << rest) - 1) : (vmask)~(vmask)0;
    if (vectors == 1) {
        *total += HSUM(widen(k, V_ZERO(), take_masked(first & last, s, d, copy)));
        return 1;
    }
    vec acc[4] = {widen(k, V_ZERO(), take_masked(first, s, d, copy)), V_ZERO(), V_ZERO(), V_ZERO()};
    s += VEC_BYTES;
    d += VEC_BYTES;
    /* The aligned vectors between the masked ends, then the masked last one. */
    int64_t t = body(k, &s, &d, (size_t)vectors - 2, acc, copy);
    acc[1] = widen(k, acc[1], take_masked(last, s, d, copy));
    *total += t + HSUM(V_ADD32(V_ADD32(acc[0], acc[1]), V_ADD32(acc[2], acc[3])));
    return vectors;
}

/* The general path: from SHORT_VECTORS vectors up. */
static inline __attribute__((always_inline)) uint32_t sum_long(uint8_t *dst, const uint8_t *src, size_t len,
                                                               uint32_t sum, const int copy)
{
    /* Offset of the data within its first aligned vector (the destination's, when copying). */
    const size_t head = (uintptr_t)(copy ? (const void *)dst : (const void *)src) & (VEC_BYTES - 1);
    const struct consts k = consts_make();
    int64_t total = 0;
    const uint64_t vectors = sum_aligned(&k, dst, src, len, head, &total, copy);
    return finish(total, vectors, head, sum);
}
#else
/* VEC_BYTES zero bytes then VEC_BYTES 0xFF bytes: loading a vector at offset k keeps its last k
 * bytes. */
static const uint8_t tail_mask[2 * VEC_BYTES] __attribute__((aligned(VEC_BYTES))) = {
    [VEC_BYTES ... 2 * VEC_BYTES - 1] = 0xFF,
};

/* Inputs under SHORT_VECTORS vectors (384 B on ymm) take a path with less fixed cost, as the masked
 * kernels' do: four chains started without an accumulator, no chunking, and a 32-bit end (twelve
 * vectors move the biased total by less than 2^24).  The loads are the general path's (from the
 * start as it is, the tail by one load ending at the last even byte).  The AVX2 kernel called
 * directly on the Emerald Rapids guest, the build before and this one side by side (standalone
 * harness, 31 interleaved trials, odd start): 32 B 10.2 -> 7.9 TSC ticks, 128 B 13.3 -> 10.2,
 * 256 B 15.2 -> 12.3, 383 B 18.7 -> 16.1 (Linux's algorithm there: 7.0, 10.9, 18.0, 29.0).  What
 * it does on Zen 3, whose default plan runs this kernel from 256 B, is not measured. */
#define SHORT_VECTORS 12
/* Copies may take this path further (the AVX2 kernel: 32 vectors, to 1,023 B; inline, without the
 * long path's call and chunking): on the Zen 3 guest 384-800 B copies took 12-25% less time, 1-2 KiB
 * the same; to 2 KiB (64) it was unrolled differently and ran 5-13% slower from 1,448 B (docs/perf.md).
 * The 32-bit end stays exact: 32 vectors move the biased total by less than 2^25. */
#ifndef SHORT_COPY_VECTORS
#define SHORT_COPY_VECTORS SHORT_VECTORS
#endif
_Static_assert(SHORT_COPY_VECTORS <= 32, "the short path's 32-bit end is checked to 32 vectors");
static inline __attribute__((always_inline)) uint32_t sum_short(uint8_t *d, const uint8_t *s, size_t len,
                                                                uint32_t sum, const int copy)
{
    const struct consts k = consts_make();
    const uint8_t *const end = s + len;
    const size_t full = len >> LOG2_VEC; /* 1 .. SHORT_VECTORS - 1 (copying: SHORT_COPY_VECTORS - 1;
                                         * partial_short_mid: to 31) */
    const size_t rest = len & (VEC_BYTES - 1), even = rest & ~(size_t)1;
    vec a = widen_first(&k, take_unaligned(s, d, copy)), b = V_ZERO(), c = V_ZERO(), e = V_ZERO();
    if (full >= 2)
        b = widen_first(&k, take_unaligned(s + VEC_BYTES, d + VEC_BYTES, copy));
    if (full >= 3)
        c = widen_first(&k, take_unaligned(s + 2 * VEC_BYTES, d + 2 * VEC_BYTES, copy));
    if (full >= 4) {
        e = widen_first(&k, take_unaligned(s + 3 * VEC_BYTES, d + 3 * VEC_BYTES, copy));
        const struct chains4 q = four_chains(&k, (struct chains4){a, b, c, e}, s, d, 4, full, copy);
        a = q.a, b = q.b, c = q.c, e = q.e;
    }
    if (even) /* as in sum_vec below: the vector ending at the last even byte, what was summed cleared */
        e = widen(&k, e, V_AND(V_LOADU(s + (full << LOG2_VEC) + even - VEC_BYTES), V_LOADU(tail_mask + even)));
    if (copy && rest)
        V_STORE_UNALIGNED(d + len - VEC_BYTES, V_LOADU(end - VEC_BYTES));
    const uint32_t total = (uint32_t)hsum(V_ADD32(V_ADD32(a, b), V_ADD32(c, e))) +
                           ((uint32_t)(full + (even != 0)) << (LOG2_VEC - 1 + 15));
    const uint32_t r = ics_add32(total, sum);
    return (rest & 1) ? ics_add32(r, ics_odd_byte(end[-1])) : r;
}

/* The general path: from SHORT_VECTORS vectors up. */
static inline __attribute__((always_inline)) uint32_t sum_long(uint8_t *dst, const uint8_t *src, size_t len,
                                                               uint32_t sum, const int copy)
{
    const uint8_t *const end = src + len;
    const size_t rest = len & (VEC_BYTES - 1), even = rest & ~(size_t)1;
    /* Vectors loaded, each VEC_BYTES/2 words of bias: the whole ones plus the cleared tail if any. */
    const uint64_t vectors = len / VEC_BYTES + (even != 0);
    const struct consts k = consts_make();
    vec acc[4] = {V_ZERO(), V_ZERO(), V_ZERO(), V_ZERO()};
    const uint8_t *s = src;
    uint8_t *d = dst;
    int64_t total = body(&k, &s, &d, len / VEC_BYTES, acc, copy);
    if (even) {
        /* The vector ending at the last even byte starts an even distance from src, so the pairing
         * of bytes into words is unchanged; the bytes already summed are cleared. */
        vec v = V_AND(V_LOADU(s + even - VEC_BYTES), V_LOADU(tail_mask + even));
        acc[1] = widen(&k, acc[1], v);
    }
    if (copy && rest)
        V_STORE_UNALIGNED(dst + len - VEC_BYTES, V_LOADU(end - VEC_BYTES));
    total += hsum(V_ADD32(V_ADD32(acc[0], acc[1]), V_ADD32(acc[2], acc[3])));
    uint32_t r = finish(total, vectors, 0, sum);
    return (rest & 1) ? ics_add32(r, ics_odd_byte(end[-1])) : r;
}
#endif

/* Without masks (16 vector registers), the general path in functions of their own: inlined beside
 * the short path, GCC 12 allocated the AVX2 loop's accumulators afresh and copied four of them
 * every iteration (the AVX2 kernel at 1,500 B: 62 -> 72 TSC ticks).  The masked kernels' 32
 * registers leave their loop as it was, and there the call would cost 1-2 ticks at 384 B. */
#if MASKED
#define LONG_PATH static inline __attribute__((always_inline))
#else
#define LONG_PATH static __attribute__((noinline))
#endif
LONG_PATH uint32_t long_partial(const uint8_t *src, size_t len, uint32_t sum)
{
    /* dst is never written when copy == 0; passing src keeps the pointer arithmetic defined. */
    return sum_long((uint8_t *)(uintptr_t)src, src, len, sum, 0);
}

#if !MASKED
/* Sums from 1 KiB (partial_short_mid below takes 384-1,023 B) to under 64 KiB, and copies from
 * SHORT_COPY_VECTORS vectors to under ALIGNED_STORES_FROM bytes (below), without the general path's
 * chunks: four chains over 128-byte rounds, folded into two for the last 64 and 32 bytes, the tail
 * as sum_long takes it, and the short path's 32-bit end.  Exact: under 64 KiB at most 2,048 vectors
 * are loaded, each moving the biased total by at most 2^19, so it stays in int32, and the true word
 * sum (under 2^31) in a uint32.  The general path's chunk bookkeeping and 64-bit end cost some 3-5
 * TSC ticks a call on the Zen 3 guest, and its loop ran split loads slower where it was placed.
 * The AVX2 kernel called directly, the two side by side (41 interleaved trials, several starts and
 * destinations): sums 0.87-0.96 of the general path's time at 768-1,500 B, 0.85-1.01 at 2-32 KiB;
 * copies 0.84-0.98 at 1,024-2,047 B (docs/perf.md).  Copies from ALIGNED_STORES_FROM keep the
 * general path (its aligned stores), as does everything from 64 KiB. */
#define UNCHUNKED_BELOW 65536
_Static_assert(SHORT_VECTORS * VEC_BYTES >= 128 && SHORT_COPY_VECTORS * VEC_BYTES >= 128,
               "the unchunked path's loop runs at least once");
_Static_assert((UNCHUNKED_BELOW / VEC_BYTES) * (unsigned long long)VEC_BYTES << 14 < (1ull << 31),
               "the unchunked path's 32-bit end would overflow");
static inline __attribute__((always_inline)) uint32_t sum_unchunked(uint8_t *d, const uint8_t *s, size_t len,
                                                                    uint32_t sum, const int copy)
{
    const uint8_t *const end = s + len;
    uint8_t *const dst_end = d + len;
    const size_t rest = len & (VEC_BYTES - 1), even = rest & ~(size_t)1;
    const uint32_t vectors = (uint32_t)(len >> LOG2_VEC) + (even != 0);
    const struct consts k = consts_make();
    vec a = V_ZERO(), b = V_ZERO(), c = V_ZERO(), e = V_ZERO();
    size_t rounds = len / (4 * VEC_BYTES);
    do {
        a = step(&k, a, s, d, copy);
        b = step(&k, b, s + VEC_BYTES, d + VEC_BYTES, copy);
        c = step(&k, c, s + 2 * VEC_BYTES, d + 2 * VEC_BYTES, copy);
        e = step(&k, e, s + 3 * VEC_BYTES, d + 3 * VEC_BYTES, copy);
        s += 4 * VEC_BYTES;
        d += 4 * VEC_BYTES;
    } while (--rounds);
    a = V_ADD32(a, c);
    b = V_ADD32(b, e);
    if (len & (2 * VEC_BYTES)) {
        a = step(&k, a, s, d, copy);
        b = step(&k, b, s + VEC_BYTES, d + VEC_BYTES, copy);
        s += 2 * VEC_BYTES;
        d += 2 * VEC_BYTES;
    }
    if (len & VEC_BYTES) {
        a = step(&k, a, s, d, copy);
        s += VEC_BYTES;
    }
    if (even) /* as in sum_long: the vector ending at the last even byte, what was summed cleared */
        b = widen(&k, b, V_AND(V_LOADU(s + even - VEC_BYTES), V_LOADU(tail_mask + even)));
    if (copy && rest)
        V_STORE_UNALIGNED(dst_end - VEC_BYTES, V_LOADU(end - VEC_BYTES));
    const uint32_t total = (uint32_t)hsum(V_ADD32(a, b)) + (vectors << (LOG2_VEC - 1 + 15));
    const uint32_t r = ics_add32(total, sum);
    return (rest & 1) ? ics_add32(r, ics_odd_byte(end[-1])) : r;
}

/* Sums from SHORT_VECTORS vectors to under 1 KiB: the short path again, in a function of its own
 * where the bound lets GCC 12 lay its four chains out straight.  On the Zen 3 guest (the AVX2
 * kernel called directly, 41 interleaved trials, four starts, two runs) 0.84-0.99 of the unchunked
 * path's time at 384-1,023 B.  The short path itself taken to 1 KiB (SHORT_VECTORS 32) read
 * 0.72-0.90 there, but its code for 300-383 B was laid out anew and ran 4-11% slower, and the sweep
 * agreed (docs/perf.md). */
#define SHORT_MID_BELOW 1024
_Static_assert(SHORT_MID_BELOW <= 32 * VEC_BYTES, "the short path's 32-bit end is checked to 32 vectors");
static __attribute__((noinline)) uint32_t partial_short_mid(const uint8_t *src, size_t len, uint32_t sum)
{
    if (len >= SHORT_MID_BELOW)
        __builtin_unreachable();
    return sum_short((uint8_t *)(uintptr_t)src, src, len, sum, 0);
}

/* Each in a function of its own, as the general path is (above). */
static __attribute__((noinline)) uint32_t partial_unchunked(const uint8_t *src, size_t len, uint32_t sum)
{
    /* dst is never written when copy == 0; passing src keeps the pointer arithmetic defined. */
    return sum_unchunked((uint8_t *)(uintptr_t)src, src, len, sum, 0);
}

static __attribute__((noinline)) uint32_t copy_unchunked(uint8_t *dst, const uint8_t *src, size_t len, uint32_t sum)
{
    return sum_unchunked(dst, src, len, sum, 1);
}

/* Copies of ALIGNED_STORES_FROM bytes and more to a destination off the vector's alignment: the
 * bytes before its first aligned vector copied by one unaligned vector and summed from it (their
 * first `head` bytes kept), the rest copied from there with aligned stores, its sum put back into
 * the buffer's pairing when head is odd (ics_iov_pair).  Otherwise every other 32-byte store splits
 * a cache line: on the Zen 3 guest copies to a destination 3, 10 or 54 bytes past alignment took
 * 1.24-1.34x memcpy at 9,000 B, 0.90-0.96x this way, and 1.54-1.69x -> 1.28-1.50x at 2,048 B; below
 * 2 KiB the extra vector and sum cost more than the split stores (1,536-1,792 B: 4-17% slower), so
 * shorter copies keep the plain path (docs/perf.md).  Its own function, so that the plain path's
 * code stays as it was. */
#define ALIGNED_STORES_FROM 2048
static __attribute__((noinline)) uint32_t long_copy_aligning(uint8_t *dst, const uint8_t *src, size_t len,
                                                             uint32_t sum)
{
    const size_t head = (size_t)(-(uintptr_t)dst & (VEC_BYTES - 1));
    const struct consts k = consts_make();
    const vec first = V_LOADU(src);
    V_STORE_UNALIGNED(dst, first);
    const vec kept = _mm256_andnot_si256(V_LOADU(tail_mask + VEC_BYTES - head), first);
    uint32_t h = (uint32_t)hsum(widen_first(&k, kept)) + (uint32_t)VEC_BIAS(1);
    /* (h in a register before the rest: left to GCC, the vectors were kept across the loop on a
     * realigned stack) */
    __asm__("" : "+r"(h));
    const uint32_t r = sum_long(dst + head, src + head, len - head, 0, 1);
    return ics_add32(ics_add32(h, ics_iov_pair(r, head)), sum);
}
#endif

LONG_PATH uint32_t long_copy(uint8_t *dst, const uint8_t *src, size_t len, uint32_t sum)
{
#if !MASKED
    if (len >= ALIGNED_STORES_FROM && ((uintptr_t)dst & (VEC_BYTES - 1)))
        return long_copy_aligning(dst, src, len, sum);
#endif
    return sum_long(dst, src, len, sum, 1);
}

static inline __attribute__((always_inline)) uint32_t sum_vec(uint8_t *dst, const uint8_t *src, size_t len,
                                                              uint32_t sum, const int copy)
{
#if !MASKED
    if (len < VEC_BYTES) /* (the masked kernels' short path takes these too, an empty input included) */
        return copy ? ics_copy_small(dst, src, len, sum) : ics_partial_small(src, len, sum);
#endif
    /* Laid out as the fall-through: at these sizes a taken jump is a measurable part of the call. */
    if (__builtin_expect(len < (copy ? SHORT_COPY_VECTORS : SHORT_VECTORS) * VEC_BYTES, 1))
        return sum_short(dst, src, len, sum, copy);
#if MID_COPY_VECTORS
    /* Copies to MID_COPY_VECTORS vectors by the same four chains in a loop. */
    if (copy && len < MID_COPY_VECTORS * VEC_BYTES)
        return copy_mid(dst, src, len, sum);
#endif
#ifdef LONG_KERNEL
    /* An instance that differs only in its short path hands longer inputs to the kernel it varies
     * (a tail call): its own copy of the same code ran a tick slower where it was placed. */
    return copy ? LONG_KERNEL(copy)(dst, src, len, sum) : LONG_KERNEL(partial)(src, len, sum);
#else
#if !MASKED
    if (!copy && len < SHORT_MID_BELOW)
        return partial_short_mid(src, len, sum);
    if (len < (copy ? ALIGNED_STORES_FROM : UNCHUNKED_BELOW))
        return copy ? copy_unchunked(dst, src, len, sum) : partial_unchunked(src, len, sum);
#endif
    return copy ? long_copy(dst, src, len, sum) : long_partial(src, len, sum);
#endif
}

uint32_t KERNEL(partial)(const void *buf, size_t len, uint32_t sum)
{
    return sum_vec((uint8_t *)(uintptr_t)buf, (const uint8_t *)buf, len, sum, 0);
}

uint32_t KERNEL(copy)(void *dst, const void *src, size_t len, uint32_t sum)
{
    return sum_vec((uint8_t *)dst, (const uint8_t *)src, len, sum, 1);
}

/* A message in pieces (an mbuf chain, an iovec), in one call: the constants, the call and the end
 * (reduction to 32 bits, rotation, seed) are paid once for the message, not once a piece.
 * With masks, each piece is summed as the general path sums a buffer (aligned loads, masked ends:
 * nothing outside a piece is read) into a 64-bit total of its own pairing: a piece whose start
 * address and offset in the message differ in parity pairs its bytes the other way round, and that
 * total is rotated once at the end (as `finish` does for an odd start).  On the Zen 5 guest, 17
 * pieces of 512 B: 140 TSC ticks against 221 for a kernel call a piece (one 8.7 KB buffer: 52).
 * Without masks each piece is the inline sum_vec, its result put into the message's pairing. */
uint32_t KERNEL(iov)(const struct iovec *iov, size_t n, uint32_t sum)
{
#if MASKED
    const struct consts k = consts_make();
    int64_t total[2] = {0, 0};    /* by pairing: as loaded, swapped */
    uint64_t vectors[2] = {0, 0}; /* loaded, for the bias */
    size_t offset = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *src = (const uint8_t *)iov[i].iov_base;
        const size_t len = iov[i].iov_len;
        if (len == 0)
            continue;
        const unsigned swapped = (unsigned)(((uintptr_t)src ^ offset) & 1);
        offset += len;
        /* (dst is never written when copy == 0: src keeps the pointer arithmetic defined) */
        vectors[swapped] += sum_aligned(&k, (uint8_t *)(uintptr_t)src, src, len, (uintptr_t)src & (VEC_BYTES - 1),
                                        &total[swapped], 0);
    }
    return finish(total[1], vectors[1], 1, finish(total[0], vectors[0], 0, sum));
#else
    size_t offset = 0;
    for (size_t i = 0; i < n; i++) {
        const size_t len = iov[i].iov_len;
        const uint8_t *src = (const uint8_t *)iov[i].iov_base;
        if (len == 0)
            continue;
        sum = ics_add32(sum, ics_iov_pair(sum_vec((uint8_t *)(uintptr_t)src, src, len, 0, 0), offset));
        offset += len;
    }
    return sum;
#endif
}
