/* Shared test helpers (see testutil.h). */
#include "testutil.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inetcsum.h"
#include "inetcsum_packet.h"

unsigned long tu_passed, tu_failed;
int tu_quick;
static uint64_t rng_state;
static const char *test_name = "test";

void tu_fail(const char *file, int line, const char *fmt, ...)
{
    tu_failed++;
    if (tu_failed > 25)
        return;
    fprintf(stderr, "FAIL %s:%d: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (tu_failed == 25)
        fprintf(stderr, "(further failures not shown)\n");
}

void tu_init(int argc, char **argv, const char *name)
{
    test_name = name;
    const char *env = getenv("INETCSUM_TEST_SEED");
    uint64_t seed = env ? strtoull(env, NULL, 0) : 0;
    const char *q = getenv("INETCSUM_TEST_QUICK");
    tu_quick = q && *q && strcmp(q, "0") != 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "--quick") == 0)
            tu_quick = 1;
    }
    if (seed == 0) {
        FILE *f = fopen("/dev/urandom", "rb");
        if (!f || fread(&seed, sizeof seed, 1, f) != 1)
            seed = 0x9E3779B97F4A7C15u;
        if (f)
            fclose(f);
    }
    rng_state = seed;
    printf("%s: seed %" PRIu64 " (rerun with --seed %" PRIu64 ")%s\n", name, seed, seed,
           tu_quick ? ", quick" : "");
}

static unsigned long tu_skipped;

void tu_skip(const char *what, const char *why_fmt, ...)
{
    va_list ap;
    va_start(ap, why_fmt);
    printf("%s: skipped %s: ", test_name, what);
    vprintf(why_fmt, ap);
    printf("\n");
    va_end(ap);
    tu_skipped++;
}

int tu_finish(void)
{
    printf("%s: %lu passed, %lu failed, %lu skipped\n", test_name, tu_passed, tu_failed, tu_skipped);
    if (tu_failed)
        return 1;
    return tu_skipped && !tu_passed ? 77 : 0;
}

uint64_t tu_rand(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

void tu_fill_random(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)tu_rand();
}

uint16_t ref_fold64(uint64_t s)
{
    while (s >> 16)
        s = (s & 0xFFFF) + (s >> 16);
    return (uint16_t)s;
}

uint16_t ref_sum(const void *buf, size_t len, uint32_t seed)
{
    const uint8_t *p = buf;
    uint64_t s = seed; /* a 32-bit seed counts as its two 16-bit halves: 2^16 = 1 mod 0xFFFF */
    for (size_t i = 0; i < len; i++)
        s += ref_byte_value(p[i], i);
    return ref_fold64(s);
}

void guarded_alloc(struct guarded *g, size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size = (size + page - 1) / page * page;
    g->map_len = size + 2 * page;
    g->map = mmap(NULL, g->map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->map == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    g->base = (uint8_t *)g->map + page;
    g->size = size;
    if (mprotect(g->base, size, PROT_READ | PROT_WRITE) != 0) {
        perror("mprotect");
        exit(2);
    }
}

void guarded_free(struct guarded *g)
{
    munmap(g->map, g->map_len);
}

/* ---- kernels under test ---- */

/* inetcsum_partial as a caller writes it: through the header's macro, so inputs under 16 bytes take
 * the inline path (the "public-api" entry's function pointer reaches the exported function), and
 * the header lengths (20 and 40 B) are passed as constants, as a caller filling an IPv4 header or
 * summing an IPv6 one writes them: on x86-64 those take the header's add-with-carry chains. */
static uint32_t via_header_inline(const void *buf, size_t len, uint32_t sum)
{
    if (len == 20)
        return inetcsum_partial(buf, 20, sum);
    if (len == 40)
        return inetcsum_partial(buf, 40, sum);
    return inetcsum_partial(buf, len, sum);
}

#if defined(ICS_TEST_HEADER_INLINE_SIMD) /* header_inline_simd.c, built for AVX2 and AVX-512 */
#define HEADER_INLINE_VARIANT(id) \
    uint32_t header_inline_##id(const void *buf, size_t len, uint32_t sum); \
    uint32_t header_vector_##id(const void *buf, size_t len, uint32_t sum);
HEADER_INLINE_VARIANT(avx2)
HEADER_INLINE_VARIANT(avx512bw)
HEADER_INLINE_VARIANT(avx512vnni)
HEADER_INLINE_VARIANT(avx2_o2)
HEADER_INLINE_VARIANT(avx512bw_o2)
#if defined(ICS_TEST_HEADER_INLINE_EMULATED)
HEADER_INLINE_VARIANT(avx512bw_emu)
HEADER_INLINE_VARIANT(avx512vnni_emu)
#endif

/* The variants this CPU runs, asked of the CPU (and of the OS's saving of its state), not of the
 * library, whose detection a build without SIMD kernels leaves out. */
static size_t header_inline_variants(struct tu_kernel *k)
{
    const struct {
        const char *inline_name, *vector_name;
        ics_partial_fn inline_fn, vector_fn;
        int runs, emulated;
    } v[] = {
        {"header-inline-avx2", "header-vector-avx2", header_inline_avx2, header_vector_avx2,
         __builtin_cpu_supports("avx2"), 0},
        {"header-inline-avx512bw", "header-vector-avx512bw", header_inline_avx512bw, header_vector_avx512bw,
         __builtin_cpu_supports("avx512bw"), 0},
        {"header-inline-avx512vnni", "header-vector-avx512vnni", header_inline_avx512vnni, header_vector_avx512vnni,
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni"), 0},
        {"header-inline-avx2-O2", "header-vector-avx2-O2", header_inline_avx2_o2, header_vector_avx2_o2,
         __builtin_cpu_supports("avx2"), 0},
        {"header-inline-avx512bw-O2", "header-vector-avx512bw-O2", header_inline_avx512bw_o2,
         header_vector_avx512bw_o2, __builtin_cpu_supports("avx512bw"), 0},
#if defined(ICS_TEST_HEADER_INLINE_EMULATED) /* the AVX-512 builds through SIMDe, built for AVX2 */
        {"header-inline-avx512bw-emulated", "header-vector-avx512bw-emulated", header_inline_avx512bw_emu,
         header_vector_avx512bw_emu, __builtin_cpu_supports("avx2"), 1},
        {"header-inline-avx512vnni-emulated", "header-vector-avx512vnni-emulated", header_inline_avx512vnni_emu,
         header_vector_avx512vnni_emu, __builtin_cpu_supports("avx2"), 1},
#endif
    };
    size_t n = 0;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        if (!v[i].runs) {
            printf("  %s: the header's vector path built for it, not supported by this CPU: not tested\n",
                   v[i].inline_name);
            continue;
        }
        k[n++] = (struct tu_kernel){v[i].inline_name, v[i].inline_fn, NULL, NULL, v[i].emulated};
        k[n++] = (struct tu_kernel){v[i].vector_name, v[i].vector_fn, NULL, NULL, v[i].emulated};
    }
    return n;
}
#endif

/* Room for every kernel of the list, natively and through SIMDe, the two entries and the header's
 * vector path (fourteen: five builds and two through SIMDe, each through the macro and called
 * directly): counted from the list itself (a fixed 16 overflowed when the tenth sum kernel came). */
enum {
    TU_KERNELS_MAX = 16
#define ICS_SUM_KERNEL(id, name, required) +1
#define ICS_SUM_KERNEL_EMULATED(id, name) +1
#define ICS_CRC32C_KERNEL(id, name, required)
#include "ics_kernel_list.h"
};

size_t tu_kernels(const struct tu_kernel **list)
{
    static struct tu_kernel k[TU_KERNELS_MAX];
    static size_t n;
    if (n == 0) {
        uint32_t f = ics_cpu_features();
        for (size_t i = 0; i < ics_kernel_count; i++) {
            if (ics_kernels[i].required & ~f) {
                printf("  kernel %-12s built, not supported by this CPU: not tested natively\n",
                       ics_kernels[i].name);
                continue;
            }
            k[n++] = (struct tu_kernel){ics_kernels[i].name, ics_kernels[i].partial, ics_kernels[i].copy,
                                        ics_kernels[i].iov, 0};
        }
#if defined(ICS_TEST_AVX512_EMULATED) /* the kernel list's EMULATE rows, built through SIMDe */
#define ICS_SUM_KERNEL(id, name, required)
#define ICS_SUM_KERNEL_EMULATED(id, name) k[n++] = (struct tu_kernel){name, ics_partial_##id, ics_copy_##id, ics_iov_##id, 0};
#define ICS_CRC32C_KERNEL(id, name, required)
#include "ics_kernel_list.h"
#endif
        k[n++] = (struct tu_kernel){"public-api", inetcsum_partial, inetcsum_partial_copy, inetcsum_partial_iov, 0};
        k[n++] = (struct tu_kernel){"header-inline", via_header_inline, inetcsum_partial_copy, inetcsum_partial_iov, 0};
#if defined(ICS_TEST_HEADER_INLINE_SIMD)
        __builtin_cpu_init();
        n += header_inline_variants(k + n);
#endif
    }
    *list = k;
    return n;
}

int tu_have_shared(const char *dir, const char *what)
{
    struct stat st;
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        return 1;
    tu_skip(what, "%s is missing (the team's shared/ folder is not beside this checkout; "
            "INETCSUM_SHARED_DIR at configure time names another)", dir);
    return 0;
}

FILE *tu_open_vector(const char *dir, const char *name, const char *what)
{
    if (!tu_have_shared(dir, what))
        return NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    return f;
}

size_t tu_from_hex(const char *hex, uint8_t *out, size_t max)
{
    size_t n = 0;
    for (; hex[0] && hex[1] && n < max; hex += 2) {
        unsigned v;
        if (sscanf(hex, "%2x", &v) != 1)
            break;
        out[n++] = (uint8_t)v;
    }
    return n;
}

uint32_t tu_ref_crc32c(const uint8_t *p, size_t len, uint32_t crc)
{
    uint32_t r = ~crc;
    for (size_t i = 0; i < len; i++) {
        r ^= p[i];
        for (int b = 0; b < 8; b++)
            r = (r >> 1) ^ (0x82F63B78u & (0u - (r & 1)));
    }
    return ~r;
}

int tu_same_report(const struct inetcsum_report *a, const struct inetcsum_report *b)
{
    return a->count == b->count && a->flags == b->flags && a->count <= INETCSUM_MAX_CHECKS &&
           memcmp(a->checks, b->checks, a->count * sizeof a->checks[0]) == 0;
}

static void tu_put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* Ethernet + IPv4 (or IPv6) + TCP (or UDP) + n random payload bytes, lengths right, checksums
 * whatever; returns its length. */
size_t tu_build_eth_ip(uint8_t *p, int v6, unsigned proto, size_t payload)
{
    const size_t ip_len = v6 ? 40 : 20;
    memset(p, 0, 14 + ip_len);
    tu_fill_random(p, 12);
    tu_put16(p + 12, v6 ? 0x86DD : 0x0800);
    uint8_t *ip = p + 14;
    if (v6) {
        ip[0] = 0x60;
        tu_put16(ip + 4, (unsigned)payload);
        ip[6] = (uint8_t)proto;
        ip[7] = 64;
        tu_fill_random(ip + 8, 32);
    } else {
        ip[0] = 0x45;
        tu_put16(ip + 2, (unsigned)(20 + payload));
        tu_fill_random(ip + 4, 2);
        ip[6] = 0x40; /* DF */
        ip[8] = 64;
        ip[9] = (uint8_t)proto;
        tu_fill_random(ip + 12, 8);
    }
    return 14 + ip_len;
}

size_t tu_build_frame(uint8_t *p, int v6, int udp, size_t n)
{
    const size_t l4_len = udp ? 8 : 32, ip_len = tu_build_eth_ip(p, v6, udp ? 17 : 6, l4_len + n) - 14;
    uint8_t *l4 = p + 14 + ip_len;
    memset(l4, 0, l4_len);
    tu_fill_random(l4, 8);
    if (udp) { /* ports among the dynamic ones (RFC 6335), none a tunnel's: random ones could name
                * GRE-in-UDP or VXLAN, and the payload be read as its header (test_xsk's over-MTU
                * UDP failed so, once in a few hundred runs) */
        tu_put16(l4, 49152 + (unsigned)(tu_rand() % 16384));
        tu_put16(l4 + 2, 49152 + (unsigned)(tu_rand() % 16384));
        tu_put16(l4 + 4, (unsigned)(8 + n));
    } else {
        l4[12] = 0x80; /* 32 bytes: with options */
        l4[13] = (uint8_t)(0x10 | (tu_rand() & 0xC9)); /* ACK, and any of CWR, ECE... FIN, PSH */
        memset(l4 + 20, 1, 12); /* NOPs */
    }
    tu_fill_random(l4 + l4_len, n);
    return 14 + ip_len + l4_len + n;
}
