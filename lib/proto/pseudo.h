/* The IPv4 and IPv6 pseudo-header sums, inlined where the packet layer needs them per packet;
 * inetcsum_pseudo_ipv4/6 are these. */
#ifndef ICS_PROTO_PSEUDO_H
#define ICS_PROTO_PSEUDO_H

#include "../kernels.h"

/* The memory-order 16-bit word whose wire bytes are the big-endian encoding of v: what a load from
 * the packet would give for a field holding v. */
static inline uint32_t wire16(uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return v & 0xFFFF;
#elif defined(__GNUC__)
    /* One rotate (GCC 12 made the shifts and masks below 4-6 instructions where the value is
     * computed, as a segment's lengths are) */
    return __builtin_bswap16((uint16_t)v);
#else
    return ((v >> 8) & 0xFF) | ((v & 0xFF) << 8);
#endif
}

/* The 32-bit length, as two big-endian 16-bit words, and the protocol byte in the low byte of a
 * big-endian word (the zero bytes before it add nothing).  Below 2^18 in total. */
static inline uint64_t length_and_proto(uint32_t len, uint8_t proto)
{
    return (uint64_t)wire16(len >> 16) + wire16(len & 0xFFFF) + wire16(proto);
}

static inline uint32_t ics_pseudo_ipv4(const void *saddr, const void *daddr, uint8_t proto, uint32_t len, uint32_t sum)
{
    const uint8_t *s = (const uint8_t *)saddr, *d = (const uint8_t *)daddr;
    uint64_t t = (uint64_t)sum + ics_load32(s) + ics_load32(d) + length_and_proto(len, proto);
    return ics_reduce64(t);
}

static inline uint32_t ics_pseudo_ipv6(const void *saddr, const void *daddr, uint8_t proto, uint32_t len, uint32_t sum)
{
    const uint8_t *s = (const uint8_t *)saddr, *d = (const uint8_t *)daddr;
    uint64_t t = (uint64_t)sum + length_and_proto(len, proto);
    for (int i = 0; i < 16; i += 4) /* eight 32-bit words: no carry is lost in 64 bits */
        t += (uint64_t)ics_load32(s + i) + ics_load32(d + i);
    return ics_reduce64(t);
}

#endif
