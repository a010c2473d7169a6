/* Internal: CRC32c kernels, their registry, and the tables they share.
 *
 * A kernel advances the raw CRC register (reflected, polynomial 0x82F63B78) over a buffer, with no
 * initial or final complement: those are applied once, in inetcsum_crc32c().  Advancing is linear
 * in the register, so three streams summed from zero can be joined: the register after A then B
 * is shift(register after A, |B|) XOR (register after B from zero), where shift advances over |B|
 * zero bytes.  The hardware kernels use that to keep three crc32 instructions in flight (the
 * instruction has a latency of three cycles and a throughput of one). */
#ifndef ICS_CRC32C_H
#define ICS_CRC32C_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t (*ics_crc32c_fn)(uint32_t reg, const uint8_t *p, size_t len);

struct ics_crc32c_kernel {
    const char *name;
    uint32_t required; /* ICS_CPU_* bits */
    ics_crc32c_fn fn;
};

/* The kernels of this build, best first, "table" last (lib/kernels.cmake; lib/dispatch.c). */
extern const struct ics_crc32c_kernel ics_crc32c_kernels[];
extern const size_t ics_crc32c_kernel_count;

/* Stream lengths for the three-way kernels: long streams for long buffers, short ones so that a
 * typical packet (384 bytes and up) is interleaved too. */
#define ICS_CRC32C_LONG 4096
#define ICS_CRC32C_SHORT 128

struct ics_crc32c_tables {
    uint32_t bytes[8][256];      /* slicing-by-8: bytes[k][b] advances b followed by k zero bytes */
    uint32_t shift_long[4][256]; /* advance over ICS_CRC32C_LONG zero bytes, a register byte at a time */
    uint32_t shift_short[4][256];
    /* For carry-less multiply kernels: x^(8n - 33) mod P (reflected), which advances a register
     * over n zero bytes in one multiply and one crc32 step (see lib/x86/crc32c_clmul.c):
     * clmul_k[i] for n = 8 i (i = 1..16, n up to ICS_CRC32C_SHORT), clmul_long for LONG. */
    uint32_t clmul_k[ICS_CRC32C_SHORT / 8 + 1];
    uint32_t clmul_long;
    /* For folding kernels (lib/x86/crc32c_vpclmul.c): moving a 128-bit block forward by d bytes
     * is two carry-less products, its first 8 bytes by x^(8d+63) mod P and its last 8 by
     * x^(8d-1) mod P (the -1: reflected products gain one factor of x), each as a 64-bit operand
     * (the reflected 32-bit value in the high half).  fold[i] = {first, last} for d = 16 << i:
     * 16, 32, 64, 128, 256 bytes. */
    uint64_t fold[5][2];
};

/* Fills the tables on first call (thread-safe, idempotent) and returns them.  Every kernel reads
 * them through this; the public entry calls it once before publishing a kernel. */
const struct ics_crc32c_tables *ics_crc32c_init(void);
extern struct ics_crc32c_tables ics_crc32c_tab; /* valid once ics_crc32c_init() has returned */

static inline uint32_t ics_crc32c_shift(const uint32_t t[4][256], uint32_t reg)
{
    return t[0][reg & 0xFF] ^ t[1][(reg >> 8) & 0xFF] ^ t[2][(reg >> 16) & 0xFF] ^ t[3][reg >> 24];
}

/* Kernels: ics_crc32c_<id>, one per row of the kernel list (and the tests' SIMDe builds). */
#define ICS_CRC32C_KERNEL(id, name, required) uint32_t ics_crc32c_##id(uint32_t reg, const uint8_t *p, size_t len);
#define ICS_CRC32C_KERNEL_EMULATED(id, name) ICS_CRC32C_KERNEL(id, name, 0)
#define ICS_SUM_KERNEL(id, name, required)
#include "ics_kernel_list.h"
/* The clmul kernel serves vpclmul's mid sizes whenever vpclmul is built; the table kernel always. */
uint32_t ics_crc32c_clmul(uint32_t reg, const uint8_t *p, size_t len);
uint32_t ics_crc32c_table(uint32_t reg, const uint8_t *p, size_t len);

/* Whether inetcsum_crc32c calls the kernel inetcsum_crc32c_impl_name names (tests; lib/dispatch.c). */
int ics_crc32c_consistent(void);

#endif /* ICS_CRC32C_H */
