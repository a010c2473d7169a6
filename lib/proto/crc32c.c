/* CRC32c: tables, the portable slicing-by-8 kernel, the registry and the public entry points. */
#include <stdatomic.h>

#include "inetcsum_proto.h"

#include "../kernels.h"
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

uint32_t ics_crc32c_table(uint32_t reg, const uint8_t *p, size_t len)
{
    const struct ics_crc32c_tables *t = ics_crc32c_init();
    for (; len >= 8; p += 8, len -= 8) {
        /* Bytes 0..3 are XORed into the register (little-endian), 4..7 looked up directly. */
        uint32_t lo = reg ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        reg = t->bytes[7][lo & 0xFF] ^ t->bytes[6][(lo >> 8) & 0xFF] ^ t->bytes[5][(lo >> 16) & 0xFF] ^
              t->bytes[4][lo >> 24] ^ t->bytes[3][p[4]] ^ t->bytes[2][p[5]] ^ t->bytes[1][p[6]] ^
              t->bytes[0][p[7]];
    }
    for (; len; p++, len--)
        reg = t->bytes[0][(reg ^ *p) & 0xFF] ^ (reg >> 8);
    return reg;
}

const struct ics_crc32c_kernel ics_crc32c_kernels[] = {
#if defined(ICS_HAVE_AVX512)
    {"vpclmul", ICS_CPU_AVX512BW | ICS_CPU_VPCLMUL | ICS_CPU_SSE42 | ICS_CPU_PCLMUL, ics_crc32c_vpclmul},
#endif
#if defined(ICS_HAVE_SSE42)
    {"sse42-clmul", ICS_CPU_SSE42 | ICS_CPU_PCLMUL, ics_crc32c_clmul},
    {"sse42", ICS_CPU_SSE42, ics_crc32c_sse42},
#endif
#if defined(ICS_HAVE_ARM_CRC)
    {"armv8", ICS_CPU_ARM_CRC32, ics_crc32c_armv8},
#endif
    {"table", 0, ics_crc32c_table},
};
const size_t ics_crc32c_kernel_count = sizeof ics_crc32c_kernels / sizeof ics_crc32c_kernels[0];

static const struct ics_family crcs = ICS_FAMILY("INETCSUM_CRC32C_IMPL", ics_crc32c_kernels,
                                                 sizeof ics_crc32c_kernels / sizeof ics_crc32c_kernels[0],
                                                 struct ics_crc32c_kernel);

/* As for the sums (lib/dispatch.c): one atomic pointer, starting at a resolver entry that picks
 * the kernel (INETCSUM_CRC32C_IMPL, else the best), builds the tables first, publishes it and
 * forwards the call; a compare-exchange lets an inetcsum_crc32c_set_impl() made meanwhile win. */
static uint32_t resolve_crc(uint32_t reg, const uint8_t *p, size_t len);
static const struct ics_crc32c_kernel crc_resolver = {"(unresolved)", 0, resolve_crc};
static _Atomic(const struct ics_crc32c_kernel *) active_crc = &crc_resolver;
static atomic_flag crc_env_warned = ATOMIC_FLAG_INIT;

static const struct ics_crc32c_kernel *crc_kernel(void)
{
    const struct ics_crc32c_kernel *k = atomic_load_explicit(&active_crc, memory_order_acquire);
    if (k == &crc_resolver) {
        ics_crc32c_init();
        const struct ics_crc32c_kernel *expected = &crc_resolver;
        long named = ics_family_chosen(&crcs, &crc_env_warned);
        const struct ics_crc32c_kernel *chosen =
            &ics_crc32c_kernels[named >= 0 ? (size_t)named : ics_family_best(&crcs, ics_features())];
        if (atomic_compare_exchange_strong_explicit(&active_crc, &expected, chosen, memory_order_acq_rel,
                                                    memory_order_acquire))
            k = chosen;
        else
            k = expected;
    }
    return k;
}

static uint32_t resolve_crc(uint32_t reg, const uint8_t *p, size_t len)
{
    return crc_kernel()->fn(reg, p, len);
}

uint32_t inetcsum_crc32c(const void *buf, size_t len, uint32_t crc)
{
    if (len == 0)
        return crc;
    const struct ics_crc32c_kernel *k = atomic_load_explicit(&active_crc, memory_order_acquire);
    return ~k->fn(~crc, (const uint8_t *)buf, len);
}

const char *inetcsum_crc32c_impl_name(void)
{
    return crc_kernel()->name;
}

int inetcsum_crc32c_set_impl(const char *name)
{
    long k = name ? ics_family_find(&crcs, name, ics_features()) : (long)ics_family_best(&crcs, ics_features());
    if (k < 0)
        return -1;
    ics_crc32c_init(); /* the tables before any kernel that reads them is published */
    atomic_store_explicit(&active_crc, &ics_crc32c_kernels[k], memory_order_release);
    return 0;
}

size_t inetcsum_crc32c_impl_list(const char **names, size_t max)
{
    return ics_family_list(&crcs, names, max, 1);
}

size_t inetcsum_crc32c_impl_list_built(const char **names, size_t max)
{
    return ics_family_list(&crcs, names, max, 0);
}
