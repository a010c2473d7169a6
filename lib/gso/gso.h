/* Internal to lib/gso: the header walker that segmentation and coalescing share. */
#ifndef ICS_GSO_H
#define ICS_GSO_H

#include "inetcsum.h"
#include "inetcsum_gso.h"
#include "kernels.h"
#include "packet/protocols.h"
#include "wire/wire.h"

/* The longest run of headers a segment repeats: ample for two levels of IPv6 with extension
 * headers and GENEVE options, and what segmenting a packet given as buffers copies to the stack. */
#define ICS_GSO_MAX_HDR 1024

/* The longest packet a BIG TCP super-packet (an IP length of 0) may be: Linux's GSO_MAX_SIZE. */
#define ICS_GSO_MAX_BIG (512u * 1024u)

/* Linux's gro_max_size by default (GRO_LEGACY_MAX_SIZE): a merged packet, from its outer IP
 * header on, stays below it. */
#define ICS_GRO_MAX_SIZE 65536u

/* The sum of n header bytes: inline below ICS_SMALL_MAX (per packet, a call would cost more than
 * the sum), through the kernels above it (headers reach ICS_GSO_MAX_HDR). */
static inline uint32_t ics_gso_header_sum(const uint8_t *p, size_t n, uint32_t seed)
{
    return n < ICS_SMALL_MAX ? ics_partial_small(p, n, seed) : inetcsum_partial(p, n, seed);
}

/* What a virtio-net header says of the headers (0: it does not say). */
struct ics_gso_marks {
    size_t target;   /* the segmented header's offset (csum_start), else the innermost TCP or UDP */
    size_t outer_th; /* a UDP tunnel's header (the tunnel form's outer_th_offset) and the IP */
    size_t inner_nh; /* header inside it (inner_nh_offset), followed whatever the ports */
};

/* Fills g's levels, proto, hdr_len, link_len and payload_len from the headers at p (avail bytes
 * present) of a packet of total bytes, as marks (NULL: none) say where they are.  With pseudo,
 * the levels' pseudo-header sums too (ics_gso_pseudo).  0 or a negative errno. */
int ics_gso_layout(struct inetcsum_gso *g, const uint8_t *p, size_t avail, size_t total, enum inetcsum_link link,
                   const struct ics_gso_marks *marks, int pseudo);
/* The levels' pseudo-header sums (struct inetcsum_gso_level.pseudo), from the IP headers where
 * they say all, else from the checksum parser: the coalescer skips them for a packet whose flow
 * already knows them.  inner_nh: the IP header inside a tunnel a virtio-net header named (the
 * parser is asked from there), else 0. */
int ics_gso_pseudo(struct inetcsum_gso *g, const uint8_t *p, size_t avail, size_t total, enum inetcsum_link link,
                   size_t inner_nh);
/* For the tests: nonzero makes ics_gso_pseudo ask the parser for every packet (tests/test_gso.c
 * and fuzz_gso hold the two ways to the same sums and verdicts).  Not for callers: it is read
 * without synchronisation. */
extern int ics_gso_force_parser;

/* Whether the walk looks past a UDP header with these ports for a tunnel it crosses (VXLAN,
 * GENEVE): a datagram found not to carry one is then known by bytes after its headers too. */
int ics_gso_udp_tunnel_port(unsigned sport, unsigned dport);

/* The outermost IP header of a frame of len bytes, after its link layer (VLAN tags, SLL, ...):
 * ICS_H_IPV4 or ICS_H_IPV6 with *off where it starts and its fixed header all present, else
 * ICS_H_STOP. */
enum ics_hdr ics_gso_ip_at(const uint8_t *p, size_t len, enum inetcsum_link link, size_t *off);

/* Where the outermost IP packet of a frame of len bytes ends by its header's own length, when
 * that is before the frame's end (Ethernet padding, a trailer); else 0. */
size_t ics_gso_ip_end(const uint8_t *p, size_t len, enum inetcsum_link link);

/* For the tests: whether the coalescer may take a train's next segment without walking its
 * headers (on by default; coalesce.c, next_in_train), and how many it has taken so. */
void ics_gro_set_shortcut(struct inetcsum_gro *t, int on);
uint64_t ics_gro_shortcuts(const struct inetcsum_gro *t);

#endif
