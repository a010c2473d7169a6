/* inetcsum protocol layer: the IPv4 header checksum, IPv4 and IPv6 pseudo-headers, and CRC32c
 * (SCTP).  Built on the core sums of inetcsum.h and in the same convention: every 16-bit value is
 * in host memory order, so storing it with memcpy into a packet writes the right wire bytes.
 * Addresses are passed as pointers to their wire bytes (4 or 16), at any alignment.
 *
 * Threads.  Every function is thread-safe; the CRC32c kernel is chosen on first use like the sum
 * kernel, from the CPU's features. */
#ifndef INETCSUM_PROTO_H
#define INETCSUM_PROTO_H

#include "inetcsum.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- IPv4 header ------------------------------------------------------------------------------- */

/* The checksum of an IPv4 header of ihl 32-bit words (5..15, options included), like Linux
 * ip_fast_csum(): the complemented folded sum.  Computed over the header as it lies, so with the
 * checksum field zeroed it is the value to store, and over a header with a correct checksum it is 0. */
INETCSUM_API uint16_t inetcsum_ipv4_header(const void *iph, unsigned ihl);

/* ---- Pseudo-headers (RFC 793/768 for IPv4, RFC 8200 section 8.1 for IPv6) ----------------------- */

/* The partial sum of the IPv4 pseudo-header (source, destination, zero, protocol, upper-layer
 * length) added to `sum`.  `len` is the upper-layer length in host order; 32 bits, so a length of
 * 65536 or more is summed as its two 16-bit halves (as IPv6 does), never truncated.
 * Like Linux csum_tcpudp_nofold(). */
INETCSUM_API uint32_t inetcsum_pseudo_ipv4(const void *saddr, const void *daddr, uint8_t proto, uint32_t len,
                                           uint32_t sum);

/* The partial sum of the IPv6 pseudo-header (source, final destination, 32-bit upper-layer length,
 * three zero bytes, next header) added to `sum`.  `daddr` is the final destination: with a Routing
 * header it is the last address, not the IPv6 destination field (the packet layer finds it). */
INETCSUM_API uint32_t inetcsum_pseudo_ipv6(const void *saddr, const void *daddr, uint8_t proto, uint32_t len,
                                           uint32_t sum);

/* The checksum field value for an upper-layer packet whose data (checksum field zeroed) sums to
 * `sum`: Linux csum_tcpudp_magic() and csum_ipv6_magic(). */
static inline uint16_t inetcsum_tcpudp_magic(const void *saddr, const void *daddr, uint32_t len, uint8_t proto,
                                             uint32_t sum)
{
    return inetcsum_final(inetcsum_pseudo_ipv4(saddr, daddr, proto, len, sum));
}

static inline uint16_t inetcsum_ipv6_magic(const void *saddr, const void *daddr, uint32_t len, uint8_t proto,
                                           uint32_t sum)
{
    return inetcsum_final(inetcsum_pseudo_ipv6(saddr, daddr, proto, len, sum));
}

/* ---- CRC32c (Castagnoli), as SCTP uses it (RFC 9260 appendix B) -------------------------------- */

/* The CRC32c of buf[0..len) continuing from `crc`, the CRC32c of everything before it (0 to
 * start): inetcsum_crc32c(b, n, inetcsum_crc32c(a, m, 0)) is the CRC32c of a followed by b.
 * Initial value and final complement are applied inside, as in the RFC: the CRC32c of "123456789"
 * is 0xE3069283.  SCTP stores the value little-endian in its checksum field (computed with the
 * field zeroed).  Uses the CPU's CRC32 instruction where it has one (x86 SSE4.2, ARMv8 CRC). */
INETCSUM_API uint32_t inetcsum_crc32c(const void *buf, size_t len, uint32_t crc);

/* The CRC32c kernel in use ("sse42", "armv8", "table"). */
INETCSUM_API const char *inetcsum_crc32c_impl_name(void);

#ifdef __cplusplus
}
#endif

#endif /* INETCSUM_PROTO_H */
