/* The per-protocol checksum rules, shared by the contiguous entry points (l4.c) and the packet
 * layer, which sums scattered frames itself and only asks these functions for the verdict. */
#ifndef ICS_PROTO_L4_H
#define ICS_PROTO_L4_H

#include "inetcsum_proto.h"

/* Where each layer keeps its checksum and what it needs. */
struct ics_l4_rule {
    uint8_t field;   /* offset of the checksum field in the header */
    uint8_t min_len; /* shortest header that holds the field */
    uint8_t pseudo;  /* 1: the sum includes a pseudo-header */
};
extern const struct ics_l4_rule ics_l4_rules[INETCSUM_LAYER_COUNT];

/* The network-order value of a 16-bit field loaded in memory order (what the reports show). */
static inline uint32_t ics_net16(uint16_t mem)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return mem;
#else
    return (uint16_t)((mem >> 8) | (mem << 8));
#endif
}

/* The verdict on a 16-bit Internet checksum.  stored_mem: the field as loaded from memory.
 * covered_sum: the partial sum of every covered byte as it lies, the field included.  pseudo:
 * the pseudo-header partial sum (0 where the layer has none).  flags: INETCSUM_OVER_IPV6,
 * INETCSUM_UDP6_ZERO_OK. */
struct inetcsum_verdict ics_inet_verdict(enum inetcsum_layer layer, uint16_t stored_mem, uint32_t covered_sum,
                                         uint32_t pseudo, unsigned flags);

/* Writes a verdict's expected value into its field: expected is the field's wire bytes read in
 * network order, so this is a big-endian store of the field's width (2, or 4 for SCTP). */
static inline void ics_put_expected(uint8_t *field, uint32_t expected, size_t width)
{
    for (size_t i = 0; i < width; i++)
        field[i] = (uint8_t)(expected >> (8 * (width - 1 - i)));
}

/* A little-endian 32-bit field (SCTP's CRC), on any host. */
static inline uint32_t ics_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* The verdict on SCTP's CRC32c: stored_crc is the field read little-endian (ics_le32),
 * crc the CRC32c of the message with the field taken as zero. */
struct inetcsum_verdict ics_sctp_verdict(uint32_t stored_crc, uint32_t crc);

/* Whether fill writes a field with this verdict (see inetcsum_l4_fill). */
int ics_fill_wanted(const struct inetcsum_verdict *v, unsigned flags);

/* UDP-Lite's checksum coverage from its header (hdr[4..6)) and the datagram length: 0 when it is
 * outside 8..len (illegal, RFC 3828 3.1); a stored 0 means the whole datagram. */
uint32_t ics_udplite_coverage(const uint8_t *hdr, size_t len);

#endif
