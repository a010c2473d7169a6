/* The benchmark's anchors (anchors.h), compiled -O3 -march=native as a user of them would: the
 * read-bandwidth limit (a loop that only loads every byte, with the widest vectors this machine
 * has, and XORs them so the loads cannot be dropped) and, when the build found Debian's
 * libdpdk-dev (ICS_BENCH_DPDK), DPDK's __rte_raw_cksum inlined into its timing loop exactly as it
 * is into a DPDK application, its known-layout packet checksums, and its CRC32c, rte_hash_crc (one
 * crc32 instruction stream, as DPDK applications checksum SCTP with it). */
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
#if defined(ICS_BENCH_DPDK)
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_version.h>
#endif

#include "anchors.h"
#include "kernels.h"
#include "timing.h"

/* The read limit (DESIGN.md section 4): every cache line the buffer touches loaded exactly once,
 * with loads aligned to the vector width (so none splits a line, whatever the start address), into
 * four independent XOR chains.  Nothing that reads the data can be faster.  With AVX-512 the first
 * and last vectors are byte-masked, so no byte outside the buffer is read; with AVX2 (no byte
 * masks) the aligned vectors that hold the buffer's ends are loaded whole: they lie in the cache
 * lines the buffer touches, which is all the limit is about (hence no_sanitize_address).  Without
 * x86 vectors, 8-byte loads. */
#if defined(__AVX512BW__)
typedef __m512i vec;
#define VLOAD(p) _mm512_load_si512((const void *)(p))
#define VXOR(a, b) _mm512_xor_si512(a, b)
#define VZERO() _mm512_setzero_si512()
#define VFIRST(v) ((uint64_t)_mm_cvtsi128_si64(_mm512_castsi512_si128(v)))
#define VEDGE(m, p) _mm512_maskz_loadu_epi8(m, (const void *)(p))
#define ISA "avx512"
#elif defined(__AVX2__)
typedef __m256i vec;
#define VLOAD(p) _mm256_load_si256((const __m256i *)(p))
#define VXOR(a, b) _mm256_xor_si256(a, b)
#define VZERO() _mm256_setzero_si256()
#define VFIRST(v) ((uint64_t)_mm_cvtsi128_si64(_mm256_castsi256_si128(v)))
#define VEDGE(m, p) ((void)(m), VLOAD(p))
#define ISA "avx2"
#else
typedef uint64_t vec;
#define VLOAD(p) ics_load64(p)
#define VXOR(a, b) ((a) ^ (b))
#define VZERO() ((uint64_t)0)
#define VFIRST(v) (v)
#define VEDGE(m, p) ((void)(m), VLOAD(p))
#define ISA "scalar"
#endif
#define W sizeof(vec)

const char *anchor_read_limit_isa(void)
{
    return ISA;
}

__attribute__((no_sanitize_address)) static inline uint64_t read_all(const uint8_t *p, size_t len)
{
    if (len == 0)
        return 0;
    const size_t head = (uintptr_t)p & (W - 1);
    const uint8_t *a = p - head;
    const size_t span = head + len, rest = span & (W - 1);
    const uint64_t first = ~(uint64_t)0 << head, last = rest ? ((uint64_t)1 << rest) - 1 : ~(uint64_t)0;
    if (span <= W)
        return VFIRST(VEDGE(first & last, a));
    vec v0 = VEDGE(first, a), v1 = VZERO(), v2 = VZERO(), v3 = VZERO();
    const uint8_t *const tail = a + ((span - 1) & ~(W - 1)); /* the last vector */
    for (a += W; tail - a >= (ptrdiff_t)(4 * W); a += 4 * W) {
        v0 = VXOR(v0, VLOAD(a));
        v1 = VXOR(v1, VLOAD(a + W));
        v2 = VXOR(v2, VLOAD(a + 2 * W));
        v3 = VXOR(v3, VLOAD(a + 3 * W));
    }
    for (; a < tail; a += W)
        v1 = VXOR(v1, VLOAD(a));
    v2 = VXOR(v2, VEDGE(last, tail));
    return VFIRST(VXOR(VXOR(v0, v1), VXOR(v2, v3)));
}

DEFINE_TIMED_LOOP(, loop_read_limit, read_all(src, len))
DEFINE_LATENCY_LOOP(, loop_read_limit_latency, read_all(src, len))
DEFINE_TIMED_LOOP(, loop_memcpy, (memcpy(dst, src, len), 0))

uint32_t anchor_read_all(const void *buf, size_t len)
{
    return (uint32_t)read_all(buf, len);
}

uint32_t anchor_read_limit_partial(const void *buf, size_t len, uint32_t seed)
{
    return (uint32_t)read_all(buf, len) ^ seed;
}

uint32_t anchor_compiled_features(void)
{
    return 0
#if defined(__AVX2__)
           | ICS_CPU_AVX2
#endif
#if defined(__AVX512BW__)
           | ICS_CPU_AVX512BW
#endif
#if defined(__AVX512VNNI__)
           | ICS_CPU_AVX512VNNI
#endif
#if defined(__SSE4_2__)
           | ICS_CPU_SSE42
#endif
#if defined(__PCLMUL__)
           | ICS_CPU_PCLMUL
#endif
        ;
}

#if defined(ICS_BENCH_DPDK)
int anchor_have_dpdk(void)
{
    return 1;
}

const char *anchor_dpdk_version(void)
{
    return rte_version();
}

uint32_t anchor_dpdk_sum(const void *buf, size_t len)
{
    return __rte_raw_cksum(buf, len, 0);
}

uint32_t anchor_dpdk_partial(const void *buf, size_t len, uint32_t seed)
{
    return __rte_raw_cksum(buf, len, seed);
}

DEFINE_TIMED_LOOP(, loop_dpdk, __rte_raw_cksum(src, len, 0))
DEFINE_LATENCY_LOOP(, loop_dpdk_latency, __rte_raw_cksum(src, len, 0))
DEFINE_TIMED_LOOP(, loop_memcpy_dpdk, (memcpy(dst, src, len), __rte_raw_cksum(dst, len, 0)))

/* DPDK's known-layout packet checksums, as a DPDK application writes them for an Ethernet frame
 * whose layout it knows (IPv4 or IPv6 right after a 14-byte Ethernet header, TCP or UDP after a
 * 20-byte IPv4 header or the 40-byte IPv6 header): verify the IPv4 header and the L4 checksum, or
 * fill both. */
static inline int dpdk_verify(const uint8_t *frame)
{
    const void *ip = frame + 14;
    if ((frame[14] >> 4) == 4)
        return rte_ipv4_cksum((const struct rte_ipv4_hdr *)ip) +
               rte_ipv4_udptcp_cksum_verify((const struct rte_ipv4_hdr *)ip, frame + 34);
    return rte_ipv6_udptcp_cksum_verify((const struct rte_ipv6_hdr *)ip, frame + 54);
}

static inline uint16_t dpdk_fill(uint8_t *frame)
{
    if ((frame[14] >> 4) == 4) {
        struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(frame + 14);
        uint8_t *l4 = frame + 34;
        uint16_t *field = (uint16_t *)(l4 + (ip->next_proto_id == IPPROTO_TCP ? 16 : 6));
        ip->hdr_checksum = 0;
        ip->hdr_checksum = rte_ipv4_cksum(ip);
        *field = 0;
        *field = rte_ipv4_udptcp_cksum(ip, l4);
        return *field;
    }
    struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(frame + 14);
    uint8_t *l4 = frame + 54;
    uint16_t *field = (uint16_t *)(l4 + (ip6->proto == IPPROTO_TCP ? 16 : 6));
    *field = 0;
    *field = rte_ipv6_udptcp_cksum(ip6, l4);
    return *field;
}

DEFINE_TIMED_LOOP(, loop_dpdk_verify, dpdk_verify(src))
DEFINE_TIMED_LOOP(, loop_dpdk_fill, dpdk_fill(dst))

/* rte_hash_crc takes and returns the raw register (no complements): wrapped as inetcsum_crc32c. */
uint32_t anchor_dpdk_crc32c(const void *buf, size_t len, uint32_t crc)
{
    return ~rte_hash_crc(buf, (uint32_t)len, ~crc);
}

DEFINE_TIMED_LOOP(, loop_dpdk_crc32c, rte_hash_crc(src, (uint32_t)len, 0xFFFFFFFFu))

#else /* no DPDK: callers check anchor_have_dpdk() first */
int anchor_have_dpdk(void)
{
    return 0;
}

const char *anchor_dpdk_version(void)
{
    return "no DPDK";
}
#endif
