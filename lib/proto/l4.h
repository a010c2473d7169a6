/* The per-protocol checksum rules (each layer's row in layers.h says where its field is and which
 * of them apply), shared by the contiguous entry points (l4.c) and the packet layer, which sums scattered frames itself and only asks these functions for the verdict.  The
 * verdict and fill rules are inline: the packet layer applies them per checksum, often with the
 * layer known at compile time. */
#ifndef ICS_PROTO_L4_H
#define ICS_PROTO_L4_H

#include "inetcsum_proto.h"
#include "layers.h"
#include "../kernels.h"
#include "../wire/wire.h"

/* The network-order value of a 16-bit field loaded in memory order (what the reports show). */
static inline uint32_t ics_net16(uint16_t mem)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return mem;
#else
    return (uint16_t)((mem >> 8) | (mem << 8));
#endif
}

static inline int ics_is_udp(enum inetcsum_layer layer)
{
    return layer == INETCSUM_LAYER_UDP || layer == INETCSUM_LAYER_UDPLITE;
}

/* The expected field of a 16-bit Internet checksum (its wire bytes in network order): total is
 * the sum of every covered byte, the field and any pseudo-header included. */
static inline uint32_t ics_inet_expected(enum inetcsum_layer layer, uint16_t stored_mem, uint32_t total)
{
    /* The sum without the field: subtracting in ones' complement is adding the complement. */
    uint16_t want = (uint16_t)~ics_fold16(ics_add32(total, (uint16_t)~stored_mem));
    if (ics_is_udp(layer))
        want = ics_udp_field(want);
    /* Subtracting the field by adding its complement cannot tell data summing to -0 (checksum
     * 0x0000 or 0xFFFF both verify) from all-zero data (only 0xFFFF verifies).  With a
     * pseudo-header the data is never all zero (the protocol number is in it), nor is an IPv4
     * header (its version nibble): there 0x0000 is the checksum, as Linux's ip_fast_csum and
     * every device compute it; without one (ICMP, IGMP, GRE, all-zero messages as fuzzers make
     * them) 0xFFFF is right in both cases. */
    if (want == 0 && !ics_layers[layer].pseudo && layer != INETCSUM_LAYER_IPV4)
        want = 0xFFFF;
    return ics_net16(want);
}

/* The verdict on a 16-bit Internet checksum.  stored_mem: the field as loaded from memory.
 * covered_sum: the partial sum of every covered byte as it lies, the field included.  pseudo:
 * the pseudo-header partial sum (0 where the layer has none).  flags: INETCSUM_OVER_IPV6,
 * INETCSUM_UDP6_ZERO_OK. */
/* (always inlined: where the layer is a constant, as in the common-case shortcut, its rules fold
 * away; when a fragment shortcut beside that one grew verify.c, GCC called it out of line there,
 * 3% more instructions for verify on a capture.) */
static inline __attribute__((always_inline)) struct inetcsum_verdict
ics_inet_verdict(enum inetcsum_layer layer, uint16_t stored_mem, uint32_t covered_sum, uint32_t pseudo,
                 unsigned flags)
{
    struct inetcsum_verdict v = {INETCSUM_BAD, ics_net16(stored_mem), 0};
    int pseudo_used = ics_layers[layer].pseudo;
    uint32_t total = pseudo_used ? ics_add32(covered_sum, pseudo) : covered_sum;
    if (stored_mem == 0 && ics_layers[layer].zero_none) {
        v.status = INETCSUM_ABSENT;
        v.expected = ics_inet_expected(layer, stored_mem, total);
        return v;
    }
    if (stored_mem == 0 && ics_is_udp(layer)) {
        v.expected = ics_inet_expected(layer, stored_mem, total);
        if (layer == INETCSUM_LAYER_UDPLITE)
            v.status = INETCSUM_ILLEGAL; /* RFC 3828 3.1: the checksum is mandatory */
        else if (!(flags & INETCSUM_OVER_IPV6) || (flags & INETCSUM_UDP6_ZERO_OK))
            v.status = INETCSUM_ABSENT;
        else
            v.status = INETCSUM_ILLEGAL;
        return v;
    }
    /* Good when the whole sum folds to -0; both 0x0000 and 0xFFFF pass where they are equivalent.
     * Tested first: it is the common case, and needs no expected value of its own. */
    if (ics_fold16(total) == 0xFFFF) {
        v.status = INETCSUM_GOOD;
        v.expected = v.stored;
        return v;
    }
    v.expected = ics_inet_expected(layer, stored_mem, total);
    if (ics_layers[layer].seeded && stored_mem == ics_fold16(pseudo))
        v.status = INETCSUM_PARTIAL;
    return v;
}

/* Writes a verdict's expected value into its field: expected is the field's wire bytes read in
 * network order, so this is a big-endian store of the field's width (2, or 4 for SCTP). */
static inline void ics_put_expected(uint8_t *field, uint32_t expected, size_t width)
{
    for (size_t i = 0; i < width; i++)
        field[i] = (uint8_t)(expected >> (8 * (width - 1 - i)));
}

/* The verdict on SCTP's CRC32c: stored_crc is the field read little-endian (ics_get_le32),
 * crc the CRC32c of the message with the field taken as zero. */
struct inetcsum_verdict ics_sctp_verdict(uint32_t stored_crc, uint32_t crc);

/* Whether fill writes a field with this verdict (see inetcsum_l4_fill). */
static inline int ics_fill_wanted(const struct inetcsum_verdict *v, unsigned flags)
{
    switch (v->status) {
    case INETCSUM_BAD:
    case INETCSUM_PARTIAL:
    case INETCSUM_ILLEGAL:
        return 1;
    case INETCSUM_GOOD:
        return (flags & INETCSUM_FILL_ALL) && v->stored != v->expected;
    case INETCSUM_ABSENT:
        return (flags & INETCSUM_FILL_UDP_ZERO) != 0;
    default:
        return 0;
    }
}

/* UDP-Lite's checksum coverage from its header (hdr[4..6)) and the datagram length: 0 when it is
 * outside 8..len (illegal, RFC 3828 3.1); a stored 0 means the whole datagram. */
uint32_t ics_udplite_coverage(const uint8_t *hdr, size_t len);

#endif
