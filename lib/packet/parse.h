/* The frame parser: from a frame to the list of checksums it carries, outermost first, each with
 * the bytes it covers and its pseudo-header sum.  No checksum is computed here. */
#ifndef ICS_PACKET_PARSE_H
#define ICS_PACKET_PARSE_H

#include "inetcsum_packet.h"
#include "view.h"
#include "../wire/wire.h"

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
    /* With INETCSUM_FRAME_NOT_FOLLOWED: what was not (enum inetcsum_unfollowed), its number, and
     * where the header not followed starts. */
    uint8_t why;
    uint32_t why_value, why_off;
    /* With INETCSUM_FRAME_MALFORMED, where a step said: which header is wrong (enum
     * inetcsum_malformed), its number and where it starts. */
    uint8_t bad;
    uint32_t bad_value, bad_off;
};

/* A report's frame-wide part, from a parse: its flags, its count, what it did not follow. */
static inline void ics_report_frame(struct inetcsum_report *r, const struct ics_parsed *p)
{
    r->flags = p->flags;
    r->count = p->n;
    r->unfollowed = p->why;
    r->unfollowed_value = p->why_value;
    r->unfollowed_offset = p->why_off;
    r->malformed = p->bad;
    r->malformed_value = p->bad_value;
    r->malformed_offset = p->bad_off;
}

/* Parses the frame v (v->len bytes captured, wirelen on the wire, wirelen >= v->len).  With frag
 * not NULL, the fragment it carries outside ICMP quotes is described there; the result is then
 * what inetcsum_fragment() returns (0 without frag). */
int ics_parse(const struct ics_view *v, size_t wirelen, enum inetcsum_link link, struct ics_parsed *out,
              struct inetcsum_fragment *frag);

#endif
