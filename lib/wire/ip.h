/* IPv4 (RFC 791), IPv6 (RFC 8200) and its extension headers, and the IP protocol numbers (IANA;
 * Linux's IPPROTO_*) the library knows.  Offsets are from the header's first byte. */
#ifndef ICS_WIRE_IP_H
#define ICS_WIRE_IP_H

#include <stdint.h>

/* Protocol numbers: what an IPv4 header's protocol or an IPv6 next header names. */
enum {
    ICS_IPPROTO_HOPOPTS = 0, /* IPv6 hop-by-hop options */
    ICS_IPPROTO_ICMP = 1,
    ICS_IPPROTO_IGMP = 2,
    ICS_IPPROTO_IPIP = 4,    /* IPv4 inside */
    ICS_IPPROTO_TCP = 6,
    ICS_IPPROTO_UDP = 17,
    ICS_IPPROTO_IPV6 = 41,   /* IPv6 inside (6in4, 6in6) */
    ICS_IPPROTO_ROUTING = 43,
    ICS_IPPROTO_FRAGMENT = 44,
    ICS_IPPROTO_GRE = 47,
    ICS_IPPROTO_ESP = 50,
    ICS_IPPROTO_AH = 51,
    ICS_IPPROTO_ICMPV6 = 58,
    ICS_IPPROTO_NONE = 59,   /* IPv6: no next header */
    ICS_IPPROTO_DSTOPTS = 60,
    ICS_IPPROTO_SCTP = 132,
    ICS_IPPROTO_DCCP = 33,
    ICS_IPPROTO_RSVP = 46,
    ICS_IPPROTO_NHRP = 54, /* NHRP straight over IP (RFC 2332 allows it; GRE is the usual carrier) */
    ICS_IPPROTO_EIGRP = 88,
    ICS_IPPROTO_OSPF = 89,
    ICS_IPPROTO_PIM = 103,
    ICS_IPPROTO_PGM = 113,
    ICS_IPPROTO_VRRP = 112, /* CARP too */
    ICS_IPPROTO_MH = 135,    /* Mobile IPv6 Mobility Header */
    ICS_IPPROTO_UDPLITE = 136,
    ICS_IPPROTO_ETHERNET = 143, /* an Ethernet frame (RFC 8986, SRv6's End.DX2) */
};

/* The version nibble, the same place in both. */
static inline unsigned ics_ip_version(const uint8_t *ip)
{
    return ip[0] >> 4;
}

/* IPv4 */
enum {
    ICS_IPV4_VER_IHL = 0,    /* version (4) and header length in 4-byte words */
    ICS_IPV4_TOS = 1,
    ICS_IPV4_TOT_LEN = 2,
    ICS_IPV4_ID = 4,
    ICS_IPV4_FRAG_OFF = 6,   /* flags and fragment offset (8-byte units) */
    ICS_IPV4_TTL = 8,
    ICS_IPV4_PROTOCOL = 9,
    ICS_IPV4_CHECK = 10,
    ICS_IPV4_SADDR = 12,
    ICS_IPV4_DADDR = 16,
    ICS_IPV4_HLEN = 20,      /* without options */
    ICS_IPV4_VER_IHL_PLAIN = 0x45, /* version 4, no options */
    ICS_IPV4_ADDR_LEN = 4,
};

/* The most a 16-bit IP length says: an IPv4 total length, an IPv6 payload length (and a UDP
 * length).  A packet past it (a jumbogram, RFC 2675; BIG TCP) has 0 there: its carrier's length
 * counts. */
enum { ICS_IP_MAX_LEN = 65535 };

/* The 16-bit flags and fragment offset field. */
enum {
    ICS_IP_DF = 0x4000,
    ICS_IP_MF = 0x2000,
    ICS_IP_OFFSET = 0x1FFF,
    ICS_IP_FRAGMENTED = ICS_IP_MF | ICS_IP_OFFSET, /* a fragment: more follow, or not the first */
};

static inline unsigned ics_ipv4_hlen(const uint8_t *ip)
{
    return (unsigned)(ip[ICS_IPV4_VER_IHL] & 15) * 4;
}

/* IPv4 options: end of list, no-op, and the source routes whose last address is the final
 * destination while the route is not complete (RFC 791: type, length, pointer, addresses). */
enum {
    ICS_IPOPT_END = 0,
    ICS_IPOPT_NOOP = 1,
    ICS_IPOPT_LSRR = 131,
    ICS_IPOPT_SSRR = 137,
    ICS_IPOPT_ROUTE_MIN_LEN = 7, /* type, length, pointer and one address */
    ICS_IPOPT_ROUTE_DATA = 3,    /* the first address */
};

/* IPv6 */
#define ICS_IPV6_VERSION_FLOW_MASK 0xF00FFFFFu /* the first word but the traffic class */
enum {
    ICS_IPV6_PAYLOAD_LEN = 4,
    ICS_IPV6_NEXTHDR = 6,
    ICS_IPV6_HOP_LIMIT = 7,
    ICS_IPV6_SADDR = 8,
    ICS_IPV6_DADDR = 24,
    ICS_IPV6_HLEN = 40,
    ICS_IPV6_ADDR_LEN = 16,
};

/* Extension headers: the next header, then a length.  Hop-by-hop, destination options and routing
 * headers count it in 8-byte units beyond the first 8; AH in 4-byte units beyond the first 8. */
enum { ICS_IPV6_OPT_NEXTHDR = 0, ICS_IPV6_OPT_LEN = 1 };

static inline unsigned ics_ipv6_opt_hlen(const uint8_t *h)
{
    return ((unsigned)h[ICS_IPV6_OPT_LEN] + 1) * 8;
}

static inline unsigned ics_ipv6_ah_hlen(const uint8_t *h)
{
    return ((unsigned)h[ICS_IPV6_OPT_LEN] + 2) * 4;
}

/* Options in hop-by-hop and destination options headers: Pad1 (one byte), and the two that change
 * a checksum, the jumbo payload length (RFC 2675) and the home address (RFC 6275). */
enum {
    ICS_IPV6_TLV_PAD1 = 0,
    ICS_IPV6_TLV_JUMBO = 0xC2,
    ICS_IPV6_TLV_JUMBO_LEN = 4,
    ICS_JUMBO_HBH_LEN = 8, /* a hop-by-hop header holding the jumbo option alone */
    ICS_IPV6_TLV_HAO = 201,
    ICS_IPV6_TLV_HAO_LEN = 16,
    ICS_IPV6_OPTS_FIRST = 2, /* the first option, after next header and length */
};

/* The routing header: type, segments left, then (type 0: addresses; type 2: one; SRH type 4:
 * segment list, its first entry the final destination) from byte 8.  RPL (type 3, RFC 6554):
 * CmprI and CmprE nibbles, a Pad nibble, addresses with their first bytes elided. */
enum {
    ICS_RT_TYPE = 2,
    ICS_RT_SEGLEFT = 3,
    ICS_RT_DATA = 8,
    ICS_RT_RPL_CMPR = 4, /* CmprI << 4 | CmprE */
    ICS_RT_RPL_PAD = 5,  /* Pad << 4 */
    ICS_RT_TYPE0 = 0,
    ICS_RT_TYPE2 = 2,    /* Mobile IPv6 */
    ICS_RT_RPL = 3,
    ICS_RT_SRH = 4,      /* segment routing (RFC 8754) */
};

/* The fragment header: next header, reserved, offset (8-byte units, in the top 13 bits) with the M
 * flag in bit 0, identification. */
enum {
    ICS_FRAG6_OFF = 2,
    ICS_FRAG6_ID = 4,
    ICS_FRAG6_HLEN = 8,
    ICS_FRAG6_OFFSET = 0xFFF8,
    ICS_FRAG6_MF = 0x0001,
    ICS_FRAG6_FRAGMENTED = 0xFFF9, /* offset or M: a fragment */
};

#endif
