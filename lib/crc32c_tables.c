/* CRC32c: the tables its kernels share (slicing-by-8, stream joins, carry-less folding), built
 * once per process on first use. */
#include <stdatomic.h>

#include "crc32c.h"

#define POLY 0x82F63B78u /* 0x1EDC6F41 reflected */

struct ics_crc32c_tables ics_crc32c_tab;

/* Advances the register over n zero bytes, one table step per byte (used only to build tables). */
static uint32_t advance_zeros(uint32_t reg, size_t n)
{
    while (n--)
        reg = ics_crc32c_tab.bytes[0][reg & 0xFF] ^ (reg >> 8);
    return reg;
}

/* Shifting is linear in the register: the image of each of its 32 bits, XORed together per byte
 * value. */
static void build_shift(uint32_t t[4][256], size_t zeros)
{
    uint32_t bit[32];
    for (int i = 0; i < 32; i++)
        bit[i] = advance_zeros(1u << i, zeros);
    for (int k = 0; k < 4; k++)
        for (int v = 0; v < 256; v++) {
            uint32_t x = 0;
            for (int j = 0; j < 8; j++)
                if (v & (1 << j))
                    x ^= bit[8 * k + j];
            t[k][v] = x;
        }
}

/* x^k mod P, reflected: the polynomial 1 is the top bit, and multiplying by x is a right shift
 * that folds the x^32 term back in. */
static uint32_t x_pow(size_t k)
{
    uint32_t r = 0x80000000u;
    while (k--)
        r = (r >> 1) ^ (POLY & (0u - (r & 1)));
    return r;
}

static void build_tables(void)
{
    for (uint32_t b = 0; b < 256; b++) {
        uint32_t r = b;
        for (int i = 0; i < 8; i++)
            r = (r >> 1) ^ (POLY & (0u - (r & 1)));
        ics_crc32c_tab.bytes[0][b] = r;
    }
    for (int k = 1; k < 8; k++)
        for (int b = 0; b < 256; b++) {
            uint32_t r = ics_crc32c_tab.bytes[k - 1][b];
            ics_crc32c_tab.bytes[k][b] = (r >> 8) ^ ics_crc32c_tab.bytes[0][r & 0xFF];
        }
    build_shift(ics_crc32c_tab.shift_long, ICS_CRC32C_LONG);
    build_shift(ics_crc32c_tab.shift_short, ICS_CRC32C_SHORT);
    for (size_t i = 1; i <= ICS_CRC32C_SHORT / 8; i++)
        ics_crc32c_tab.clmul_k[i] = x_pow(64 * i - 33);
    ics_crc32c_tab.clmul_long = x_pow(8 * (size_t)ICS_CRC32C_LONG - 33);
    for (int i = 0; i < 5; i++) {
        size_t bits = (size_t)128 << i;
        ics_crc32c_tab.fold[i][0] = (uint64_t)x_pow(bits + 63) << 32;
        ics_crc32c_tab.fold[i][1] = (uint64_t)x_pow(bits - 1) << 32;
    }
}

/* 0 = not built, 1 = being built, 2 = ready.  The builder publishes with release; a reader that
 * sees 2 with acquire sees the tables.  Threads that arrive during the build wait for it (it takes
 * well under a millisecond, once per process). */
static _Atomic int tables_state;

const struct ics_crc32c_tables *ics_crc32c_init(void)
{
    if (atomic_load_explicit(&tables_state, memory_order_acquire) == 2)
        return &ics_crc32c_tab;
    int expected = 0;
    if (atomic_compare_exchange_strong_explicit(&tables_state, &expected, 1, memory_order_acquire,
                                                memory_order_acquire)) {
        build_tables();
        atomic_store_explicit(&tables_state, 2, memory_order_release);
    } else {
        while (atomic_load_explicit(&tables_state, memory_order_acquire) != 2)
            ; /* another thread is building */
    }
    return &ics_crc32c_tab;
}
