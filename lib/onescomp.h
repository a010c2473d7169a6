/* Internal: ones'-complement arithmetic and the unaligned loads and stores every kernel shares. */
#ifndef ICS_ONESCOMP_H
#define ICS_ONESCOMP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* Whether sum, a nonzero ones'-complement sum, folds to 0xFFFF (-0: a checksum that verifies).
 * A nonzero sum folds to the value in 1..0xFFFF congruent to it mod 0xFFFF, so this is 0xFFFF
 * dividing it: GCC tests that by a multiply with 0xFFFF's inverse mod 2^32 and one compare, two
 * instructions where the fold takes six dependent ones (coalescing's shortcut, docs/perf.md).
 * Only for a sum known nonzero (0 divides too, but folds to 0): one with a nonzero term, such as
 * a folded header sum, added without overflow or by ics_add32. */
static inline int ics_nonzero_sum_verifies(uint32_t sum)
{
    return sum % 0xFFFFu == 0;
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
static inline void ics_store64(void *p, uint64_t v)
{
    memcpy(p, &v, sizeof v);
}

#endif /* ICS_ONESCOMP_H */
