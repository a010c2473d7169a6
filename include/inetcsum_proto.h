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
 * checksum field zeroed it is the value to store, and over a header with a correct checksum it is 0.
 * An ihl outside 5..15 is no IPv4 header: nothing is read and 0xFFFF returned. */
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

/* ---- Upper-layer checksums: which field, which rules ------------------------------------------- */

/* Every checksum the packet layer knows, as named in reports ("ipv4", "tcp", ...).  A pseudo-header
 * is summed for TCP, UDP, UDP-Lite, ICMPv6, MH, DCCP, and PIM, OSPF and VRRP over IPv6 (PIM and
 * OSPFv3) or in version 3 (VRRPv3); the others cover their own bytes only. */
enum inetcsum_layer {
    INETCSUM_LAYER_IPV4 = 0, /* IPv4 header checksum */
    INETCSUM_LAYER_TCP,
    INETCSUM_LAYER_UDP,
    INETCSUM_LAYER_UDPLITE, /* RFC 3828: covers the first `coverage` bytes */
    INETCSUM_LAYER_ICMP,    /* ICMPv4: no pseudo-header */
    INETCSUM_LAYER_ICMPV6,  /* with the IPv6 pseudo-header (RFC 4443) */
    INETCSUM_LAYER_IGMP,    /* no pseudo-header */
    INETCSUM_LAYER_GRE,     /* RFC 2784: present only with the C bit; no pseudo-header */
    INETCSUM_LAYER_SCTP,    /* CRC32c, little-endian on the wire (RFC 9260 appendix B) */
    INETCSUM_LAYER_MH,      /* Mobile IPv6 Mobility Header (RFC 6275 6.1): IPv6 pseudo-header, its own length */
    INETCSUM_LAYER_PIM,     /* PIM (RFC 7761 4.9): the whole message, a Register its first 8 bytes only;
                             * the IPv6 pseudo-header over IPv6, none over IPv4 */
    INETCSUM_LAYER_OSPF,    /* OSPFv2 (RFC 2328 D.4: all but the 8-byte authentication field, none with
                             * cryptographic authentication), OSPFv3 (RFC 5340 A.3.1: IPv6 pseudo-header) */
    INETCSUM_LAYER_VRRP,    /* VRRPv2 and CARP (no pseudo-header), VRRPv3 (RFC 5798 5.2.8: pseudo-header) */
    INETCSUM_LAYER_EIGRP,   /* EIGRP (RFC 7868 6.5): the whole message, no pseudo-header */
    INETCSUM_LAYER_DCCP,    /* DCCP (RFC 4340 9.1): pseudo-header, its Checksum Coverage */
    INETCSUM_LAYER_RSVP,    /* RSVP (RFC 2205 3.1.1): its message; 0 means none was sent */
    INETCSUM_LAYER_NHRP,    /* NHRP (RFC 2332 5.2.1): the whole packet, no pseudo-header */
    INETCSUM_LAYER_FCS,     /* an Ethernet frame check sequence (CRC-32, little-endian on the wire), when
                             * the capture's link type says frames end with one: offset 0, length the
                             * bytes before it, the field right after them */
    INETCSUM_LAYER_PGM,     /* PGM (RFC 3208 8): the whole packet, no pseudo-header; 0 means none was sent */
    INETCSUM_LAYER_COUNT
};

/* What a checksum field holds. */
enum inetcsum_status {
    INETCSUM_GOOD = 0,     /* correct (0x0000 and 0xFFFF both accepted where they are equivalent) */
    INETCSUM_BAD,          /* wrong */
    INETCSUM_PARTIAL,      /* wrong, but holds exactly the folded pseudo-header sum (SCTP: zero):
                            * what a stack leaves for TX offload, seen in captures taken on the sender */
    INETCSUM_ABSENT,       /* UDP over IPv4 with 0: no checksum was sent (RFC 768); not a problem */
    INETCSUM_ILLEGAL,      /* a value the protocol forbids: UDP over IPv6 with 0 (RFC 8200 8.1),
                            * UDP-Lite with 0 or a coverage outside 8..length (RFC 3828) */
    INETCSUM_UNVERIFIABLE, /* cannot be checked: truncated capture, first fragment, malformed header */
    INETCSUM_STATUS_COUNT
};

/* A layer's name as JSON and the Python package write it: "ipv4", "tcp", "udp", "udplite", "icmp",
 * "icmpv6", "igmp", "gre", "sctp", "mh", "pim", "ospf", "vrrp", "eigrp", "dccp", "rsvp", "nhrp",
 * "fcs", "pgm" (INETCSUM_LAYER_COUNT of them, in the enum's order); "?" out of range. */
INETCSUM_API const char *inetcsum_layer_name(enum inetcsum_layer layer);
/* The same as people read it in reports: "IPv4", "TCP", "UDP-Lite", "ICMPv6", ...; "?" out of
 * range. */
INETCSUM_API const char *inetcsum_layer_display_name(enum inetcsum_layer layer);
/* The layer inetcsum_layer_name calls `name` ("udplite"), or -1. */
INETCSUM_API int inetcsum_layer_from_name(const char *name);
/* "good", "bad", "partial", "absent", "illegal", "unverifiable"; "?" out of range. */
INETCSUM_API const char *inetcsum_status_name(enum inetcsum_status status);

/* Flags for the verify and fill functions (here and in inetcsum_packet.h). */
#define INETCSUM_OVER_IPV6 0x1u      /* the message is carried by IPv6 (UDP 0 is then illegal) */
#define INETCSUM_UDP6_ZERO_OK 0x2u   /* RFC 6935/6936: accept UDP/IPv6 0 as "absent" (tunnels) */
#define INETCSUM_FILL_UDP_ZERO 0x4u  /* fill: also compute an "absent" UDP checksum of 0 */
#define INETCSUM_FILL_ALL 0x8u       /* fill: rewrite good checksums too (into the canonical form) */

/* The verdict on one checksum.  stored and expected are the field as its wire bytes read in network
 * order (the way Wireshark shows it: a 16-bit value, or SCTP's 32 bits as they lie).  expected is
 * what fill would store; it equals stored for a good checksum, and is 0 when it cannot be known. */
struct inetcsum_verdict {
    enum inetcsum_status status;
    uint32_t stored;
    uint32_t expected;
};

/* Verify one upper-layer message msg[0..len) of the given layer (not INETCSUM_LAYER_IPV4: use
 * inetcsum_ipv4_header), without modifying it.  `pseudo` is the partial sum of its pseudo-header
 * (inetcsum_pseudo_ipv4/6 with this protocol and len) for TCP, UDP, UDP-Lite and ICMPv6, and is
 * ignored for the others.  `flags`: INETCSUM_OVER_IPV6, INETCSUM_UDP6_ZERO_OK.  A message shorter
 * than its header is INETCSUM_UNVERIFIABLE. */
INETCSUM_API struct inetcsum_verdict inetcsum_l4_verify(enum inetcsum_layer layer, const void *msg, size_t len,
                                                        uint32_t pseudo, unsigned flags);

/* Fill the checksum of one upper-layer message in place, by the same rules: written when the
 * verdict is bad, partial or illegal (a UDP-Lite coverage outside its range is left alone: it has
 * no right value); good ones are left byte for byte unless INETCSUM_FILL_ALL, "absent" ones unless
 * INETCSUM_FILL_UDP_ZERO.  UDP and UDP-Lite send a computed 0 as 0xFFFF.  GRE without the C bit
 * has no field and is left alone.  Returns the verdict before filling. */
INETCSUM_API struct inetcsum_verdict inetcsum_l4_fill(enum inetcsum_layer layer, void *msg, size_t len,
                                                      uint32_t pseudo, unsigned flags);

/* ---- CRC32c (Castagnoli), as SCTP uses it (RFC 9260 appendix B) -------------------------------- */

/* The CRC32c of buf[0..len) continuing from `crc`, the CRC32c of everything before it (0 to
 * start): inetcsum_crc32c(b, n, inetcsum_crc32c(a, m, 0)) is the CRC32c of a followed by b.
 * Initial value and final complement are applied inside, as in the RFC: the CRC32c of "123456789"
 * is 0xE3069283.  SCTP stores the value little-endian in its checksum field (computed with the
 * field zeroed).  Uses the CPU's CRC32 instruction where it has one (x86 SSE4.2, ARMv8 CRC). */
INETCSUM_API uint32_t inetcsum_crc32c(const void *buf, size_t len, uint32_t crc);

/* CRC32c kernels are chosen as the sum's are (inetcsum.h): the best for this CPU, or the one the
 * environment variable INETCSUM_CRC32C_IMPL names at start-up, or inetcsum_crc32c_set_impl's.
 * Names: "vpclmul" (VPCLMULQDQ folding, 512-bit), "sse42-clmul" (three crc32 streams joined by
 * PCLMULQDQ), "sse42", "armv8", "table" (slicing-by-8). */

/* The CRC32c kernel in use, e.g. "sse42-clmul".  Never NULL. */
INETCSUM_API const char *inetcsum_crc32c_impl_name(void);

/* Selects a CRC32c kernel by name; NULL selects the best one for this CPU.  Returns 0, or -1 (and
 * changes nothing) if the name is unknown or this CPU cannot run it. */
INETCSUM_API int inetcsum_crc32c_set_impl(const char *name);

/* The CRC32c kernels this CPU can run, best first, into names[0..max); returns how many there are. */
INETCSUM_API size_t inetcsum_crc32c_impl_list(const char **names, size_t max);

/* The same for every CRC32c kernel compiled into this build. */
INETCSUM_API size_t inetcsum_crc32c_impl_list_built(const char **names, size_t max);

/* Short inputs in the caller's own code (issue 35): a caller compiled for SSE4.2 (DPDK's default
 * machine, -march=x86-64-v2 and later, -march=native on any x86-64 since 2008) computes CRC32c
 * below INETCSUM_INLINE_CRC32C_MAX bytes (256 unless defined before including) with one stream of
 * crc32 instructions, as DPDK's rte_hash_crc does, without the call, its dispatch or the
 * complements around it; longer inputs call the library, whose kernels join streams from 256 B.
 * On the Zen 3 guest (`inetcsum bench crc32c`, "inetcsum inlined", three runs) 0.73-0.75x DPDK's
 * time at 12 B, 0.80 at 64 B, 0.53-0.78 at 100 B, 0.98-1.10 at 128-200 B, where the library's
 * call takes 1.43-1.63x, 1.43-1.46x and 1.10-1.28x (docs/perf.md).  DPDK's pkg-config flags
 * (-march=corei7) give every DPDK application this path.  It does not look at
 * INETCSUM_CRC32C_IMPL or inetcsum_crc32c_set_impl(): a caller who wants every length to go
 * through the chosen kernel defines INETCSUM_NO_INLINE_CRC32C (or INETCSUM_NO_INLINE) before
 * including.
 * INETCSUM_INLINE_CRC32C is 1 where the path is compiled in, else 0. */
#if defined(__x86_64__) && defined(__SSE4_2__) && !defined(INETCSUM_NO_INLINE_CRC32C) && !defined(INETCSUM_NO_INLINE)
#define INETCSUM_INLINE_CRC32C 1
#include <nmmintrin.h>
#include <string.h>
#ifndef INETCSUM_INLINE_CRC32C_MAX
#define INETCSUM_INLINE_CRC32C_MAX 256 /* (where the kernels start joining streams) */
#endif
#if INETCSUM_INLINE_CRC32C_MAX > 65536
#error "INETCSUM_INLINE_CRC32C_MAX: at most 65536"
#endif
static inline uint32_t inetcsum_crc32c_inline(const void *buf, size_t len, uint32_t crc)
{
    if (len >= INETCSUM_INLINE_CRC32C_MAX)
        return (inetcsum_crc32c)(buf, len, crc);
    const unsigned char *p = (const unsigned char *)buf;
    uint64_t r = (uint32_t)~crc, w; /* the register: the running value's complement */
    /* Below 128 B the compiler unrolls the 8-byte steps whole, each with its exit test (none is
     * taken but the last); from there a loop.  On the Zen 3 guest the loop alone ran 1.3x slower
     * at 64-100 B, and the unrolled code alone would be 31 steps at every call site. */
    if (len < 128) {
        for (; len >= 8; p += 8, len -= 8) {
            memcpy(&w, p, 8);
            r = _mm_crc32_u64(r, w);
        }
    } else {
        for (; len >= 8; p += 8, len -= 8) {
            memcpy(&w, p, 8);
            r = _mm_crc32_u64(r, w);
        }
    }
    uint32_t r32 = (uint32_t)r;
    if (len & 4) {
        uint32_t w4;
        memcpy(&w4, p, 4);
        r32 = _mm_crc32_u32(r32, w4);
        p += 4;
    }
    if (len & 2) {
        uint16_t w2;
        memcpy(&w2, p, 2);
        r32 = _mm_crc32_u16(r32, w2);
        p += 2;
    }
    if (len & 1)
        r32 = _mm_crc32_u8(r32, *p);
    return ~r32;
}
#define inetcsum_crc32c(buf, len, crc) inetcsum_crc32c_inline(buf, len, crc)
#else
#define INETCSUM_INLINE_CRC32C 0
#endif

#ifdef __cplusplus
}
#endif

#endif /* INETCSUM_PROTO_H */
