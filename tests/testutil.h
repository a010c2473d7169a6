/* Shared test helpers: check counting, a seeded RNG (printed, and accepted from INETCSUM_TEST_SEED
 * or --seed), the byte-pair reference sum, guarded buffers, and the list of kernels to test. */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "inetcsum.h"
#include "kernels.h"

/* ---- checks ---- */
extern unsigned long tu_passed, tu_failed;
void tu_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond)                                                                                  \
            tu_passed++;                                                                           \
        else                                                                                       \
            tu_fail(__FILE__, __LINE__, __VA_ARGS__);                                              \
    } while (0)
/* Parses --seed N / --quick, seeds the RNG, prints the seed. */
void tu_init(int argc, char **argv, const char *name);
/* Prints "N passed, N failed" and returns the exit status: 77 (ctest's skip) when every case
 * was skipped and none ran. */
int tu_finish(void);
/* Says on stdout that case `what` is skipped and why; tu_finish counts it. */
void tu_skip(const char *what, const char *why_fmt, ...) __attribute__((format(printf, 2, 3)));
extern int tu_quick; /* reduced sweeps (emulators, sanitizers): --quick or INETCSUM_TEST_QUICK=1 */

/* ---- RNG (splitmix64) ---- */
uint64_t tu_rand(void);
void tu_fill_random(uint8_t *p, size_t n);

/* Ethernet + IPv4 (DF) or IPv6 + TCP (32 bytes: ACK, any of CWR, ECE, PSH, FIN, NOP options) or UDP
 * + n random payload bytes at p, lengths right, addresses and ports random, checksums whatever;
 * returns its length. */
size_t tu_build_frame(uint8_t *p, int v6, int udp, size_t n);

/* Ethernet and an IPv4 (DF, no options) or IPv6 header at p carrying payload bytes of IP protocol
 * proto (the payload itself not written), MAC addresses, IP addresses and the IPv4 ID random;
 * returns the headers' length (34 or 54). */
size_t tu_build_eth_ip(uint8_t *p, int v6, unsigned proto, size_t payload);

/* ---- the reference: bytes taken in pairs, in host order, a lone last byte padded with zero,
 * added as integers and folded with end-around carry.  Deliberately the plainest code. ---- */
uint16_t ref_sum(const void *buf, size_t len, uint32_t seed);
uint16_t ref_fold64(uint64_t s);
/* The value byte number `index` (counted from the start of the summed data) adds. */
static inline uint64_t ref_byte_value(uint8_t b, size_t index)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return (index & 1) ? b : (uint64_t)b << 8;
#else
    return (index & 1) ? (uint64_t)b << 8 : b;
#endif
}

/* The plainest CRC32c: one bit at a time, initial and final complement (RFC 9260 appendix B),
 * continuing from crc (0 to start), like inetcsum_crc32c. */
uint32_t tu_ref_crc32c(const uint8_t *p, size_t len, uint32_t crc);

/* ---- packet-layer reports: the same frame flags, count and checks[0..count) ---- */
struct inetcsum_report;
int tu_same_report(const struct inetcsum_report *a, const struct inetcsum_report *b);

/* ---- the shared vectors (INETCSUM_VECTORS_DIR) ---- */
#include <stdio.h>
/* Opens dir/name for reading for case `what`.  When dir itself is missing (a clone without the
 * team's shared/ folder beside it) the case is skipped by name (tu_skip) and NULL returned; a file
 * missing from a dir that is there exits with status 2 saying which. */
FILE *tu_open_vector(const char *dir, const char *name, const char *what);
/* Whether the shared folder dir is there; when not, case `what` is skipped by name. */
int tu_have_shared(const char *dir, const char *what);
/* Decodes up to max bytes of hex digits; returns the count decoded. */
size_t tu_from_hex(const char *hex, uint8_t *out, size_t max);

/* ---- guarded memory: `size` usable bytes between two inaccessible pages ---- */
struct guarded {
    uint8_t *base; /* first usable byte (page aligned) */
    size_t size;   /* usable bytes, a multiple of the page size */
    void *map;
    size_t map_len;
};
void guarded_alloc(struct guarded *g, size_t size);
void guarded_free(struct guarded *g);

/* ---- kernels under test: the registry's entries this CPU runs, SIMDe-emulated AVX-512 builds,
 * the public entry points (dispatch, inline small path) and the header's vector path ---- */
struct tu_kernel {
    const char *name;
    ics_partial_fn partial;
    ics_copy_fn copy; /* NULL for a sum path alone (the header's vector path): nothing to copy */
    ics_iov_fn iov;   /* NULL likewise */
    int few_starts;   /* code that loads from the start as it is, emulated (slow): a sample of starts will do */
};
size_t tu_kernels(const struct tu_kernel **list);

#endif
