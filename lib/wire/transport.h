/* The headers above IP that carry a checksum, with their field offsets: TCP (RFC 9293), UDP
 * (RFC 768) and UDP-Lite (RFC 3828), ICMP (RFC 792), ICMPv6 (RFC 4443), IGMP, SCTP (RFC 9260), the
 * Mobility Header (RFC 6275).  Offsets are from the header's first byte. */
#ifndef ICS_WIRE_TRANSPORT_H
#define ICS_WIRE_TRANSPORT_H

#include <stdint.h>

/* TCP */
enum {
    ICS_TCP_SPORT = 0,
    ICS_TCP_DPORT = 2,
    ICS_TCP_SEQ = 4,
    ICS_TCP_ACK_SEQ = 8,
    ICS_TCP_DOFF = 12,  /* data offset in 4-byte words (top nibble) */
    ICS_TCP_FLAGS = 13,
    ICS_TCP_WINDOW = 14,
    ICS_TCP_CHECK = 16,
    ICS_TCP_URG_PTR = 18,
    ICS_TCP_HLEN = 20,  /* without options */
};

/* TCP flag bits (byte ICS_TCP_FLAGS). */
enum {
    ICS_TCP_FIN = 0x01,
    ICS_TCP_SYN = 0x02,
    ICS_TCP_RST = 0x04,
    ICS_TCP_PSH = 0x08,
    ICS_TCP_ACK = 0x10,
    ICS_TCP_URG = 0x20,
    ICS_TCP_ECE = 0x40,
    ICS_TCP_CWR = 0x80,
};

static inline unsigned ics_tcp_hlen(const uint8_t *th)
{
    return (unsigned)(th[ICS_TCP_DOFF] >> 4) * 4;
}

/* UDP and UDP-Lite (whose length field is its checksum coverage) */
enum { ICS_UDP_SPORT = 0, ICS_UDP_DPORT = 2, ICS_UDP_LEN = 4, ICS_UDP_CHECK = 6, ICS_UDP_HLEN = 8 };

/* RFC 768: a UDP checksum computed as 0 is sent as all ones, 0 in the field meaning "none" (the
 * other Internet checksums read either form of -0 as right).  c: the computed field, either byte
 * order (all ones reads the same in both). */
static inline uint16_t ics_udp_field(uint16_t c)
{
    return c ? c : 0xFFFF;
}

/* ICMP and ICMPv6: type, code, checksum, then 4 bytes that depend on the type; an error quotes the
 * packet that caused it after those 8 bytes. */
enum { ICS_ICMP_TYPE = 0, ICS_ICMP_CODE = 1, ICS_ICMP_CHECK = 2, ICS_ICMP_REST = 4, ICS_ICMP_HLEN = 8 };

/* ICMP errors (RFC 792): destination unreachable, source quench, redirect, time exceeded,
 * parameter problem. */
static inline int ics_icmp_is_error(uint32_t type)
{
    return type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
}

/* ICMPv6 errors (RFC 4443): types 1 to 4. */
static inline int ics_icmpv6_is_error(uint32_t type)
{
    return type >= 1 && type <= 4;
}

/* An ICMPv6 redirect (RFC 4861 4.5) keeps options after 40 bytes: type, length in 8-byte units;
 * the Redirected Header option holds the start of the redirected packet after its first 8 bytes. */
enum {
    ICS_ICMPV6_REDIRECT = 137,
    ICS_ICMPV6_REDIRECT_OPTS = 40,
    ICS_ND_OPT_TYPE = 0,
    ICS_ND_OPT_LEN = 1,
    ICS_ND_OPT_REDIRECTED = 4,
    ICS_ND_OPT_REDIRECTED_DATA = 8,
};

/* IGMP: type, max response time, checksum. */
enum { ICS_IGMP_CHECK = 2, ICS_IGMP_HLEN = 8 };

/* SCTP: common header of ports, verification tag and the CRC32c (little-endian on the wire). */
enum { ICS_SCTP_SPORT = 0, ICS_SCTP_DPORT = 2, ICS_SCTP_VTAG = 4, ICS_SCTP_CHECK = 8, ICS_SCTP_HLEN = 12 };

/* An SCTP DATA chunk (RFC 9260 3.3.1): type 0, flags (B and E: a whole message), length, TSN,
 * stream identifier and sequence number, payload protocol identifier, then the data. */
enum {
    ICS_SCTP_CHUNK_FLAGS = 1,
    ICS_SCTP_CHUNK_LEN = 2,
    ICS_SCTP_DATA_TSN = 4,
    ICS_SCTP_DATA_PPID = 12,
    ICS_SCTP_DATA_HLEN = 16,
    ICS_SCTP_DATA_WHOLE = 0x03, /* B and E */
};

/* Mobility Header (RFC 6275 6.1): payload proto, length in 8-byte units beyond the first 8, type,
 * reserved, checksum. */
enum { ICS_MH_LEN = 1, ICS_MH_CHECK = 4, ICS_MH_HLEN = 6 };

static inline unsigned ics_mh_len(const uint8_t *mh)
{
    return ((unsigned)mh[ICS_MH_LEN] + 1) * 8;
}

/* PIM version 2 (RFC 7761 4.9): version and type, reserved, checksum.  A Register (type 1) adds 4
 * bytes of flags, then the data packet it carries, which its checksum does not cover. */
enum {
    ICS_PIM_VER_TYPE = 0,
    ICS_PIM_CHECK = 2,
    ICS_PIM_HLEN = 4,
    ICS_PIM_VERSION2 = 2, /* the high nibble */
    ICS_PIM_TYPE_MASK = 0x0F,
    ICS_PIM_REGISTER = 1,
    ICS_PIM_REGISTER_HLEN = 8,
};

/* OSPF (RFC 2328 A.3.1, RFC 5340 A.3.1): version, type, packet length, router and area IDs, the
 * checksum; OSPFv2 then its authentication type and 8 bytes of authentication, which its checksum
 * leaves out (and with cryptographic authentication, type 2, the checksum is not computed). */
enum {
    ICS_OSPF_VERSION = 0,
    ICS_OSPF_LEN = 2,
    ICS_OSPF_CHECK = 12,
    ICS_OSPF_AUTYPE = 14,
    ICS_OSPF_AUTH = 16,
    ICS_OSPF_AUTH_LEN = 8,
    ICS_OSPF2_HLEN = 24,
    ICS_OSPF3_HLEN = 16,
    ICS_OSPF_AUTYPE_CRYPTO = 2,
};

/* VRRP (RFC 3768 5.1, RFC 5798 5.1) and CARP, which shares its protocol number: version in the top
 * nibble of the first byte, the checksum at byte 6. */
enum { ICS_VRRP_CHECK = 6, ICS_VRRP_HLEN = 8 };

/* EIGRP (RFC 7868 6.5): version, opcode, checksum, flags, sequence, acknowledgment, virtual router
 * ID, autonomous system. */
enum { ICS_EIGRP_CHECK = 2, ICS_EIGRP_HLEN = 20 };

/* DCCP (RFC 4340 5.1): ports, data offset (the header's length in 4-byte words), CCVal and
 * Checksum Coverage (low nibble: 0 the whole packet, else the header and CsCov - 1 words of data),
 * checksum. */
enum { ICS_DCCP_DOFF = 4, ICS_DCCP_CSCOV = 5, ICS_DCCP_CSCOV_MASK = 0x0F, ICS_DCCP_CHECK = 6, ICS_DCCP_HLEN = 12 };

/* RSVP's common header (RFC 2205 3.1.1): version and flags, message type, checksum, send TTL,
 * reserved, message length. */
enum { ICS_RSVP_CHECK = 2, ICS_RSVP_LEN = 6, ICS_RSVP_HLEN = 8 };

/* PGM (RFC 3208 8): ports, type, options, checksum, global source ID, TSDU length. */
enum { ICS_PGM_CHECK = 6, ICS_PGM_HLEN = 16 };

#endif
