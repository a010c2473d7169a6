/* Internal to lib/gso: the per-segment header rewrite that segmentation and coalescing share.
 *
 * A super-packet and the segments it is cut into (or the packets a coalescer merges into one)
 * have the same headers but for a few fields: ics_gso_fields lists them for a layout, and it is
 * the one list of what may differ (segmentation sums the headers without them once and adds
 * each segment's values; coalescing compares every header byte but them).  The values those
 * fields take are ics_gso_values: written by ics_gso_write_values, and the checksums over them
 * filled by ics_gso_fill_checksums, for a segment and for a merged super-packet alike. */
#ifndef ICS_GSO_REWRITE_H
#define ICS_GSO_REWRITE_H

#include "gso.h"
#include "proto/pseudo.h" /* wire16 */

/* A header field that differs from one segment to the next. */
enum ics_gso_field_kind {
    ICS_GSO_F_IP_LEN,    /* IPv4 total length, IPv6 payload length */
    ICS_GSO_F_IP_ID,     /* IPv4 identification */
    ICS_GSO_F_IP_CHECK,  /* IPv4 header checksum */
    ICS_GSO_F_L4_LEN,    /* UDP length (a tunnel's or the segmented one) */
    ICS_GSO_F_L4_CHECK,  /* UDP, GRE or TCP checksum */
    ICS_GSO_F_TCP_SEQ,
    ICS_GSO_F_TCP_FLAGS, /* the flag byte (FIN and PSH on the last segment, CWR on the first) */
};
struct ics_gso_field {
    uint16_t off; /* from the link header */
    uint8_t len;
    uint8_t kind;  /* enum ics_gso_field_kind */
    uint8_t level; /* g->level[] index */
};
/* Per level at most: IP length, ID, checksum; the UDP length and checksum or GRE's checksum; or
 * the TCP sequence number, flags and checksum. */
#define ICS_GSO_MAX_FIELDS (INETCSUM_GSO_MAX_LEVELS * 6)

/* The fields of g's headers that differ between segments, outermost first: every IP header's
 * lengths (and IPv4's ID and checksum), a tunnel UDP header's length and checksum, a GRE
 * header's checksum when it has one, the segmented TCP header's sequence number, flags and
 * checksum, or the segmented UDP header's length and checksum.  Returns how many. */
unsigned ics_gso_fields(const struct inetcsum_gso *g, struct ics_gso_field out[ICS_GSO_MAX_FIELDS]);

/* Whether every level's IP and TCP, UDP or GRE header and the payload start at even offsets (every
 * link layer's header length is even): then a field sits in the same half of a 16-bit word counted
 * from the frame's start as from any header's, and sums kept for the headers' unchanging bytes
 * take each changing field as it is (segmentation's fast plan, the coalescer's shortcut). */
static inline int ics_gso_even_offsets(const struct inetcsum_gso *g)
{
    unsigned odd = g->hdr_len & 1u;
    for (unsigned j = 0; j < g->nlevels; j++)
        odd |= (g->level[j].ip_off | g->level[j].l4_off) & 1u;
    return !odd;
}

/* What those fields hold in one packet (a segment, a super-packet, a merged one). */
struct ics_gso_values {
    size_t len;                                /* the packet's bytes from the link header */
    uint16_t ip_id[INETCSUM_GSO_MAX_LEVELS];   /* the IPv4 levels' IDs */
    uint32_t seq;                              /* TCP */
    uint8_t tcp_flags;                         /* TCP */
};

/* The values the headers at hdr hold (a super-packet's, before it is cut). */
void ics_gso_values_of(const struct inetcsum_gso *g, const uint8_t *hdr, size_t len, struct ics_gso_values *v);

/* Linux's GSO rules for segment i (tcp_gso_segment, inet_gso_segment), one value at a time: the
 * IPv4 ID of level j incremented per segment (kept with INETCSUM_GSO_FIXEDID, or the level's
 * INETCSUM_GSO_LEVEL_FIXEDID), the sequence number advanced by gso_size per segment, FIN and PSH
 * on the last only, CWR on the first only. */
static inline uint16_t ics_gso_segment_id(const struct inetcsum_gso *g, unsigned j, uint16_t first, uint32_t i)
{
    const int fixed = (g->flags & INETCSUM_GSO_FIXEDID) || (g->level[j].flags & INETCSUM_GSO_LEVEL_FIXEDID);
    return (uint16_t)(first + (fixed ? 0 : i));
}

/* (The sequence number and flags from the values alone, for code that keeps them apart from g.) */
static inline uint32_t ics_gso_seq_at(uint32_t first, uint32_t i, uint32_t gso_size)
{
    return first + i * gso_size;
}

static inline uint8_t ics_gso_flags_at(uint8_t first, uint32_t i, uint32_t segments)
{
    /* Without branches: per segment they would be taken one way for all but one. */
    const unsigned drop = (i + 1 < segments ? ICS_TCP_FIN | ICS_TCP_PSH : 0u) | (i > 0 ? ICS_TCP_CWR : 0u);
    return (uint8_t)(first & ~drop);
}

static inline uint32_t ics_gso_segment_seq(const struct inetcsum_gso *g, uint32_t first, uint32_t i)
{
    return ics_gso_seq_at(first, i, (uint32_t)g->gso_size);
}

static inline uint8_t ics_gso_segment_flags(const struct inetcsum_gso *g, uint8_t first, uint32_t i)
{
    return ics_gso_flags_at(first, i, g->segments);
}

/* Segment i of n payload bytes, all its values, from the super-packet's.  nlevels is g->nlevels,
 * a constant where it is inlined (its loops unroll). */
static inline __attribute__((always_inline)) void
ics_gso_segment_values_n(const struct inetcsum_gso *g, const struct ics_gso_values *super, uint32_t i, size_t n,
                         struct ics_gso_values *v, const unsigned nlevels)
{
    v->len = g->hdr_len + n;
    for (unsigned j = 0; j < nlevels; j++)
        v->ip_id[j] = ics_gso_segment_id(g, j, super->ip_id[j], i);
    v->seq = ics_gso_segment_seq(g, super->seq, i);
    v->tcp_flags = ics_gso_segment_flags(g, super->tcp_flags, i);
}

/* Writes v into the headers at frame: every level's lengths, the IPv4 IDs, the TCP sequence number
 * and flags (the checksums are ics_gso_fill_checksums').  nlevels as above. */
static inline __attribute__((always_inline)) void
ics_gso_write_values_n(const struct inetcsum_gso *g, uint8_t *frame, const struct ics_gso_values *v,
                       const unsigned nlevels)
{
    const size_t len = v->len;
    for (unsigned j = 0; j < nlevels; j++) {
        const struct inetcsum_gso_level *lv = &g->level[j];
        uint8_t *ip = frame + lv->ip_off;
        if (lv->ip_version == 4) {
            ics_put16(ip + ICS_IPV4_TOT_LEN, (uint32_t)(len - lv->ip_off));
            ics_put16(ip + ICS_IPV4_ID, v->ip_id[j]);
        } else {
            ics_put16(ip + ICS_IPV6_PAYLOAD_LEN, (uint32_t)(len - lv->ip_off - ICS_IPV6_HLEN));
        }
        if (lv->l4 == INETCSUM_GSO_L4_UDP)
            ics_put16(frame + lv->l4_off + ICS_UDP_LEN, (uint32_t)(len - lv->l4_off));
    }
    if (g->proto == INETCSUM_GSO_L4_TCP) {
        uint8_t *th = frame + g->level[nlevels - 1].l4_off;
        ics_put32(th + ICS_TCP_SEQ, v->seq);
        th[ICS_TCP_FLAGS] = v->tcp_flags;
    }
}

static inline void ics_gso_segment_values(const struct inetcsum_gso *g, const struct ics_gso_values *super,
                                          uint32_t i, size_t n, struct ics_gso_values *v)
{
    ics_gso_segment_values_n(g, super, i, n, v, g->nlevels);
}

static inline void ics_gso_write_values(const struct inetcsum_gso *g, uint8_t *frame, const struct ics_gso_values *v)
{
    ics_gso_write_values_n(g, frame, v, g->nlevels);
}

/* The offload kind (INETCSUM_OFL_*) of level i's TCP or UDP checksum, and of its IPv4 header's:
 * a device offers them on the outer headers and one tunnel in, no deeper. */
static inline uint32_t ics_gso_l4_kind(const struct inetcsum_gso_level *lv, unsigned i, unsigned proto)
{
    uint32_t k = proto == INETCSUM_GSO_L4_TCP ? (lv->ip_version == 4 ? INETCSUM_OFL_TCP4 : INETCSUM_OFL_TCP6)
                                              : (lv->ip_version == 4 ? INETCSUM_OFL_UDP4 : INETCSUM_OFL_UDP6);
    return i == 0 ? k : i == 1 ? INETCSUM_OFL_INNER(k) : 0;
}

static inline uint32_t ics_gso_ipv4_kind(unsigned i)
{
    return i == 0 ? INETCSUM_OFL_IPV4 : i == 1 ? INETCSUM_OFL_INNER(INETCSUM_OFL_IPV4) : 0;
}

/* How the checksums of a packet are filled. */
struct ics_gso_csum {
    uint32_t device; /* INETCSUM_OFL_* kinds the device computes: those fields get its seed */
    int zero_seed;   /* ... or 0 (INETCSUM_OFFLOAD_ZERO_SEED) */
    int partial;     /* the segmented checksum is the device's (NEEDS_CSUM): its pseudo-header seed */
};

/* Fills the checksums of the packet at frame (len bytes, its values written) whose payload (from
 * g->hdr_len) sums to psum (unused when partial): every IPv4 header's, the segmented TCP or UDP
 * one, then the tunnels' from the inside out.  A tunnel's checksum covers the segmented message at
 * its final value, which sums to the complement of its pseudo-header sum once filled, here or by
 * the device (local checksum offload): the payload is never read again. */
void ics_gso_fill_checksums(const struct inetcsum_gso *g, uint8_t *frame, size_t len, uint32_t psum,
                            const struct ics_gso_csum *how);

/* For the tests: nonzero makes segmentation fill every layout's checksums through
 * ics_gso_fill_checksums, not its fast path's precomputed sums (tests/test_gso.c holds the two to
 * the same bytes).  Not for callers: it is read without synchronisation. */
extern int ics_gso_force_general;

/* The pseudo-header sum of level lv's message of len bytes. */
static inline uint32_t ics_gso_pseudo_len(const struct inetcsum_gso_level *lv, size_t len)
{
    return ics_add32(lv->pseudo, wire16((uint32_t)len));
}

#endif
