/* Internal: the kernel shapes, their registry, and arithmetic helpers every kernel shares.
 * Internal symbols carry the prefix ics_ and are hidden from the shared library. */
#ifndef ICS_KERNELS_H
#define ICS_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The two kernel shapes (DESIGN.md section 1).  Every kernel returns a partial sum that folds to
 * the ones'-complement sum of the data plus `sum`, and is exact: the result is 0 only for zero data
 * with a zero seed. */
typedef uint32_t (*ics_partial_fn)(const void *buf, size_t len, uint32_t sum);
typedef uint32_t (*ics_copy_fn)(void *dst, const void *src, size_t len, uint32_t sum);

/* CPU features a kernel may require.  Bits, so that a test can walk every subset. */
enum {
    ICS_CPU_AVX2 = 1u << 0,       /* AVX2, OS saves YMM state */
    ICS_CPU_AVX512BW = 1u << 1,   /* AVX-512 F+BW+VL, OS saves ZMM/opmask state */
    ICS_CPU_AVX512VNNI = 1u << 2, /* AVX-512 VNNI */
    ICS_CPU_NEON = 1u << 3,       /* aarch64 Advanced SIMD */
    ICS_CPU_SSE42 = 1u << 4,      /* SSE4.2: the crc32 instruction (CRC32c) */
    ICS_CPU_ARM_CRC32 = 1u << 5,  /* ARMv8 CRC32 extension: crc32c* instructions */
    ICS_CPU_PCLMUL = 1u << 6,     /* PCLMULQDQ: carry-less multiply (CRC32c stream joins) */
};

struct ics_kernel {
    const char *name;
    uint32_t required; /* ICS_CPU_* bits that must all be present */
    ics_partial_fn partial;
    ics_copy_fn copy;
};

/* The registry, best first (lib/dispatch.c). */
extern const struct ics_kernel ics_kernels[];
extern const size_t ics_kernel_count;

/* What this CPU and OS support (lib/<arch>/cpu_features.c). */
uint32_t ics_cpu_features(void);
/* The same, asked of the CPU once per process and cached (lib/dispatch.c). */
uint32_t ics_features(void);
/* The best registry entry whose requirements are a subset of `features` (never NULL: "generic"
 * requires nothing). */
const struct ics_kernel *ics_select(uint32_t features);

/* Kernels: <op>_<isa>. */
uint32_t ics_partial_generic(const void *buf, size_t len, uint32_t sum);
uint32_t ics_copy_generic(void *dst, const void *src, size_t len, uint32_t sum);
#if defined(__x86_64__)
uint32_t ics_partial_x86_64(const void *buf, size_t len, uint32_t sum);
uint32_t ics_copy_x86_64(void *dst, const void *src, size_t len, uint32_t sum);
#endif
#if defined(ICS_HAVE_AVX2)
uint32_t ics_partial_avx2(const void *buf, size_t len, uint32_t sum);
uint32_t ics_copy_avx2(void *dst, const void *src, size_t len, uint32_t sum);
#endif
#if defined(ICS_HAVE_AVX512)
uint32_t ics_partial_avx512(const void *buf, size_t len, uint32_t sum);
uint32_t ics_copy_avx512(void *dst, const void *src, size_t len, uint32_t sum);
uint32_t ics_partial_avx512vnni(const void *buf, size_t len, uint32_t sum);
uint32_t ics_copy_avx512vnni(void *dst, const void *src, size_t len, uint32_t sum);
uint32_t ics_partial_avx512_ymm(const void *buf, size_t len, uint32_t sum);
uint32_t ics_copy_avx512_ymm(void *dst, const void *src, size_t len, uint32_t sum);
uint32_t ics_partial_avx512vnni_ymm(const void *buf, size_t len, uint32_t sum);
uint32_t ics_copy_avx512vnni_ymm(void *dst, const void *src, size_t len, uint32_t sum);
#endif
#if defined(ICS_HAVE_NEON)
uint32_t ics_partial_neon(const void *buf, size_t len, uint32_t sum);
uint32_t ics_copy_neon(void *dst, const void *src, size_t len, uint32_t sum);
#endif

/* ---- Arithmetic shared by the kernels ------------------------------------------------------------ */

/* 64-bit ones'-complement addition (end-around carry).  Never turns a nonzero value into 0. */
static inline uint64_t ics_add64(uint64_t a, uint64_t b)
{
    uint64_t s = a + b;
    return s + (s < a);
}

/* inetcsum_fold and inetcsum_add for the library's own hot paths, inlined. */
static inline uint16_t ics_fold16(uint32_t sum)
{
    sum = (sum & 0xFFFF) + (sum >> 16);
    sum = (sum & 0xFFFF) + (sum >> 16);
    return (uint16_t)sum;
}

static inline uint32_t ics_add32(uint32_t a, uint32_t b)
{
    uint32_t s = a + b;
    return s + (s < a);
}

/* Reduces a 64-bit ones'-complement value to 32 bits; congruent mod 0xFFFF, and nonzero stays
 * nonzero (2^32 = 1 mod 0xFFFF, and end-around carry keeps the -0 form). */
static inline uint32_t ics_reduce64(uint64_t s)
{
    uint64_t r = (s & 0xFFFFFFFFu) + (s >> 32); /* < 2^33 */
    r = (r & 0xFFFFFFFFu) + (r >> 32);          /* <= 2^32 */
    return (uint32_t)(r + (r >> 32));           /* 2^32 becomes 1 */
}

static inline uint32_t ics_load32(const void *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline uint64_t ics_load64(const void *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline uint16_t ics_load16(const void *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* A lone trailing byte counts as the first byte of a word whose second byte is zero; in host order
 * that is the low byte on little-endian and the high byte on big-endian. */
static inline uint32_t ics_odd_byte(uint8_t b)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (uint32_t)b << 8;
#else
    return b;
#endif
}

/* Sum of the last len < 8 bytes at p, as a value to add into a 64-bit accumulator (< 2^33). */
static inline uint64_t ics_tail7(const uint8_t *p, size_t len)
{
    uint64_t s = 0;
    if (len & 4) {
        s += ics_load32(p);
        p += 4;
    }
    if (len & 2) {
        s += ics_load16(p);
        p += 2;
    }
    if (len & 1)
        s += ics_odd_byte(*p);
    return s;
}

/* The last r (1..7) bytes of a buffer of 8 or more, from the 8-byte word `last` that ends at the
 * buffer's end, moved to the word's first bytes.  They start a multiple of 8 bytes in, so their
 * pairing into 16-bit words is unchanged. */
static inline uint64_t ics_last_bytes(uint64_t last, size_t r)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return last << (64 - 8 * r); /* the buffer's last bytes are the word's low-order bytes */
#else
    return last >> (64 - 8 * r);
#endif
}

#if defined(__x86_64__)
/* acc += x + y with end-around carry, as one short add/adc/adc $0 chain.  x and y may be memory
 * operands; a chain that opens with add does not wait on another chain's carry flag. */
#define ICS_ADC2(acc, x, y)                                                                        \
    __asm__("addq %[xx], %[a]\n\t"                                                               \
            "adcq %[yy], %[a]\n\t"                                                               \
            "adcq $0, %[a]"                                                                        \
            : [a] "+r"(acc)                                                                        \
            : [xx] "rm"((uint64_t)(x)), [yy] "rm"((uint64_t)(y))                                   \
            : "cc")
#define ICS_ADC1(acc, x)                                                                           \
    __asm__("addq %[xx], %[a]\n\t"                                                               \
            "adcq $0, %[a]"                                                                        \
            : [a] "+r"(acc)                                                                        \
            : [xx] "rm"((uint64_t)(x))                                                             \
            : "cc")

/* acc += four 64-bit words with end-around carry: add, three adc, adc $0.  Five operations per 32
 * bytes; the chain is five long, so two of them side by side keep the adder busy. */
#define ICS_ADC4(acc, p)                                                                           \
    __asm__("addq %[w0], %[a]\n\t"                                                               \
            "adcq %[w1], %[a]\n\t"                                                               \
            "adcq %[w2], %[a]\n\t"                                                               \
            "adcq %[w3], %[a]\n\t"                                                               \
            "adcq $0, %[a]"                                                                        \
            : [a] "+r"(acc)                                                                        \
            : [w0] "rm"(ics_load64(p)), [w1] "rm"(ics_load64((p) + 8)),                            \
              [w2] "rm"(ics_load64((p) + 16)), [w3] "rm"(ics_load64((p) + 24))                     \
            : "cc")

/* 64 -> 32 bits with end-around carry in four instructions (the high half's add can carry once). */
static inline uint32_t ics_reduce64_x86(uint64_t s)
{
    uint32_t lo = (uint32_t)s, hi = (uint32_t)(s >> 32);
    __asm__("addl %[h], %[l]\n\t"
            "adcl $0, %[l]"
            : [l] "+r"(lo)
            : [h] "r"(hi)
            : "cc");
    return lo;
}
#endif

/* The scalar sum for short buffers, inlined into inetcsum_partial so that headers and other small
 * inputs pay neither an indirect call nor a SIMD reduction.  The 20- and 40-byte cases (IPv4 and
 * IPv6 headers) unroll to straight-line code where len is a constant.
 * x86-64: 64-bit add-with-carry in two chains of up to four words (add, adc x3, adc $0), so 8
 * bytes cost about one instruction with its load folded in.  Branches are kept few because taken
 * branches, not adds, bound it at these sizes.  The last len % 8 bytes (when 8 or more precede
 * them) come from one 8-byte load ending at the buffer's end, shifted so only the new bytes
 * remain: they start a multiple of 8 bytes in, so their pairing is unchanged.
 * Elsewhere: 32-bit loads into 64-bit accumulators, exact for len < 16 GiB.
 * Used only below ICS_SMALL_MAX. */
static inline __attribute__((always_inline)) uint32_t ics_partial_small(const void *buf, size_t len,
                                                                        uint32_t sum)
{
    const uint8_t *p = (const uint8_t *)buf;
#if defined(__x86_64__)
    if (len < 8)
        return ics_reduce64_x86((uint64_t)sum + ics_tail7(p, len));
    const uint8_t *end = p + len;
    uint64_t a = sum, b = 0;
    for (; len >= 64; p += 64, len -= 64) {
        ICS_ADC4(a, p);
        ICS_ADC4(b, p + 32);
    }
    /* Whole 64-byte blocks (64 is the minimum frame) skip the four tests below: each is a taken
     * jump when its bit is clear, and Zen 3 retires about one taken branch per cycle. */
    if (len == 0)
        goto done;
    if (len & 32) {
        ICS_ADC4(a, p);
        p += 32;
    }
    if (len & 16) {
        ICS_ADC2(b, ics_load64(p), ics_load64(p + 8));
        p += 16;
    }
    if (len & 8)
        ICS_ADC1(a, ics_load64(p));
    if (len & 7)
        ICS_ADC1(b, ics_last_bytes(ics_load64(end - 8), len & 7));
done:
    ICS_ADC1(a, b);
    return ics_reduce64_x86(a);
#else
    uint64_t a = sum, b = 0;
    while (len >= 16) {
        a += (uint64_t)ics_load32(p) + ics_load32(p + 4);
        b += (uint64_t)ics_load32(p + 8) + ics_load32(p + 12);
        p += 16;
        len -= 16;
    }
    if (len & 8) {
        a += ics_load32(p);
        b += ics_load32(p + 4);
        p += 8;
    }
    if (len & 7)
        a += ics_tail7(p, len & 7);
    return ics_reduce64(ics_add64(a, b));
#endif
}

static inline void ics_store64(void *p, uint64_t v)
{
    memcpy(p, &v, sizeof v);
}

/* Adds a 64-bit word of data into a 64-bit accumulator: add-with-carry on x86-64; elsewhere its two
 * 32-bit halves (exact below 2^31 words). */
#if defined(__x86_64__)
#define ICS_ADD_WORD64(acc, x) ICS_ADC1(acc, x)
#else
#define ICS_ADD_WORD64(acc, x) ((acc) += (uint64_t)(uint32_t)(x) + ((uint64_t)(x) >> 32))
#endif

/* Copy and sum for short buffers in one pass over registers: each 8-byte word is loaded once,
 * stored, and added.  memcpy then a sum costs a call and reads every byte twice, which at these
 * sizes is most of the work.  The last len % 8 bytes (when 8 or more precede them) are copied as
 * one 8-byte word ending at the buffer's end, overlapping bytes already written with the same
 * values, and summed shifted as in ics_partial_small. */
static inline __attribute__((always_inline)) uint32_t ics_copy_small(void *dst, const void *src, size_t len,
                                                                     uint32_t sum)
{
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
    if (len < 8) {
        if (len & 4)
            memcpy(d, s, 4), d += 4, s += 4;
        if (len & 2)
            memcpy(d, s, 2), d += 2, s += 2;
        if (len & 1)
            *d = *s;
        return ics_reduce64((uint64_t)sum + ics_tail7((const uint8_t *)src, len));
    }
    const uint64_t last = ics_load64(s + len - 8);
    uint8_t *const dlast = d + len - 8;
    uint64_t a = sum, b = 0;
    for (; len >= 16; len -= 16, s += 16, d += 16) {
        uint64_t x = ics_load64(s), y = ics_load64(s + 8);
        ics_store64(d, x);
        ics_store64(d + 8, y);
        ICS_ADD_WORD64(a, x);
        ICS_ADD_WORD64(b, y);
    }
    if (len & 8) {
        uint64_t x = ics_load64(s);
        ics_store64(d, x);
        ICS_ADD_WORD64(a, x);
    }
    if (len & 7) {
        ics_store64(dlast, last);
        ICS_ADD_WORD64(b, ics_last_bytes(last, len & 7));
    }
    return ics_reduce64(ics_add64(a, b));
}

#endif /* ICS_KERNELS_H */
