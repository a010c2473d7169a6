/* The three-way CRC32c loop shared by the hardware kernels.  The including file defines
 *   CRC_STEP64(reg, word)  advance the register over 8 bytes (a little-endian 64-bit word)
 *   CRC_STEP64_WIDE(reg, word)  the same on a uint64_t register, left without zero-extending it
 *   CRC_STEP32(reg, word), CRC_STEP16(reg, half), CRC_STEP8(reg, byte)  over 4, 2 and 1 bytes
 * and then INTERLEAVED_CRC32C(name), which defines uint32_t name(uint32_t reg, const uint8_t *p,
 * size_t len).  Long buffers run as three streams of ICS_CRC32C_LONG bytes, then of
 * ICS_CRC32C_SHORT bytes, joined with the shift tables; the rest runs as one stream. */
#ifndef ICS_CRC32C_INTERLEAVE_H
#define ICS_CRC32C_INTERLEAVE_H

#include <string.h>

#include "crc32c.h"

static inline uint64_t crc_load64le(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline uint32_t crc_load32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The last len < 8 bytes: at most three dependent steps instead of up to seven. */
#define CRC_TAIL7(reg, p, len)                                                                     \
    do {                                                                                           \
        if ((len) & 4) {                                                                           \
            CRC_STEP32(reg, crc_load32le(p));                                                      \
            (p) += 4;                                                                              \
        }                                                                                          \
        if ((len) & 2) {                                                                           \
            CRC_STEP16(reg, (uint16_t)((p)[0] | (p)[1] << 8));                                     \
            (p) += 2;                                                                              \
        }                                                                                          \
        if ((len) & 1)                                                                             \
            CRC_STEP8(reg, *(p));                                                                  \
    } while (0)

/* Three streams of `block` bytes each, starting at p, p + block, p + 2 block; returns the register
 * after all three, joined with `shift` (the table for `block` zero bytes). */
#define CRC_THREE_STREAMS(reg, p, block, shift)                                                    \
    do {                                                                                           \
        uint64_t r0_ = (reg), r1_ = 0, r2_ = 0;                                                    \
        for (size_t i_ = 0; i_ < (block); i_ += 8) {                                               \
            CRC_STEP64_WIDE(r0_, crc_load64le((p) + i_));                                          \
            CRC_STEP64_WIDE(r1_, crc_load64le((p) + (block) + i_));                                \
            CRC_STEP64_WIDE(r2_, crc_load64le((p) + 2 * (block) + i_));                            \
        }                                                                                          \
        const uint32_t j_ = ics_crc32c_shift((shift), (uint32_t)r0_) ^ (uint32_t)r1_;              \
        (reg) = ics_crc32c_shift((shift), j_) ^ (uint32_t)r2_;                                     \
    } while (0)

/* One stream over all of p[0..len): what is left after the streams, and whole short inputs.  The
 * register is held in 64 bits through the 8-byte steps (CRC_STEP64_WIDE): on the Zen 3 guest a
 * 100-byte CRC took 51-56 TSC ticks with it in 32 bits, 33 so, in the same slow spell. */
#define CRC_SERIAL(reg, p, len)                                                                    \
    do {                                                                                           \
        uint64_t wide_ = (reg);                                                                    \
        for (; (len) >= 8; (p) += 8, (len) -= 8)                                                   \
            CRC_STEP64_WIDE(wide_, crc_load64le(p));                                               \
        (reg) = (uint32_t)wide_;                                                                   \
        CRC_TAIL7(reg, p, len);                                                                    \
    } while (0)

/* (The tables are asked for only by the lengths that join streams: the call that asked, with the
 * register saved across it, cost a 12-byte CRC half its time on the Zen 3 guest, 16.6 -> 8.3 TSC
 * ticks in the sse42-clmul kernel.  Moving the streams into a function of their own, so that the
 * short path saves no registers either, changed nothing measurable there.) */
#define INTERLEAVED_CRC32C(name)                                                                   \
    uint32_t name(uint32_t reg, const uint8_t *p, size_t len)                                      \
    {                                                                                              \
        if (len >= 3 * ICS_CRC32C_SHORT) {                                                         \
            const struct ics_crc32c_tables *t = ics_crc32c_init();                                 \
            for (; len >= 3 * ICS_CRC32C_LONG; p += 3 * ICS_CRC32C_LONG, len -= 3 * ICS_CRC32C_LONG) \
                CRC_THREE_STREAMS(reg, p, (size_t)ICS_CRC32C_LONG, t->shift_long);                 \
            for (; len >= 3 * ICS_CRC32C_SHORT; p += 3 * ICS_CRC32C_SHORT, len -= 3 * ICS_CRC32C_SHORT) \
                CRC_THREE_STREAMS(reg, p, (size_t)ICS_CRC32C_SHORT, t->shift_short);               \
        }                                                                                          \
        CRC_SERIAL(reg, p, len);                                                                   \
        return reg;                                                                                \
    }

#endif /* ICS_CRC32C_INTERLEAVE_H */
