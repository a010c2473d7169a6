/* The frame parser: from a frame to the list of checksums it carries, outermost first, each with
 * the bytes it covers and its pseudo-header sum.  No checksum is computed here. */
#ifndef ICS_PACKET_PARSE_H
#define ICS_PACKET_PARSE_H

#include "inetcsum_packet.h"
#include "view.h"

/* One checksum to examine. */
struct ics_item {
    uint8_t layer; /* enum inetcsum_layer */
    uint8_t depth;
    uint8_t flags;     /* INETCSUM_CHECK_QUOTED, _FRAGMENT, _TRUNCATED, _MALFORMED */
    uint8_t over_ipv6; /* carried by IPv6 (UDP zero rule; offload kind) */
    uint32_t off;      /* header start in the frame */
    uint32_t len;      /* message length by the headers: [off, off + len) is covered */
    uint32_t pseudo;   /* pseudo-header partial sum (0 for layers without one) */
};

struct ics_parsed {
    unsigned flags; /* INETCSUM_FRAME_* */
    unsigned n;
    struct ics_item item[INETCSUM_MAX_CHECKS];
};

/* A big-endian 16-bit header field. */
static inline uint32_t ics_be16(const uint8_t *p)
{
    return ((uint32_t)p[0] << 8) | p[1];
}

/* UDP ports that carry a tunnel the parser follows (RFC 8086 GRE-in-UDP, RFC 7348 VXLAN, RFC 8926
 * GENEVE, RFC 4380 Teredo, 3GPP GTP-U). */
enum {
    ICS_PORT_GRE_IN_UDP = 4754,
    ICS_PORT_VXLAN = 4789,
    ICS_PORT_GENEVE = 6081,
    ICS_PORT_TEREDO = 3544,
    ICS_PORT_GTPU = 2152,
};

/* Whether a UDP datagram with these ports may carry one (Teredo and GTP-U either way). */
static inline int ics_udp_may_tunnel(unsigned sport, unsigned dport)
{
    return dport == ICS_PORT_GRE_IN_UDP || dport == ICS_PORT_VXLAN || dport == ICS_PORT_GENEVE ||
           dport == ICS_PORT_TEREDO || sport == ICS_PORT_TEREDO || dport == ICS_PORT_GTPU || sport == ICS_PORT_GTPU;
}

/* Parses the frame v (v->len bytes captured, wirelen on the wire, wirelen >= v->len).  With frag
 * not NULL, the fragment it carries outside ICMP quotes is described there; the result is then
 * what inetcsum_fragment() returns (0 without frag). */
int ics_parse(const struct ics_view *v, size_t wirelen, enum inetcsum_link link, struct ics_parsed *out,
              struct inetcsum_fragment *frag);

#endif
